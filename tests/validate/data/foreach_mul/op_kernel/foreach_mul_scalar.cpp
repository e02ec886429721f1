// ys[k] = xs[k] * scalar: both lists read through ListTensorDesc, one tensor at a time.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void foreach_mul_scalar(GM_ADDR xs, GM_ADDR ys, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    const uint32_t n = td.length;
    ListTensorDesc xList(reinterpret_cast<__gm__ void*>(xs));
    ListTensorDesc yList(reinterpret_cast<__gm__ void*>(ys));
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    pipe.InitBuffer(inQueue, 1, n * sizeof(float));
    pipe.InitBuffer(outQueue, 1, n * sizeof(float));
    for (uint32_t k = 0; k < td.num; ++k) {
        GlobalTensor<float> xGm, yGm;
        xGm.SetGlobalBuffer(xList.GetDataPtr<float>(k), n);
        yGm.SetGlobalBuffer(yList.GetDataPtr<float>(k), n);
        LocalTensor<float> in = inQueue.AllocTensor<float>();
        DataCopy(in, xGm, n);
        inQueue.EnQue(in);
        in = inQueue.DeQue<float>();
        LocalTensor<float> out = outQueue.AllocTensor<float>();
        Muls(out, in, td.scalar, n);
        outQueue.EnQue(out);
        inQueue.FreeTensor(in);
        out = outQueue.DeQue<float>();
        DataCopy(yGm, out, n);
        outQueue.FreeTensor(out);
    }
}
