// Tiling of NormLayernormFp32Custom: runtime domain sizes, UB tile length, core split.
#ifndef NORM_LAYERNORM_FP32_CUSTOM_TILING_H
#define NORM_LAYERNORM_FP32_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(NormLayernormFp32CustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, dim0);  // domain axis a0 (kept)
TILING_DATA_FIELD_DEF(uint32_t, dim1);  // domain axis a1 (reduced)
TILING_DATA_FIELD_DEF(uint32_t, tileLen);  // elements per UB tile of the vector axis (multiple of 64)
TILING_DATA_FIELD_DEF(uint32_t, unitsPerCore);  // work units of a small core
TILING_DATA_FIELD_DEF(uint32_t, bigCores);  // cores that take one unit more
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(NormLayernormFp32Custom, NormLayernormFp32CustomTilingData)
}  // namespace optiling
#endif
