// arg[c] = the last row r with x[r, c] == best[c], -1 where none. best (the column maxima an
// earlier op computed) and arg (-1 throughout) are outputs the caller fills before the launch;
// the kernel only reads best. One row per block.
#include "argmax_fill_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    ArgmaxFillTilingData t;
    const gert::Shape& x = context->GetInputShape(0)->GetStorageShape();
    t.set_cols(x.GetDim(1));
    context->SetBlockDim(x.GetDim(0));
    t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(t.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class ArgmaxFill : public OpDef {
  public:
    explicit ArgmaxFill(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("best").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("arg").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ArgmaxFill);
}  // namespace ops
