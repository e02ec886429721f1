// Host side of RowAddInplace: var[0, :] += delta, in place. The output var carries the input's
// name (the GE convention for a tensor updated in place); the kernel writes row 0 only.
#include "register/op_def_registry.h"
#include "row_add_inplace_tiling.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const gert::Shape& var = context->GetInputShape(0)->GetStorageShape();
    const gert::Shape& delta = context->GetInputShape(1)->GetStorageShape();
    if (var.GetDimNum() != 2 || delta.GetShapeSize() != var.GetDim(1)) {
        return ge::GRAPH_FAILED;
    }
    RowAddInplaceTilingData tiling;
    tiling.set_cols(static_cast<uint32_t>(var.GetDim(1)));
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class RowAddInplace : public OpDef {
public:
    explicit RowAddInplace(const char* name) : OpDef(name)
    {
        this->Input("var").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("delta").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("var").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(RowAddInplace);
}  // namespace ops
