// A kernel-launch sample: constants in the file, the block count only in the launch of the host
// program (main.cpp), and an entry named like a C library function, which device code may use.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t TOTAL_LENGTH = 4 * 256;
constexpr int32_t USE_CORE_NUM = 4;
constexpr int32_t BLOCK_LENGTH = TOTAL_LENGTH / USE_CORE_NUM;

extern "C" __global__ __aicore__ void fmax(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> xb, yb;
    pipe.InitBuffer(xb, BLOCK_LENGTH * sizeof(float));
    pipe.InitBuffer(yb, BLOCK_LENGTH * sizeof(float));
    GlobalTensor<float> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + BLOCK_LENGTH * GetBlockIdx(), BLOCK_LENGTH);
    yGm.SetGlobalBuffer((__gm__ float*)y + BLOCK_LENGTH * GetBlockIdx(), BLOCK_LENGTH);
    zGm.SetGlobalBuffer((__gm__ float*)z + BLOCK_LENGTH * GetBlockIdx(), BLOCK_LENGTH);
    LocalTensor<float> xl = xb.Get<float>(), yl = yb.Get<float>();
    DataCopy(xl, xGm, BLOCK_LENGTH);
    DataCopy(yl, yGm, BLOCK_LENGTH);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Max(xl, xl, yl, BLOCK_LENGTH);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(zGm, xl, BLOCK_LENGTH);
}

#ifndef __CCE_KT_TEST__
void fmax_do(uint32_t blockDim, void* l2ctrl, void* stream, uint8_t* x, uint8_t* y, uint8_t* z) {
    fmax<<<blockDim, l2ctrl, stream>>>(x, y, z);
}
#endif
