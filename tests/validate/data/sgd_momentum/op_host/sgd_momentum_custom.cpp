// Host side of SgdMomentumCustom, an in-place optimizer step with two results:
//   buf = momentum * buf + grad; param = param - lr * buf
// The outputs carry the names of the inputs they update (param, buf), the GE convention for
// a tensor updated in place.
#include "register/op_def_registry.h"
#include "sgd_momentum_custom_tiling.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const float* lr = context->GetAttrs()->GetFloat(0);
    const float* momentum = context->GetAttrs()->GetFloat(1);
    uint32_t length = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    if (lr == nullptr || momentum == nullptr || length == 0) {
        return ge::GRAPH_FAILED;
    }
    SgdMomentumCustomTilingData tiling;
    tiling.set_length(length);
    tiling.set_lr(*lr);
    tiling.set_momentum(*momentum);
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class SgdMomentumCustom : public OpDef {
public:
    explicit SgdMomentumCustom(const char* name) : OpDef(name)
    {
        this->Input("param").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("grad").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("buf").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("param").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("buf").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("lr").AttrType(REQUIRED).Float();
        this->Attr("momentum").AttrType(REQUIRED).Float();
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(SgdMomentumCustom);
}  // namespace ops
