// Block b adds row b of x into y with SetAtomicAdd (y is zeroed by the caller).
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void atomic_rowsum(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA(td, tiling);
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * td.cols, td.cols);
    yGm.SetGlobalBuffer((__gm__ float*)y, td.cols);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    pipe.InitBuffer(inQ, 1, td.cols * sizeof(float));
    LocalTensor<float> row = inQ.AllocTensor<float>();
    DataCopy(row, xGm, td.cols);
    inQ.EnQue(row);
    row = inQ.DeQue<float>();
    SetAtomicAdd<float>();
    DataCopy(yGm, row, td.cols);
    SetAtomicNone();
    inQ.FreeTensor(row);
}
