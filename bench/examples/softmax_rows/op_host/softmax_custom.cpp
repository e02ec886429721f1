// Host side of SoftmaxCustom (softmax over the last dimension): tiling, shape inference, OpDef.
#include "softmax_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t ALIGN_ELEMENTS = 16;  // 32 bytes of half; a multiple of 32 bytes of float too
constexpr uint32_t BUFFER_NUM = 2;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    SoftmaxCustomTilingData tiling;
    auto ascendc = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const gert::Shape& shape = context->GetInputShape(0)->GetStorageShape();
    size_t dims = shape.GetDimNum();
    if (dims == 0) {
        return ge::GRAPH_FAILED;
    }
    uint32_t cols = shape.GetDim(dims - 1);
    uint32_t rows = cols == 0 ? 0 : shape.GetShapeSize() / cols;
    if (rows == 0) {
        return ge::GRAPH_FAILED;
    }
    uint32_t typeSize = ge::GetSizeByDataType(context->GetInputDesc(0)->GetDataType());
    uint32_t colsAligned = (cols + ALIGN_ELEMENTS - 1) / ALIGN_ELEMENTS * ALIGN_ELEMENTS;
    // UB: in and out queues double-buffered in T, plus three float rows (row, reduce scratch, result).
    uint64_t ubSize = 0;
    ascendc.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint64_t need = 2ULL * BUFFER_NUM * colsAligned * typeSize + 3ULL * colsAligned * sizeof(float);
    if (need > ubSize) {
        return ge::GRAPH_FAILED;  // a row does not fit in UB; this example keeps whole rows
    }
    uint32_t coreNum = ascendc.GetCoreNumAiv();
    if (coreNum > rows) {
        coreNum = rows;
    }
    tiling.set_rows(rows);
    tiling.set_cols(cols);
    tiling.set_colsAligned(colsAligned);
    tiling.set_formerNum(rows % coreNum);
    tiling.set_formerRows(rows / coreNum + 1);
    tiling.set_tailRows(rows / coreNum);
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
class SoftmaxCustom : public OpDef {
public:
    explicit SoftmaxCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(SoftmaxCustom);
}  // namespace ops
