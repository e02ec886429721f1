#include "norm_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
struct ScratchPlan {
    void set_rows(uint32_t r) { rows = r; }
    uint32_t rows;
};

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto shape = context->GetInputShape(0)->GetStorageShape();
    uint32_t rows = shape.GetDim(0);
    uint32_t cols = shape.GetDim(1);
    auto ascendc = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t cores = ascendc.GetCoreNumAiv();
    ScratchPlan plan;
    plan.set_rows(rows);
    if (cols > 4096) {
        NormCustomWideTilingData wide;
        wide.set_rowNum(rows);
        wide.set_colNum(cols);
        wide.set_splitCol(4096);
        context->SetTilingKey(2);
        wide.SaveToBuffer(context->GetRawTilingData()->GetData(),
                          context->GetRawTilingData()->GetCapacity());
        context->GetRawTilingData()->SetDataSize(wide.GetDataSize());
    } else {
        NormCustomTilingData tiling;
        tiling.set_rowNum(rows);
        tiling.set_colNum(cols);
        tiling.set_rowsPerCore((rows + cores - 1) / cores);
        tiling.set_epsilon(1e-5f);
        context->SetTilingKey(1);
        tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                            context->GetRawTilingData()->GetCapacity());
        context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    }
    context->SetBlockDim(cores);
    return ge::GRAPH_SUCCESS;
}
}

namespace ops {
class NormCustom : public OpDef {
public:
    explicit NormCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(NormCustom);
}
