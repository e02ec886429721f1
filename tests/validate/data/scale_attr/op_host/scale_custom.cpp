// Host side of ScaleCustom (y = x * scale): the float attribute scale, which has no default,
// reaches the kernel through GetAttrs()->GetFloat(0) and the tiling data.
#include "register/op_def_registry.h"
#include "scale_custom_tiling.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const float* scale = context->GetAttrs()->GetFloat(0);
    uint32_t length = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    if (scale == nullptr || length == 0) {
        return ge::GRAPH_FAILED;
    }
    ScaleCustomTilingData tiling;
    tiling.set_length(length);
    tiling.set_scale(*scale);
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class ScaleCustom : public OpDef {
public:
    explicit ScaleCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("scale").AttrType(REQUIRED).Float();
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ScaleCustom);
}  // namespace ops
