// y[c] = sum over rows of x[r, c], one row per block: every block adds its row into y with
// SetAtomicAdd, so y must hold zeros before the launch. The kernel leaves that to its caller,
// as DrivingSDK's grad kernels do (the framework creates the output with at::zeros).
#include "atomic_rowsum_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    AtomicRowsumTilingData t;
    const gert::Shape& x = context->GetInputShape(0)->GetStorageShape();
    t.set_rows(x.GetDim(0));
    t.set_cols(x.GetDim(1));
    context->SetBlockDim(x.GetDim(0));
    t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(t.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class AtomicRowsum : public OpDef {
  public:
    explicit AtomicRowsum(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(AtomicRowsum);
}  // namespace ops
