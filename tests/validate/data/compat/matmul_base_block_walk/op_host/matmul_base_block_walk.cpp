// One base block per core block: SetFixSplit and SetSingleShape give baseM x baseN = singleCoreM x
// singleCoreN = 32 x 64, so C (96 x 128) is 6 base blocks, which 4 vector cores walk in turn.
#include "../op_kernel/matmul_base_block_walk_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    constexpr int32_t kBaseM = 32, kBaseN = 64, kCubeCores = 2, kVectorCores = 2 * kCubeCores;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    auto a = context->GetInputShape(0)->GetStorageShape();
    auto b = context->GetInputShape(1)->GetStorageShape();
    int32_t m = a.GetDim(0), k = a.GetDim(1), n = b.GetDim(1);
    matmul_tiling::MultiCoreMatmulTiling mm(platform);
    mm.SetDim(kVectorCores);
    mm.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    mm.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    mm.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    mm.SetShape(m, n, k);
    mm.SetOrgShape(m, n, k);
    mm.SetBias(false);
    mm.SetBufferSpace(-1, -1, -1);
    mm.SetFixSplit(kBaseM, kBaseN, -1);
    mm.SetSingleShape(kBaseM, kBaseN, -1);
    MatmulBaseBlockWalkTilingData* t = context->GetTilingData<MatmulBaseBlockWalkTilingData>();
    if (mm.GetTiling(t->cube) == -1) return ge::GRAPH_FAILED;
    t->cores = kVectorCores;
    context->SetBlockDim(kCubeCores);
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = platform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class MatmulBaseBlockWalk : public OpDef {
  public:
    explicit MatmulBaseBlockWalk(const char* name) : OpDef(name) {
        this->Input("a").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("c").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(MatmulBaseBlockWalk);
}  // namespace ops
