// Host code of an in-place op (Output "x" is Input "x") with the callbacks older CANN releases
// documented: InferShapeRange next to InferShape, and a check-support function returning int32_t.
#include "inplace_min_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    InplaceMinTilingData t;
    uint32_t n = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    t.set_total(n);
    t.set_tile(64);
    context->SetBlockDim(1);
    t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(t.GetDataSize());
    return ge::GRAPH_SUCCESS;
}

static int32_t CheckSupported(const ge::Operator&, ge::AscendString& result) {
    result = ge::AscendString("{\"ret_code\": \"1\", \"reason\": \"ok\"}");
    return 1;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context) {
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}

static graphStatus InferShapeRange(gert::InferShapeRangeContext* context) {
    *context->GetOutputShapeRange(0) = *context->GetInputShapeRange(0);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class InplaceMin : public OpDef {
  public:
    explicit InplaceMin(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferShapeRange(ge::InferShapeRange);
        this->AICore().SetTiling(optiling::TilingFunc).SetCheckSupport(optiling::CheckSupported);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(InplaceMin);
}  // namespace ops
