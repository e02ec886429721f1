// Tiling of SoftmaxCustom: rows of big and small cores, row length and its UB-aligned length.
#ifndef SOFTMAX_CUSTOM_TILING_H
#define SOFTMAX_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SoftmaxCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);         // product of all but the last dimension
TILING_DATA_FIELD_DEF(uint32_t, cols);         // last dimension: softmax runs along it
TILING_DATA_FIELD_DEF(uint32_t, colsAligned);  // cols rounded up to whole 32-byte blocks of float
TILING_DATA_FIELD_DEF(uint32_t, formerNum);    // big cores: one row more than small ones
TILING_DATA_FIELD_DEF(uint32_t, formerRows);
TILING_DATA_FIELD_DEF(uint32_t, tailRows);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SoftmaxCustom, SoftmaxCustomTilingData)
}  // namespace optiling
#endif
