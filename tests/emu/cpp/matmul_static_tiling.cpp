// Matmul with a constant tiling (GetMMConfig + GetMatmulApiTiling -> MatmulApiStaticTiling as
// the Matmul's MM_CFG): `matmul_static_tiling CASE report [a b bias c]`, C = A x B + bias with
// M=128, K=64, N=96 in half (float result). The ok_ cases compute it; the other cases are the
// documented misuses, their offending call marked `// BUG: <case>`.
#include <functional>
#include <map>

#include "lib/matmul_intf.h"
#include "test_io.h"

using namespace AscendC;
using namespace matmul;

constexpr int M = 128, K = 64, N = 96;
static GM_ADDR g_a, g_b, g_bias, g_c;

using AT = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using CT = MatmulType<TPosition::GM, CubeFormat::ND, float>;

// Two cores split M (the Ascend/samples 14_matmul_api_constant layout): singleCore 64 x 96 x 64.
constexpr MatmulShapeParams kSplitShape = {M / 2, N, K, 32, 32, 32};
constexpr MatmulConfig kSplitCfg = GetMMConfig<MatmulConfigMode::CONFIG_NORM>(kSplitShape);
constexpr MatmulApiStaticTiling kSplit = GetMatmulApiTiling<AT, AT, CT, CT>(kSplitCfg);
// One core, the whole product, no run-time tiling.
constexpr MatmulConfig kWholeCfg =
    GetMMConfig<MatmulConfigMode::CONFIG_MDL>(MatmulFuncParams{false, true}, MatmulShapeParams{M, N, K, 64, 32, 32});
constexpr MatmulApiStaticTiling kWhole = GetMatmulApiTiling<AT, AT, CT, CT>(kWholeCfg);
// Partial constants: only the base block.
constexpr MatmulApiStaticTiling kBaseOnly =
    GetMatmulApiTiling<AT, AT, CT, CT>(GetMMConfig<MatmulConfigMode::CONFIG_NORM>(MatmulShapeParams{0, 0, 0, 32, 32, 32}));

// GetMMConfig: the mode's template, then each sub-config in the order given (documented field order).
static_assert(kSplitCfg.doNorm && kSplitCfg.singleCoreM == 64 && kSplitCfg.basicK == 32);
static_assert(!kWholeCfg.doNorm && kWholeCfg.doMultiDataLoad && kWholeCfg.enVecND2NZ && !kWholeCfg.intrinsicsCheck);
static_assert(GetMMConfig<MatmulConfigMode::CONFIG_NORM>(MatmulBatchParams{true, BatchMode::BATCH_LARGE_THAN_L1, false})
                  .isBiasBatch == false);
static_assert(GetMMConfig<MatmulConfigMode::CONFIG_IBSHARE>().doIBShareNorm);
static_assert(GetMMConfig<MatmulConfigMode::CONFIG_SPECIALMDL>(MatmulQuantParams{true, false}).isPerTensor);
// GetMatmulApiTiling: the constants, the config they came from, and 0 where a shape is left to run time.
static_assert(kSplit.singleCoreM == 64 && kSplit.baseN == 32 && kSplit.cfg.doNorm && kSplit.depthA1 > 0);
static_assert(kWhole.M == M && kWhole.N == N && kWhole.Ka == K && kWhole.Kb == K);
static_assert(kBaseOnly.singleCoreM == 0 && kBaseOnly.baseM == 32);

template <const auto& CFG>
using MM = Matmul<AT, AT, CT, CT, CFG>;

static TCubeTiling host_tiling() {
    TCubeTiling t{};
    t.usedCoreNum = 2;
    t.M = M, t.N = N, t.Ka = K, t.Kb = K;
    t.singleCoreM = M / 2, t.singleCoreN = N, t.singleCoreK = K;
    t.baseM = 32, t.baseN = 32, t.baseK = 32;
    t.depthA1 = t.depthB1 = 2, t.stepM = t.stepN = t.stepKa = t.stepKb = 1, t.isBias = 1;
    return t;
}

struct Operands {
    GlobalTensor<half> a, b;
    GlobalTensor<float> bias, c;
    Operands() {
        a.SetGlobalBuffer((__gm__ half*)g_a, M * K);
        b.SetGlobalBuffer((__gm__ half*)g_b, K * N);
        bias.SetGlobalBuffer((__gm__ float*)g_bias, N);
        c.SetGlobalBuffer((__gm__ float*)g_c, M * N);
    }
};

static std::map<std::string, std::pair<uint32_t, std::function<void()>>> cases() {
    std::map<std::string, std::pair<uint32_t, std::function<void()>>> c;
    // Mix 1:2 on one cluster: each AIV computes its half of M with the constant shapes.
    c["ok_split_with_tiling"] = {1, [] {
        TCubeTiling t = host_tiling();
        TPipe pipe;
        MM<kSplit> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        Operands g;
        int row0 = GetBlockIdx() * t.singleCoreM;
        mm.SetTensorA(g.a[row0 * K]);
        mm.SetTensorB(g.b);
        mm.SetBias(g.bias);
        mm.IterateAll(g.c[row0 * N]);
        mm.End();
    }};
    // Full constants: nullptr replaces the tiling; the original shape is the single-core shape.
    c["ok_whole_without_tiling"] = {1, [] {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);
        TPipe pipe;
        MM<kWhole> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, nullptr);
        Operands g;
        mm.SetTensorA(g.a);
        mm.SetTensorB(g.b);
        mm.SetBias(g.bias);
        while (mm.Iterate()) mm.GetTensorC(g.c);
        mm.End();
    }};
    // Partial constants take the single-core shape from the run-time tiling.
    c["ok_base_only_with_tiling"] = {1, [] {
        TCubeTiling t = host_tiling();
        TPipe pipe;
        MM<kBaseOnly> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        Operands g;
        int row0 = GetBlockIdx() * t.singleCoreM;
        mm.SetTensorA(g.a[row0 * K]);
        mm.SetTensorB(g.b);
        mm.SetBias(g.bias);
        mm.IterateAll(g.c[row0 * N]);
        mm.End();
    }};
    c["tiling_disagrees"] = {1, [] {
        TCubeTiling t = host_tiling();
        t.baseK = 64;  // the host computed another base block than the kernel's constants
        TPipe pipe;
        MM<kSplit> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);  // BUG: tiling_disagrees
    }};
    c["partial_without_tiling"] = {1, [] {
        TPipe pipe;
        MM<kBaseOnly> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, nullptr);  // BUG: partial_without_tiling
    }};
    return c;
}

int main(int argc, char** argv) {
    auto all = cases();
    const auto& chosen =
        tio::select_case(all, argc, argv, {3, 7}, "matmul_static_tiling CASE report [a.bin b.bin bias.bin c.bin]");
    const bool io = argc == 7;
    tio::Gm a(io ? tio::read_bytes(argv[3]) : std::vector<uint8_t>(M * K * 2, 0), "a");
    tio::Gm b(io ? tio::read_bytes(argv[4]) : std::vector<uint8_t>(K * N * 2, 0), "b");
    tio::Gm bias(io ? tio::read_bytes(argv[5]) : std::vector<uint8_t>(N * 4, 0), "bias");
    tio::Gm c(size_t(M) * N * 4, "c");
    g_a = a.addr(), g_b = b.addr(), g_bias = bias.addr(), g_c = c.addr();
    tio::run(chosen.first, argv[2], chosen.second);
    if (io) tio::write_bytes(argv[6], c.bytes.data(), c.bytes.size());
    return 0;
}
