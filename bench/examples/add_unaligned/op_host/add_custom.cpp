// Host side of AddCustom (z = x + y): tiling, shape inference and the operator definition.
#include "add_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BLOCK_BYTES = 32;
// 4096 elements per buffer: fp32 uses 3 queues x 2 x 16 KB = 96 KB of UB; bf16 adds 48 KB of
// float scratch for its compute in float.
constexpr uint32_t TILE_ELEMENTS = 4096;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    AddCustomTilingData tiling;
    auto ascendc = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t totalLength = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t typeSize = ge::GetSizeByDataType(context->GetInputDesc(0)->GetDataType());
    if (typeSize == 0 || totalLength == 0) {
        return ge::GRAPH_FAILED;
    }
    uint32_t alignNum = BLOCK_BYTES / typeSize;
    uint32_t blocks = (totalLength + alignNum - 1) / alignNum;
    uint32_t coreNum = ascendc.GetCoreNumAiv();
    if (coreNum > blocks) {
        coreNum = blocks;
    }
    // Big/small core split in whole 32-byte blocks; the last core ends exactly at totalLength.
    tiling.set_totalLength(totalLength);
    tiling.set_formerNum(blocks % coreNum);
    tiling.set_formerLength((blocks / coreNum + 1) * alignNum);
    tiling.set_tailLength((blocks / coreNum) * alignNum);
    tiling.set_tileLength(TILE_ELEMENTS);
    context->SetBlockDim(coreNum);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class AddCustom : public OpDef {
public:
    explicit AddCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(AddCustom);
}  // namespace ops
