#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(DeviceIdiomsTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
TILING_DATA_FIELD_DEF(float, factor);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(DeviceIdioms, DeviceIdiomsTilingData)
// Tiling key 2 registered with its own op-type alias, as ops with several keys do.
REGISTER_TILING_DATA_CLASS(DeviceIdioms_2, DeviceIdiomsTilingData)
}  // namespace optiling
