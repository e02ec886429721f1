// Single-file kernel in the kernel-launch style: half in, float out. Only the SetGlobalBuffer
// casts say that y holds floats; the float32 reference cannot.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t N = 1024;

extern "C" __global__ __aicore__ void widen(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    GlobalTensor<half> xGm;
    GlobalTensor<float> yGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, N);
    yGm.SetGlobalBuffer((__gm__ float*)y, N);
    pipe.InitBuffer(inQueue, 1, N * sizeof(half));
    pipe.InitBuffer(outQueue, 1, N * sizeof(float));
    LocalTensor<half> xin = inQueue.AllocTensor<half>();
    DataCopy(xin, xGm, N);
    inQueue.EnQue(xin);
    LocalTensor<half> xl = inQueue.DeQue<half>();
    LocalTensor<float> yl = outQueue.AllocTensor<float>();
    Cast(yl, xl, RoundMode::CAST_NONE, N);
    outQueue.EnQue(yl);
    inQueue.FreeTensor(xl);
    LocalTensor<float> yout = outQueue.DeQue<float>();
    DataCopy(yGm, yout, N);
    outQueue.FreeTensor(yout);
}
