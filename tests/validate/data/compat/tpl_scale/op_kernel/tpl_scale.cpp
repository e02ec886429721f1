// y = x * FACTOR, negated when NEG: a tiling-template entry, one instantiation per combination.
#include "kernel_operator.h"
#include "tpl_scale_key.h"
#include "tpl_scale_tiling.h"

template <int D_T, int FACTOR, int NEG>
__global__ __aicore__ void tpl_scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    REGISTER_TILING_DEFAULT(TplScaleTilingData);
    REGISTER_TILING_FOR_TILINGKEY("D_T == TPL_FP32", TplScaleTilingData);
    GET_TILING_DATA(t, tiling);
    AscendC::GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, t.total);
    yg.SetGlobalBuffer((__gm__ float*)y, t.total);
    const float scale = static_cast<float>(FACTOR) * (NEG ? -1.0f : 1.0f);
    for (uint32_t i = 0; i < t.total; ++i) yg.SetValue(i, xg.GetValue(i) * scale);
}
