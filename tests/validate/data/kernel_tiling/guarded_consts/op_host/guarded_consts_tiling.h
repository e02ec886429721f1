// Tiling of GuardedConsts: an array sized by a host-only constant and a nested struct.
#ifndef GUARDED_CONSTS_TILING_H
#define GUARDED_CONSTS_TILING_H
#include "register/tilingdata_base.h"
#include "consts.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RowShape)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(GuardedConstsTilingData)
TILING_DATA_FIELD_DEF(uint16_t, flags);
TILING_DATA_FIELD_DEF_STRUCT(RowShape, shape);
TILING_DATA_FIELD_DEF_ARR(float, MAX_ROWS, rowScale);
TILING_DATA_FIELD_DEF_ARR(uint8_t, HOST_ROW_ALIGN / 2 + 1, pad);
TILING_DATA_FIELD_DEF(uint64_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(GuardedConsts, GuardedConstsTilingData)
}  // namespace optiling
#endif
