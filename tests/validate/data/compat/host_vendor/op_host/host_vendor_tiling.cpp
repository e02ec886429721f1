// TilingFunc using the std library, logging macros and framework headers without including the
// standard headers themselves: the vendor's host headers bring them.
#include "acl/acl.h"
#include "runtime_attrs.h"
#include <exe_graph/runtime/runtime_attrs.h>
#include "aclnn/aclnn_base.h"
#include "error/ops_error.h"
#include "graph/ge_error_codes.h"
#include "graph/utils/type_utils.h"
#include "host_vendor/op_host/host_vendor_tiling.h"
#include "log/ops_log.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
ge::graphStatus HostVendorTiling(gert::TilingContext* context) {
    OPS_CHECK_NULL_WITH_CONTEXT(context, context->GetInputShape(0));
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    std::vector<uint32_t> candidates = {8, 4, 2, 1};
    uint32_t cores = 1;
    for (uint32_t c : candidates) {
        if (total % (c * 8) == 0 && c <= platform.GetCoreNumAiv()) {
            cores = c;
            break;
        }
    }
    std::string dtype = ge::TypeUtils::DataTypeToSerialString(context->GetInputDesc(0)->GetDataType());
    OP_LOGD(context, "dtype %s, %u cores", dtype.c_str(), cores);
    OP_TILING_CHECK(total == 0, OP_LOGW(context, "empty input"), return ge::GRAPH_FAILED);
    aclDataType acl = ACL_FLOAT;
    if (acl != ACL_FLOAT) std::cout << "unexpected acl type" << std::endl;
    HostVendorTilingData tiling;
    tiling.set_total(total);
    tiling.set_perCore(total / cores);
    float alpha = 0.0f;
    const float two = 2.0f;
    memcpy(&alpha, &two, sizeof(float));
    tiling.set_alpha(alpha);
    context->SetBlockDim(cores);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
