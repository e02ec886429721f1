// A kernel whose entry takes its result before a scratch pointer, as kernel-launch samples that
// synchronise their cores do: `syncGM` is the SyncAll workspace the caller zeroes. Each of 4
// cores writes twice its row of src into out; after SyncAll, core 0 writes the column sums of
// those rows into out's last row.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t CORES = 4;
constexpr int32_t COLS = 64;
constexpr int32_t SYNC_INTS_PER_CORE = 8;

extern "C" __global__ __aicore__ void row_total(GM_ADDR src, GM_ADDR out, GM_ADDR syncGM)
{
    const int32_t row = GetBlockIdx();
    GlobalTensor<float> srcGm, outGm;
    GlobalTensor<int32_t> syncGm;
    srcGm.SetGlobalBuffer((__gm__ float*)src, CORES * COLS);
    outGm.SetGlobalBuffer((__gm__ float*)out, (CORES + 1) * COLS);
    syncGm.SetGlobalBuffer((__gm__ int32_t*)syncGM, CORES * SYNC_INTS_PER_CORE);
    TPipe pipe;
    TBuf<TPosition::VECCALC> syncBuf;
    pipe.InitBuffer(syncBuf, CORES * SYNC_INTS_PER_CORE * sizeof(int32_t));
    for (int32_t i = 0; i < COLS; ++i) {
        outGm.SetValue(row * COLS + i, 2.0f * srcGm.GetValue(row * COLS + i));
    }
    LocalTensor<int32_t> syncLocal = syncBuf.Get<int32_t>();
    SyncAll(syncGm, syncLocal);
    if (row != 0) {
        return;
    }
    for (int32_t i = 0; i < COLS; ++i) {
        float total = 0.0f;
        for (int32_t r = 0; r < CORES; ++r) {
            total += outGm.GetValue(r * COLS + i);
        }
        outGm.SetValue(CORES * COLS + i, total);
    }
}
// kernelgen: block_dim=4
