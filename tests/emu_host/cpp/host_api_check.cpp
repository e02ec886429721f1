// Host API checks for tests/emu_host: compile-time layout of the tiling structs, then, for the
// chip given on the command line (the case file's chip fields), the platform and tiling-helper
// values as JSON on stdout for the Python test to compare with chips.json.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "scale_add_custom_tiling.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

using optiling::InnerTiling;
using optiling::ScaleAddTilingData;

// Natural alignment: every field at an offset divisible by its size; structs padded to 8.
static_assert(offsetof(ScaleAddTilingData, flag) == 0, "flag");
static_assert(offsetof(ScaleAddTilingData, mode) == 2, "mode");
static_assert(offsetof(ScaleAddTilingData, totalLength) == 4, "totalLength");
static_assert(offsetof(ScaleAddTilingData, bigValue) == 8, "bigValue");
static_assert(offsetof(ScaleAddTilingData, alpha) == 16, "alpha");
static_assert(offsetof(ScaleAddTilingData, dims) == 20, "dims");
static_assert(offsetof(ScaleAddTilingData, coreNum) == 32, "coreNum");
static_assert(offsetof(ScaleAddTilingData, inner) == 40, "inner struct at 8-byte alignment");
static_assert(offsetof(ScaleAddTilingData, weight1) == 48, "weight1");
static_assert(offsetof(ScaleAddTilingData, ubSize) == 52, "ubSize");
static_assert(offsetof(ScaleAddTilingData, tagLen) == 56, "tagLen");
static_assert(offsetof(ScaleAddTilingData, mm) == 64, "mm");
static_assert(sizeof(InnerTiling) == 8, "InnerTiling padded to 8");
static_assert(sizeof(ScaleAddTilingData) == 264, "ScaleAddTilingData padded to 8");
static_assert(std::is_standard_layout<ScaleAddTilingData>::value, "standard layout");
static_assert(std::is_trivially_copyable<ScaleAddTilingData>::value, "trivially copyable");
static_assert(offsetof(TCubeTiling, baseK) == 40, "TCubeTiling field order");

static uint32_t arg(char** argv, int i) { return static_cast<uint32_t>(std::strtoul(argv[i], nullptr, 10)); }

int main(int argc, char** argv) {
    if (argc != 17) {
        std::fprintf(stderr, "usage: host_api_check <16 chip fields of the case file>\n");
        return 2;
    }
    auto& c = kernelgen::chip();
    c.name = argv[1];
    c.soc_version = arg(argv, 2);
    c.cce_aicore = arg(argv, 3);
    c.ub_bytes = arg(argv, 4);
    c.ub_safe_bytes = arg(argv, 5);
    c.l1_bytes = arg(argv, 6);
    c.l0a_bytes = arg(argv, 7);
    c.l0b_bytes = arg(argv, 8);
    c.l0c_bytes = arg(argv, 9);
    c.cube_cores = arg(argv, 10);
    c.vector_cores = arg(argv, 11);
    c.split_cores = arg(argv, 12) != 0;

    // Host-side accessors and SaveToBuffer round trip.
    ScaleAddTilingData t;
    int32_t dims[3] = {4, 5, 6};
    t.set_dims(dims);
    t.set_bigValue(42);
    t.get_inner().set_b(9);
    unsigned char buf[sizeof t] = {};
    t.SaveToBuffer(buf, sizeof buf);
    ScaleAddTilingData back;
    std::memcpy(&back, buf, sizeof back);

    fe::PlatFormInfos infos;
    platform_ascendc::PlatformAscendC p(&infos);
    uint64_t ub = 0, l1 = 0, l0a = 0, l0b = 0, l0c = 0;
    p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    p.GetCoreMemSize(platform_ascendc::CoreMemType::L1, l1);
    p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, l0a);
    p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, l0b);
    p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, l0c);
    std::string aicore, short_soc;
    infos.GetPlatformRes("SoCInfo", "ai_core_cnt", aicore);
    infos.GetPlatformRes("version", "Short_SoC_version", short_soc);

    matmul_tiling::MultiCoreMatmulTiling mm(p);
    mm.SetDim(static_cast<int32_t>(p.GetCoreNumAic()));
    mm.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    mm.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    mm.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    mm.SetShape(1024, 512, 256);
    mm.SetBias(true);
    TCubeTiling cube;
    int64_t mm_ret = mm.GetTiling(cube);
    matmul_tiling::MatmulApiTiling unset(p);
    TCubeTiling cube2;
    int64_t unset_ret = unset.GetTiling(cube2);

    SoftMaxTiling sm;
    ge::Shape sm_shape({6, 100});
    AscendC::SoftMaxTilingFunc(sm_shape, 4, AscendC::GetSoftMaxMinTmpSize(sm_shape, 4, false) * 4, sm);

    uint32_t sig_max = 0, sig_min = 0, sig32_max = 0, sig32_min = 0;
    AscendC::GetSigmoidMaxMinTmpSize(ge::Shape({1000}), 2, false, sig_max, sig_min);
    AscendC::GetSigmoidMaxMinTmpSize(ge::Shape({1000}), 4, false, sig32_max, sig32_min);
    uint32_t bc_max = 0, bc_min = 0;
    AscendC::GetBroadCastMaxMinTmpSize(p, ge::Shape({4, 1}), ge::Shape({4, 20}), 2, false, bc_max, bc_min);

    gert::Shape s{2, 3, 4};
    s.AppendDim(5);
    gert::Shape scalar;

    std::printf(
        "{\"core_num\":%u,\"aic\":%u,\"aiv\":%u,\"ub\":%llu,\"l1\":%llu,\"l0a\":%llu,\"l0b\":%llu,\"l0c\":%llu,"
        "\"soc_version\":%d,\"lib_ws\":%u,\"tsch_mix\":%u,\"res_ai_core_cnt\":\"%s\",\"short_soc\":\"%s\","
        "\"mm_ret\":%lld,\"mm\":{\"usedCoreNum\":%d,\"M\":%d,\"N\":%d,\"Ka\":%d,\"singleCoreM\":%d,"
        "\"singleCoreN\":%d,\"singleCoreK\":%d,\"baseM\":%d,\"baseN\":%d,\"baseK\":%d,\"isBias\":%d},"
        "\"unset_ret\":%lld,\"softmax\":{\"splitM\":%u,\"rangeM\":%u,\"tailM\":%u},"
        "\"sigmoid\":[%u,%u,%u,%u],\"broadcast\":[%u,%u],"
        "\"shape_size\":%lld,\"shape_dims\":%zu,\"scalar_size\":%lld,\"dt_name\":\"%s\",\"dt_back\":%d,"
        "\"roundtrip\":[%d,%d,%d,%llu,%u],\"data_size\":%zu}\n",
        p.GetCoreNum(), p.GetCoreNumAic(), p.GetCoreNumAiv(), (unsigned long long)ub, (unsigned long long)l1,
        (unsigned long long)l0a, (unsigned long long)l0b, (unsigned long long)l0c, static_cast<int>(p.GetSocVersion()),
        p.GetLibApiWorkSpaceSize(), p.CalcTschBlockDim(40, 1, 2), aicore.c_str(), short_soc.c_str(), (long long)mm_ret,
        cube.usedCoreNum, cube.M, cube.N, cube.Ka, cube.singleCoreM, cube.singleCoreN, cube.singleCoreK, cube.baseM,
        cube.baseN, cube.baseK, cube.isBias, (long long)unset_ret, sm.splitM, sm.rangeM, sm.tailM, sig_max, sig_min,
        sig32_max, sig32_min, bc_max, bc_min,
        (long long)s.GetShapeSize(), s.GetDimNum(), (long long)scalar.GetShapeSize(),
        ge::TypeUtils::DataTypeToSerialString(ge::DT_BF16).c_str(),
        static_cast<int>(ge::TypeUtils::SerialStringToDataType("DT_FLOAT16")), back.get_dims()[0], back.get_dims()[2],
        static_cast<int>(back.inner.b), (unsigned long long)back.bigValue, back.get_inner().get_b(), back.GetDataSize());
    return 0;
}
