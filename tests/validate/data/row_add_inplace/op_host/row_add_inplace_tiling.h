// Tiling of RowAddInplace: the row length.
#ifndef ROW_ADD_INPLACE_TILING_H
#define ROW_ADD_INPLACE_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RowAddInplaceTilingData)
TILING_DATA_FIELD_DEF(uint32_t, cols);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(RowAddInplace, RowAddInplaceTilingData)
}  // namespace optiling
#endif
