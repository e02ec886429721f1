// The OpDef, with the project's own OP_LOGE / OP_CHECK_IF (host_vendor_log.h) next to the
// framework's OPS_CHECK_NULL_WITH_CONTEXT, and the OpDef header itself included by its own name
// in angle brackets, as DrivingSDK's bev_pool does.
#include <graph/types.h>
#include <register/op_def.h>

#include "host_vendor_log.h"

namespace optiling {
ge::graphStatus HostVendorTiling(gert::TilingContext* context);
}

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context) {
    OPS_CHECK_NULL_WITH_CONTEXT(context, context->GetInputShape(0));
    OP_CHECK_IF(context->GetOutputShape(0) == nullptr, OP_LOGE("HostVendor", "no output shape"),
                return ge::GRAPH_FAILED);
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class HostVendor : public OpDef {
  public:
    explicit HostVendor(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::HostVendorTiling);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(HostVendor);
}  // namespace ops
