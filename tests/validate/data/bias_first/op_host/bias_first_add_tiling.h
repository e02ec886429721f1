// Tiling of BiasFirstAdd: the element count and whether the optional bias is present.
#ifndef BIAS_FIRST_ADD_TILING_H
#define BIAS_FIRST_ADD_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(BiasFirstAddTilingData)
TILING_DATA_FIELD_DEF(uint32_t, length);
TILING_DATA_FIELD_DEF(uint32_t, hasBias);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(BiasFirstAdd, BiasFirstAddTilingData)
}  // namespace optiling
#endif
