#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(PartialTwinTilingData)
TILING_DATA_FIELD_DEF(uint32_t, n);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(PartialTwin, PartialTwinTilingData)
}  // namespace optiling
