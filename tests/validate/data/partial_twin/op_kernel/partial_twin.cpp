// One block: y = 2 x for all n elements, z = 3 x for the last 8 only (n a multiple of 8).
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void partial_twin(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA(td, tiling);
    GlobalTensor<float> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, td.n);
    yGm.SetGlobalBuffer((__gm__ float*)y, td.n);
    zGm.SetGlobalBuffer((__gm__ float*)z, td.n);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    pipe.InitBuffer(inQ, 1, td.n * sizeof(float));
    pipe.InitBuffer(outQ, 1, td.n * sizeof(float));
    LocalTensor<float> in = inQ.AllocTensor<float>();
    DataCopy(in, xGm, td.n);
    inQ.EnQue(in);
    in = inQ.DeQue<float>();
    LocalTensor<float> out = outQ.AllocTensor<float>();
    Muls(out, in, 2.0f, td.n);
    outQ.EnQue(out);
    out = outQ.DeQue<float>();
    DataCopy(yGm, out, td.n);
    outQ.FreeTensor(out);
    out = outQ.AllocTensor<float>();
    Muls(out, in, 3.0f, td.n);
    outQ.EnQue(out);
    out = outQ.DeQue<float>();
    DataCopy(zGm[td.n - 8], out[td.n - 8], 8);
    outQ.FreeTensor(out);
    inQ.FreeTensor(in);
}
