// var[0, :] += delta: reads row 0 and delta, writes row 0 of the in-place output; the other
// rows are left alone (on the NPU var and its output are one buffer).
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void row_add_inplace(GM_ADDR var, GM_ADDR delta, GM_ADDR varOut, GM_ADDR workspace,
                                                      GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    const uint32_t n = td.cols;
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    GlobalTensor<float> vGm, dGm, outGm;
    vGm.SetGlobalBuffer((__gm__ float*)var, n);
    dGm.SetGlobalBuffer((__gm__ float*)delta, n);
    outGm.SetGlobalBuffer((__gm__ float*)varOut, n);
    pipe.InitBuffer(inQueue, 1, 2 * n * sizeof(float));
    pipe.InitBuffer(outQueue, 1, n * sizeof(float));
    LocalTensor<float> in = inQueue.AllocTensor<float>();
    DataCopy(in, vGm, n);
    DataCopy(in[n], dGm, n);
    inQueue.EnQue(in);
    in = inQueue.DeQue<float>();
    LocalTensor<float> out = outQueue.AllocTensor<float>();
    Add(out, in, in[n], n);
    outQueue.EnQue(out);
    inQueue.FreeTensor(in);
    out = outQueue.DeQue<float>();
    DataCopy(outGm, out, n);
    outQueue.FreeTensor(out);
}
