// Tiling of SgdMomentumCustom: the element count and the attributes lr and momentum.
#ifndef SGD_MOMENTUM_CUSTOM_TILING_H
#define SGD_MOMENTUM_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SgdMomentumCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, length);
TILING_DATA_FIELD_DEF(float, lr);
TILING_DATA_FIELD_DEF(float, momentum);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(SgdMomentumCustom, SgdMomentumCustomTilingData)
}  // namespace optiling
#endif
