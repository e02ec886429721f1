// Tiling of ForeachMulScalar: the list length, the elements of each tensor, the scalar.
#ifndef FOREACH_MUL_SCALAR_TILING_H
#define FOREACH_MUL_SCALAR_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ForeachMulScalarTilingData)
TILING_DATA_FIELD_DEF(uint32_t, num);
TILING_DATA_FIELD_DEF(uint32_t, length);
TILING_DATA_FIELD_DEF(float, scalar);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ForeachMulScalar, ForeachMulScalarTilingData)
}  // namespace optiling
#endif
