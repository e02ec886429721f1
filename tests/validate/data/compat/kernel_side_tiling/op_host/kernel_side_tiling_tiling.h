// Host side of the tiling, under the same include guard as op_kernel/'s header of this name.
#ifndef KERNEL_SIDE_TILING_TILING_H
#define KERNEL_SIDE_TILING_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
TILING_DATA_FIELD_DEF(float, scale);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(KernelSideTiling, TilingData)
}  // namespace optiling
#endif
