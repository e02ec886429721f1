// y = x + bias, or y = x when bias (the first input) is absent (null), on one core, one tile.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void bias_first_add(GM_ADDR bias, GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    const uint32_t n = td.length;
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    GlobalTensor<float> xGm, bGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, n);
    yGm.SetGlobalBuffer((__gm__ float*)y, n);
    pipe.InitBuffer(inQueue, 1, 2 * n * sizeof(float));
    pipe.InitBuffer(outQueue, 1, n * sizeof(float));
    LocalTensor<float> in = inQueue.AllocTensor<float>();
    DataCopy(in, xGm, n);
    if (td.hasBias) {
        bGm.SetGlobalBuffer((__gm__ float*)bias, n);
        DataCopy(in[n], bGm, n);
    }
    inQueue.EnQue(in);
    in = inQueue.DeQue<float>();
    LocalTensor<float> out = outQueue.AllocTensor<float>();
    if (td.hasBias) {
        Add(out, in, in[n], n);
    } else {
        Adds(out, in, 0.0f, n);
    }
    outQueue.EnQue(out);
    inQueue.FreeTensor(in);
    out = outQueue.DeQue<float>();
    DataCopy(yGm, out, n);
    outQueue.FreeTensor(out);
}
