// Picks the template arguments from the attributes and encodes them as the tiling key.
#include "register/op_def_registry.h"
#include "tpl_scale_key.h"
#include "tpl_scale_tiling.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    TplScaleTilingData* t = context->GetTilingData<TplScaleTilingData>();
    t->total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    const int64_t factor = *context->GetAttrs()->GetAttrPointer<int64_t>(0);
    const bool negate = *context->GetAttrs()->GetAttrPointer<bool>(1);
    context->SetTilingKey(GET_TPL_TILING_KEY(TPL_FP32, factor, negate ? 1 : 0));
    context->SetBlockDim(1);
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class TplScale : public OpDef {
  public:
    explicit TplScale(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("factor").Int();
        this->Attr("negate").Bool();
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(TplScale);
}  // namespace ops
