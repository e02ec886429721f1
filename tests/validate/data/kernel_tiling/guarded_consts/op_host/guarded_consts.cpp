#include "guarded_consts_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    GuardedConstsTilingData t;
    const uint64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    t.set_total(total);
    t.shape.set_rows(MAX_ROWS);
    t.shape.set_cols(static_cast<uint32_t>(total / MAX_ROWS));
    const float scales[MAX_ROWS] = {1.0f, 2.0f, 3.0f, 4.0f};
    t.set_rowScale(scales);
    context->SetBlockDim(1);
    t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(t.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class GuardedConsts : public OpDef {
  public:
    explicit GuardedConsts(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(GuardedConsts);
}  // namespace ops
