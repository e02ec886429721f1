// Single-file kernel: y[r, c] = x[r, c] * weight[c] + bias[c], 64 rows of 256 floats, 4 blocks.
// kernelgen: block_dim=4
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t ROWS = 64;
constexpr uint32_t COLS = 256;
constexpr uint32_t BLOCKS = 4;
constexpr uint32_t ROWS_PER_BLOCK = ROWS / BLOCKS;

extern "C" __global__ __aicore__ void scale_rows(GM_ADDR x, GM_ADDR weight, GM_ADDR bias, GM_ADDR y,
                                                 GM_ADDR workspace, GM_ADDR tiling)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    TBuf<QuePosition::VECCALC> paramBuf;
    GlobalTensor<float> xGm, wGm, bGm, yGm;
    uint64_t offset = static_cast<uint64_t>(GetBlockIdx()) * ROWS_PER_BLOCK * COLS;
    xGm.SetGlobalBuffer((__gm__ float*)x + offset, ROWS_PER_BLOCK * COLS);
    yGm.SetGlobalBuffer((__gm__ float*)y + offset, ROWS_PER_BLOCK * COLS);
    wGm.SetGlobalBuffer((__gm__ float*)weight, COLS);
    bGm.SetGlobalBuffer((__gm__ float*)bias, COLS);
    pipe.InitBuffer(inQueue, 1, COLS * sizeof(float));
    pipe.InitBuffer(outQueue, 1, COLS * sizeof(float));
    pipe.InitBuffer(paramBuf, 2 * COLS * sizeof(float));
    LocalTensor<float> w = paramBuf.Get<float>();
    LocalTensor<float> b = w[COLS];
    DataCopy(w, wGm, COLS);
    DataCopy(b, bGm, COLS);
    PipeBarrier<PIPE_ALL>();
    for (uint32_t r = 0; r < ROWS_PER_BLOCK; r++) {
        LocalTensor<float> xin = inQueue.AllocTensor<float>();
        DataCopy(xin, xGm[r * COLS], COLS);
        inQueue.EnQue(xin);
        LocalTensor<float> xl = inQueue.DeQue<float>();
        LocalTensor<float> yl = outQueue.AllocTensor<float>();
        Mul(yl, xl, w, COLS);
        Add(yl, yl, b, COLS);
        outQueue.EnQue(yl);
        inQueue.FreeTensor(xl);
        LocalTensor<float> yout = outQueue.DeQue<float>();
        DataCopy(yGm[r * COLS], yout, COLS);
        outQueue.FreeTensor(yout);
    }
}
