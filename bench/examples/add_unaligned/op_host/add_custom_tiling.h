// Tiling of AddCustom: element ranges of big and small cores, and the UB tile length.
#ifndef ADD_CUSTOM_TILING_H
#define ADD_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AddCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);   // elements in x (= y = z)
TILING_DATA_FIELD_DEF(uint32_t, formerNum);     // big cores: one 32-byte block more than small ones
TILING_DATA_FIELD_DEF(uint32_t, formerLength);  // elements per big core (block aligned)
TILING_DATA_FIELD_DEF(uint32_t, tailLength);    // elements per small core (block aligned)
TILING_DATA_FIELD_DEF(uint32_t, tileLength);    // elements per UB tile (block aligned)
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)
}  // namespace optiling
#endif
