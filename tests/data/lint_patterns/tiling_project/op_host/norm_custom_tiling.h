#ifndef NORM_CUSTOM_TILING_H
#define NORM_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(NormCustomTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, rowNum);
  TILING_DATA_FIELD_DEF(uint32_t, colNum);
  TILING_DATA_FIELD_DEF(unsigned int, rowsPerCore);
  TILING_DATA_FIELD_DEF(float, epsilon);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(NormCustom, NormCustomTilingData)

BEGIN_TILING_DATA_DEF(NormCustomWideTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, rowNum);
  TILING_DATA_FIELD_DEF(uint32_t, colNum);
  TILING_DATA_FIELD_DEF(uint32_t, splitCol);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(NormCustom_2, NormCustomWideTilingData)
}
#endif
