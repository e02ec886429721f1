// buf = momentum * buf + grad; param = param - lr * buf, on one core, one tile.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void sgd_momentum_custom(GM_ADDR param, GM_ADDR grad, GM_ADDR buf, GM_ADDR paramOut,
                                                          GM_ADDR bufOut, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    const uint32_t n = td.length;
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    GlobalTensor<float> pGm, gGm, bGm, pOutGm, bOutGm;
    pGm.SetGlobalBuffer((__gm__ float*)param, n);
    gGm.SetGlobalBuffer((__gm__ float*)grad, n);
    bGm.SetGlobalBuffer((__gm__ float*)buf, n);
    pOutGm.SetGlobalBuffer((__gm__ float*)paramOut, n);
    bOutGm.SetGlobalBuffer((__gm__ float*)bufOut, n);
    pipe.InitBuffer(inQueue, 1, 3 * n * sizeof(float));
    pipe.InitBuffer(outQueue, 1, 2 * n * sizeof(float));
    LocalTensor<float> in = inQueue.AllocTensor<float>();
    DataCopy(in, pGm, n);
    DataCopy(in[n], gGm, n);
    DataCopy(in[2 * n], bGm, n);
    inQueue.EnQue(in);
    in = inQueue.DeQue<float>();
    LocalTensor<float> out = outQueue.AllocTensor<float>();
    LocalTensor<float> p = in;
    LocalTensor<float> g = in[n];
    LocalTensor<float> b = in[2 * n];
    LocalTensor<float> newP = out;
    LocalTensor<float> newB = out[n];
    Muls(newB, b, td.momentum, n);
    Add(newB, newB, g, n);
    Muls(newP, newB, td.lr, n);
    Sub(newP, p, newP, n);
    outQueue.EnQue(out);
    inQueue.FreeTensor(in);
    out = outQueue.DeQue<float>();
    DataCopy(pOutGm, out, n);
    DataCopy(bOutGm, out[n], n);
    outQueue.FreeTensor(out);
}
