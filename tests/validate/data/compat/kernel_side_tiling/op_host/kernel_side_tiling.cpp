#include "kernel_side_tiling_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    TilingData t;
    t.set_total(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    t.set_scale(3.0f);
    context->SetBlockDim(1);
    t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(t.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class KernelSideTiling : public OpDef {
  public:
    explicit KernelSideTiling(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(KernelSideTiling);
}  // namespace ops
