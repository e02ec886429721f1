// Host side of BiasFirstAdd: y = x + bias, the OPTIONAL bias declared before the REQUIRED x.
// With bias absent, x keeps its OpDef (IR) index 1 and its instance index 1 (the absent bias
// holds instance 0, as on the single-operator path): the host reads it both ways, through
// GetRequiredInputShape / GetRequiredInputDataType and GetInputShape(1), and gets nullptr for
// GetInputShape(0) when bias is absent.
#include "register/op_def_registry.h"
#include "bias_first_add_tiling.h"

namespace optiling {
constexpr size_t BIAS_IR = 0;
constexpr size_t X_IR = 1;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const gert::StorageShape* x = context->GetRequiredInputShape(X_IR);
    const gert::StorageShape* bias = context->GetOptionalInputShape(BIAS_IR);
    if (x == nullptr || context->GetRequiredInputTensor(X_IR) == nullptr || context->GetInputShape(X_IR) != x) {
        return ge::GRAPH_FAILED;
    }
    if ((context->GetInputShape(BIAS_IR) == nullptr) != (bias == nullptr)) {
        return ge::GRAPH_FAILED;
    }
    uint32_t length = x->GetStorageShape().GetShapeSize();
    if (length == 0 || (bias != nullptr && bias->GetStorageShape().GetShapeSize() != length)) {
        return ge::GRAPH_FAILED;
    }
    BiasFirstAddTilingData tiling;
    tiling.set_length(length);
    tiling.set_hasBias(bias != nullptr ? 1 : 0);
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context)
{
    const gert::Shape* x = context->GetRequiredInputShape(optiling::X_IR);
    if (x == nullptr) {
        return GRAPH_FAILED;
    }
    *context->GetOutputShape(0) = *x;
    return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    return context->SetOutputDataType(0, context->GetRequiredInputDataType(optiling::X_IR));
}
}  // namespace ge

namespace ops {
class BiasFirstAdd : public OpDef {
public:
    explicit BiasFirstAdd(const char* name) : OpDef(name)
    {
        this->Input("bias").ParamType(OPTIONAL).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(BiasFirstAdd);
}  // namespace ops
