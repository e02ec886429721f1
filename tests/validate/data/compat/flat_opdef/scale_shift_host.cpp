// Host side of ScaleShift (y = 2 x + 1) in a flat project: OpDef and TilingFunc beside the
// kernel file, no op_host/ or op_kernel/ folder. Each of the 4 blocks gets blockLength
// elements in tiles of tileLength.
#include "register/op_def_registry.h"
#include "scale_shift_tiling.h"

namespace optiling {
constexpr uint32_t BLOCKS = 4;
constexpr uint32_t TILE = 256;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    uint32_t total = static_cast<uint32_t>(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    if (total % (BLOCKS * TILE) != 0) {
        return ge::GRAPH_FAILED;
    }
    ScaleShiftTilingData tiling;
    tiling.set_blockLength(total / BLOCKS);
    tiling.set_tileLength(TILE);
    context->SetBlockDim(BLOCKS);
    auto* raw = context->GetRawTilingData();
    tiling.SaveToBuffer(raw->GetData(), raw->GetCapacity());
    raw->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class ScaleShift : public OpDef {
public:
    explicit ScaleShift(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ScaleShift);
}  // namespace ops
