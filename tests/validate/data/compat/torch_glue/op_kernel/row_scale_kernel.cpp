// The device half of a PyTorch extension: the entry takes GM pointers and by-value sizes; the
// glue in op_host/ launches it. Each of 4 cores scales its row of x into y.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void row_scale(GM_ADDR x, GM_ADDR y, uint32_t cols, float scale)
{
    const uint32_t row = GetBlockIdx();
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + row * cols, cols);
    yGm.SetGlobalBuffer((__gm__ float*)y + row * cols, cols);
    for (uint32_t i = 0; i < cols; ++i) {
        yGm.SetValue(i, scale * xGm.GetValue(i));
    }
}
