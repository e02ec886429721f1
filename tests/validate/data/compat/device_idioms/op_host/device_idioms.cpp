#include "device_idioms_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    DeviceIdiomsTilingData t;
    uint32_t n = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    t.set_total(n);
    t.set_factor(2.0f);
    context->SetBlockDim(2);
    // Key 2 for sizes that split into 64-element halves, key 1 otherwise.
    context->SetTilingKey(n % 128 == 0 ? 2 : 1);
    t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(t.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class DeviceIdioms : public OpDef {
  public:
    explicit DeviceIdioms(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(DeviceIdioms);
}  // namespace ops
