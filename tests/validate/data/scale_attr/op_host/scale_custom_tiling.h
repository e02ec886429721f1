// Tiling of ScaleCustom: the element count and the attribute scale.
#ifndef SCALE_CUSTOM_TILING_H
#define SCALE_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, length);
TILING_DATA_FIELD_DEF(float, scale);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ScaleCustom, ScaleCustomTilingData)
}  // namespace optiling
#endif
