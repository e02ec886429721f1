// Includes the struct from op_kernel/ by bare name and fills it through GetTilingData<T>().
#include "shared_tiling_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    SharedTilingData* t = context->GetTilingData<SharedTilingData>();
    t->total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    t->offset = 5;
    context->SetBlockDim(1);
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class SharedTiling : public OpDef {
  public:
    explicit SharedTiling(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(SharedTiling);
}  // namespace ops
