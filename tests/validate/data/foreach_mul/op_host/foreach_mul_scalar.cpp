// Host side of ForeachMulScalar: ys[k] = xs[k] * scalar for a DYNAMIC input list xs of equally
// shaped tensors, a DYNAMIC output list ys and the float attribute scalar.
#include "register/op_def_registry.h"
#include "foreach_mul_scalar_tiling.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const float* scalar = context->GetAttrs()->GetFloat(0);
    uint32_t num = 0;
    int64_t length = -1;
    while (const gert::StorageShape* s = context->GetDynamicInputShape(0, num)) {
        int64_t n = s->GetStorageShape().GetShapeSize();
        if (length >= 0 && n != length) {
            return ge::GRAPH_FAILED;
        }
        length = n;
        ++num;
    }
    if (scalar == nullptr || num == 0 || length <= 0) {
        return ge::GRAPH_FAILED;
    }
    ForeachMulScalarTilingData tiling;
    tiling.set_num(num);
    tiling.set_length(static_cast<uint32_t>(length));
    tiling.set_scalar(*scalar);
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class ForeachMulScalar : public OpDef {
public:
    explicit ForeachMulScalar(const char* name) : OpDef(name)
    {
        this->Input("xs").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("ys").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("scalar").AttrType(REQUIRED).Float();
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ForeachMulScalar);
}  // namespace ops
