// y = x + offset with the struct registered as the default tiling type (no tiling header of
// op_host/ exists for the kernel build to see).
#include "kernel_operator.h"
#include "shared_tiling_tiling.h"

extern "C" __global__ __aicore__ void shared_tiling(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    REGISTER_TILING_DEFAULT(SharedTilingData);
    GET_TILING_DATA(t, tiling);
    AscendC::GlobalTensor<int32_t> xg, yg;
    xg.SetGlobalBuffer((__gm__ int32_t*)x, t.total);
    yg.SetGlobalBuffer((__gm__ int32_t*)y, t.total);
    if (TILING_KEY_IS(0)) {
        for (uint32_t i = 0; i < t.total; ++i) yg.SetValue(i, xg.GetValue(i) + static_cast<int32_t>(t.offset));
    }
}
