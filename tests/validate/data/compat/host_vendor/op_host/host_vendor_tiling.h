// Tiling header as multi-op repositories write it: included through the op's folder name.
#ifndef HOST_VENDOR_TILING_H
#define HOST_VENDOR_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(HostVendorTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
TILING_DATA_FIELD_DEF(uint32_t, perCore);
TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(HostVendor, HostVendorTilingData)
}  // namespace optiling
#endif
