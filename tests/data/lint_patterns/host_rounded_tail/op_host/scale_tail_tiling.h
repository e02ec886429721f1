#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleTailTilingData)
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(uint32_t, tileNum);
TILING_DATA_FIELD_DEF(uint32_t, lastLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ScaleTail, ScaleTailTilingData)
}
