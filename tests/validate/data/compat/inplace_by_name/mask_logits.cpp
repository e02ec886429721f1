// A kernel that updates a tensor in place, as sampling kernels do with their logits: an element
// whose mask word is 0 becomes -10000, every other element keeps the value it came in with (so
// the buffer must start with the input). The reference mutates the argument of the same name.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t ROWS = 4;
constexpr int32_t COLS = 64;
constexpr float MASKED = -10000.0f;

extern "C" __global__ __aicore__ void mask_logits(GM_ADDR logits, GM_ADDR mask)
{
    const int32_t row = GetBlockIdx();
    GlobalTensor<float> logitsGm;
    GlobalTensor<int32_t> maskGm;
    logitsGm.SetGlobalBuffer((__gm__ float*)logits + row * COLS, COLS);
    maskGm.SetGlobalBuffer((__gm__ int32_t*)mask + row * COLS, COLS);
    for (int32_t i = 0; i < COLS; ++i) {
        if (maskGm.GetValue(i) == 0) {
            logitsGm.SetValue(i, MASKED);
        }
    }
}
// kernelgen: block_dim=4
