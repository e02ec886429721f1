// y = x * scale, reading its tiling through the kernel-side struct of op_kernel/, and asking GM
// reads to bypass L2 (a timing hint).
#include "kernel_operator.h"
#include "kernel_side_tiling_tiling.h"

extern "C" __global__ __aicore__ void kernel_side_tiling(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA_WITH_STRUCT(KernelSideTilingData, t, tiling);
    AscendC::GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, t.total);
    yg.SetGlobalBuffer((__gm__ float*)y, t.total);
    xg.SetL2CacheHint(AscendC::CacheMode::CACHE_MODE_DISABLE);
    for (uint32_t i = 0; i < t.total; ++i) yg.SetValue(i, xg.GetValue(i) * t.scale);
}
