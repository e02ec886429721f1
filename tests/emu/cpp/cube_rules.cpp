// The cube path's layout and capacity rules and its counters: `cube_rules CASE report`.
// Low-level kernels (GM -> L1 -> L0A/L0B -> Mmad -> L0C -> Fixpipe) whose operands start off
// their memory's alignment or whose Mmad sizes leave the 12-bit fields, and Matmul objects whose
// TCubeTiling breaks the fractal layout or whose own L1/L0 share, added to the user's
// InitBuffer, no longer fits. The offending call carries `// BUG: <case>`; ok_* cases run clean.
#include <functional>
#include <map>

#include "lib/matmul_intf.h"
#include "cube_product.h"
#include "test_io.h"

using namespace AscendC;

static GM_ADDR g_x, g_y;

using MM = matmul::Matmul<matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>,
                          matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>,
                          matmul::MatmulType<TPosition::GM, CubeFormat::ND, float>>;

// A TCubeTiling for a 128 x 128 x 256 half product with the given base block and L1 depths.
static TCubeTiling cube_tiling(int baseM, int baseN, int baseK, int depth) {
    TCubeTiling t{};
    t.M = 128, t.N = 128, t.Ka = 256, t.Kb = 256;
    t.singleCoreM = 128, t.singleCoreN = 128, t.singleCoreK = 256;
    t.baseM = baseM, t.baseN = baseN, t.baseK = baseK;
    t.depthA1 = depth, t.depthB1 = depth;
    return t;
}

static std::map<std::string, std::pair<uint32_t, std::function<void()>>> cases() {
    std::map<std::string, std::pair<uint32_t, std::function<void()>>> c;
    c["ok_cube_product"] = {1, [] { cube_product(g_x, g_y, {}); }};
    c["load_data_l0a_unaligned"] = {1, [] { cube_product(g_x, g_y, {"", 0, 16, 0, 16}); }};  // L0A + 32 B
    c["load_data_l1_src_unaligned"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::A1> ba1;
        TBuf<TPosition::A2> ba2;
        pipe.InitBuffer(ba1, 1024);
        pipe.InitBuffer(ba2, 512);
        auto a1 = ba1.Get<half>();
        LoadData(ba2.Get<half>(), a1[8], LoadData2DParams(0, 1, 1, 0, 0, false, 0));  // BUG: load_data_l1_src_unaligned
    }};
    c["mmad_l0c_unaligned"] = {1, [] { cube_product(g_x, g_y, {"", 0, 0, 8, 16}); }};  // L0C + 32 B
    c["mmad_k_range"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::A2> ba2;
        TBuf<TPosition::B2> bb2;
        TBuf<TPosition::CO1> bc1;
        pipe.InitBuffer(ba2, 512);
        pipe.InitBuffer(bb2, 512);
        pipe.InitBuffer(bc1, 1024);
        MmadParams mp(16, 16, 4096, 0, false, true);
        Mmad(bc1.Get<float>(), ba2.Get<half>(), bb2.Get<half>(), mp);  // BUG: mmad_k_range
    }};
    c["matmul_base_k_unaligned"] = {1, [] {
        TCubeTiling t = cube_tiling(128, 128, 40, 2);
        TPipe pipe;
        MM mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);  // BUG: matmul_base_k_unaligned
    }};
    // A1 4 x 128 x 128 halves (128 KB) + B1 the same: 256 KB of the 512 KB L1 are the Matmul's.
    c["matmul_l1_share_overflow"] = {1, [] {
        TCubeTiling t = cube_tiling(128, 128, 128, 4);
        TPipe pipe;
        MM mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        TBuf<TPosition::A1> mine;
        pipe.InitBuffer(mine, 288 * 1024);  // BUG: matmul_l1_share_overflow
    }};
    c["ok_matmul_share_and_user_l1_fit"] = {1, [] {
        TCubeTiling t = cube_tiling(128, 128, 128, 4);
        TPipe pipe;
        MM mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        TBuf<TPosition::A1> mine;
        pipe.InitBuffer(mine, 256 * 1024);  // exactly the rest of L1
    }};
    // On a coupled chip (Ascend 910: 1 MB L1, no REGIST_MATMUL_OBJ order rule) the user's L1
    // buffer may come first; the Matmul's share then overflows at REGIST_MATMUL_OBJ.
    c["matmul_share_after_user_l1_910"] = {1, [] {
        kernelgen::chip().name = "ascend910";
        kernelgen::chip().split_cores = false;
        kernelgen::chip().l1_bytes = 1024 * 1024;
        TCubeTiling t = cube_tiling(128, 128, 128, 4);
        TPipe pipe;
        TBuf<TPosition::B1> mine;
        pipe.InitBuffer(mine, 800 * 1024);
        MM mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);  // BUG: matmul_share_after_user_l1_910
    }};
    // One 256 x 256 float block is 256 KB, twice the 910B's L0C.
    c["matmul_l0c_share_overflow"] = {1, [] {
        TCubeTiling t = cube_tiling(256, 256, 16, 1);
        TPipe pipe;
        MM mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);  // BUG: matmul_l0c_share_overflow
    }};
    // Four objects of 128 x 128 float blocks: 64 KB of L0C each, which they use in turns (one
    // shared L0 reservation, RecSDK disentangle_attention), within the 910B's 128 KB.
    c["ok_four_matmuls_share_l0"] = {1, [] {
        TCubeTiling t = cube_tiling(128, 128, 16, 1);
        TPipe pipe;
        MM mm1, mm2, mm3, mm4;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm1, &t, mm2, &t, mm3, &t, mm4, &t);
    }};
    return c;
}

int main(int argc, char** argv) {
    auto all = cases();
    const auto& chosen = tio::select_case(all, argc, argv, {3}, "cube_rules CASE report");
    tio::Gm x(std::vector<uint8_t>(512 * 2, 0), "x"), y(256 * 4, "y");
    g_x = x.addr();
    g_y = y.addr();
    tio::run(chosen.first, argv[2], chosen.second);
    return 0;
}
