// Tiling of ScaleShift, shared by the host file and the kernel build of this flat project.
#ifndef SCALE_SHIFT_TILING_H
#define SCALE_SHIFT_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleShiftTilingData)
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ScaleShift, ScaleShiftTilingData)
}  // namespace optiling
#endif
