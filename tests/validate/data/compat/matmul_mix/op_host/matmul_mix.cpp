// The Matmul API sample pattern on chips with separate cores: the tiling splits the work over 2
// vector cores (SetDim) while blockDim counts cube cores (1), and the kernel declares no type:
// the toolchain builds it as mix AIC:AIV 1:2, so two AIVs run it.
#include "matmul_mix_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    auto a = context->GetInputShape(0)->GetStorageShape();
    auto b = context->GetInputShape(1)->GetStorageShape();
    int32_t m = a.GetDim(0), k = a.GetDim(1), n = b.GetDim(1);
    matmul_tiling::MultiCoreMatmulTiling mm(platform);
    mm.SetDim(2);
    mm.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    mm.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    mm.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    mm.SetShape(m, n, k);
    mm.SetOrgShape(m, n, k);
    mm.SetSingleShape(m / 2, n, k);
    mm.SetBias(false);
    mm.SetBufferSpace(-1, -1, -1);
    MatmulMixTilingData t;
    if (mm.GetTiling(t.cube) == -1) return ge::GRAPH_FAILED;
    context->SetBlockDim(1);
    t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(t.GetDataSize());
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = platform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class MatmulMix : public OpDef {
  public:
    explicit MatmulMix(const char* name) : OpDef(name) {
        this->Input("a").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("c").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(MatmulMix);
}  // namespace ops
