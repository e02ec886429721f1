// Host side of BiasAddCustom: y = x + bias, or y = x when the OPTIONAL input bias is absent
// (GetOptionalInputShape gives nullptr, the kernel gets a null pointer).
#include "register/op_def_registry.h"
#include "bias_add_custom_tiling.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    uint32_t length = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    const gert::StorageShape* bias = context->GetOptionalInputShape(1);
    if (length == 0 || (bias != nullptr && bias->GetStorageShape().GetShapeSize() != length)) {
        return ge::GRAPH_FAILED;
    }
    BiasAddCustomTilingData tiling;
    tiling.set_length(length);
    tiling.set_hasBias(bias != nullptr ? 1 : 0);
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class BiasAddCustom : public OpDef {
public:
    explicit BiasAddCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("bias").ParamType(OPTIONAL).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(BiasAddCustom);
}  // namespace ops
