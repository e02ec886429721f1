#include "register/tilingdata_base.h"

// Fields and the end of the struct without a trailing ';', as some real projects write them.
namespace optiling {
BEGIN_TILING_DATA_DEF(InplaceMinTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total)
TILING_DATA_FIELD_DEF(uint32_t, tile)
END_TILING_DATA_DEF
REGISTER_TILING_DATA_CLASS(InplaceMin, InplaceMinTilingData)
}  // namespace optiling
