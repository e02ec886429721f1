// Host side of NormLayernormFp32Custom: tiling from the runtime shapes, shape inference, OpDef.
#include "norm_layernorm_fp32_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// UB bytes per element of tile length: 44 (double-buffered queues of every tensor
// that varies along the vector axis + 2 float work tiles).
constexpr uint64_t BYTES_PER_ELEM = 44;
constexpr uint64_t UB_RESERVE = 24576;
constexpr uint64_t TILE_ALIGN = 64;  // whole 256-byte float repeats (Compare needs them)

static uint64_t Dim(gert::TilingContext* context, uint32_t input, uint32_t dim)
{
    auto shape = context->GetInputShape(input)->GetStorageShape();
    return static_cast<uint64_t>(shape.GetDim(dim));
}

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    NormLayernormFp32CustomTilingData tiling;
    // Domain sizes (see plan.txt):
    uint64_t d0 = Dim(context, 0, 0);  // a0 = x.shape[0]
    uint64_t d1 = Dim(context, 0, 1);  // a1 = x.shape[1]
    auto ascendc = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    ascendc.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint64_t coreNum = ascendc.GetCoreNumAiv();
    if (coreNum == 0) {
        coreNum = ascendc.GetCoreNum();
    }
    // Tile length: as many elements as fit the UB budget, never more than the
    // vector axis needs, in whole float repeats.
    uint64_t floor = BYTES_PER_ELEM * TILE_ALIGN;
    uint64_t budget = ubSize > UB_RESERVE + floor ? ubSize - UB_RESERVE : floor;
    uint64_t tileLen = budget / BYTES_PER_ELEM / TILE_ALIGN * TILE_ALIGN;
    uint64_t need = (d1 + TILE_ALIGN - 1) / TILE_ALIGN * TILE_ALIGN;
    if (need < tileLen) {
        tileLen = need;
    }
    if (tileLen < TILE_ALIGN) {
        tileLen = TILE_ALIGN;
    }
    // Work units: rows (kept indices); each row is streamed in tiles.
    uint64_t units = d0;
    uint64_t blockDim = units < coreNum ? units : coreNum;
    if (blockDim == 0) {
        blockDim = 1;
    }
    // Big/small core split: the first (units % blockDim) cores take one unit more.
    context->SetBlockDim(static_cast<uint32_t>(blockDim));
    tiling.set_dim0(static_cast<uint32_t>(d0));
    tiling.set_dim1(static_cast<uint32_t>(d1));
    tiling.set_tileLen(static_cast<uint32_t>(tileLen));
    tiling.set_unitsPerCore(static_cast<uint32_t>(units / blockDim));
    tiling.set_bigCores(static_cast<uint32_t>(units % blockDim));
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
class NormLayernormFp32Custom : public OpDef {
public:
    explicit NormLayernormFp32Custom(const char* name) : OpDef(name)
    {
        this->Input("in0").ParamType(REQUIRED)  // x (input)
            .DataType({ge::DT_FLOAT})
            .Format({ge::FORMAT_ND});
        this->Input("in1").ParamType(REQUIRED)  // p_ln_weight (parameter)
            .DataType({ge::DT_FLOAT})
            .Format({ge::FORMAT_ND});
        this->Input("in2").ParamType(REQUIRED)  // p_ln_bias (parameter)
            .DataType({ge::DT_FLOAT})
            .Format({ge::FORMAT_ND});
        this->Output("out0").ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT})
            .Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(NormLayernormFp32Custom);
}  // namespace ops
