// Fixes baseN at 32 and lets the library split M and N over 6 vector cores: the kernel copies
// whole baseM x baseN blocks out, so the split must hand each core whole base blocks and no tail.
#include "../op_kernel/matmul_blocks_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    auto a = context->GetInputShape(0)->GetStorageShape();
    auto b = context->GetInputShape(1)->GetStorageShape();
    int32_t m = a.GetDim(0), k = a.GetDim(1), n = b.GetDim(1);
    matmul_tiling::MultiCoreMatmulTiling mm(platform);
    mm.SetDim(6);
    mm.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    mm.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    mm.SetCType(matmul_tiling::TPosition::VECIN, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    mm.SetShape(m, n, k);
    mm.SetOrgShape(m, n, k);
    mm.SetFixSplit(-1, 32, -1);
    mm.SetBias(false);
    mm.SetBufferSpace(-1, -1, -1);
    MatmulBlocksTilingData* t = context->GetTilingData<MatmulBlocksTilingData>();
    if (mm.GetTiling(t->cube) == -1) return ge::GRAPH_FAILED;
    t->blocks = static_cast<uint32_t>(t->cube.usedCoreNum);
    context->SetBlockDim(3);
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = platform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class MatmulBlocks : public OpDef {
  public:
    explicit MatmulBlocks(const char* name) : OpDef(name) {
        this->Input("a").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("c").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(MatmulBlocks);
}  // namespace ops
