// Matmul high-level API against the GM and UB bounds: `matmul_bounds CASE report [a b c]`.
// ok_iterate_per_unit walks two units with one Iterate loop each; ok_blocks_past_end runs the corpus matmul_custom pattern (24 blocks over M=100, K=40, N=72
// with singleCore 64 x 48: most blocks lie past the matrix end) and writes C; the other cases
// are seeded bugs whose offending call carries `// BUG: <case>`.
#include <functional>
#include <map>

#include "lib/matmul_intf.h"
#include "test_io.h"

using namespace AscendC;
using namespace matmul;

constexpr int M = 100, K = 40, N = 72;
static GM_ADDR g_a, g_b, g_c;

using MM = Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>,
                  MatmulType<TPosition::GM, CubeFormat::ND, float>>;

static TCubeTiling cube_tiling(int singleM, int singleN) {
    TCubeTiling t{};
    t.M = M, t.N = N, t.Ka = K, t.Kb = K;
    t.singleCoreM = singleM, t.singleCoreN = singleN, t.singleCoreK = K;
    t.baseM = 32, t.baseN = 32, t.baseK = 48;  // K = 40 rounded up to whole 16-element fractals
    return t;
}

// The case's whole A, B and C.
struct Whole {
    GlobalTensor<half> a, b;
    GlobalTensor<float> c;
    Whole() {
        a.SetGlobalBuffer((__gm__ half*)g_a, M * K);
        b.SetGlobalBuffer((__gm__ half*)g_b, K * N);
        c.SetGlobalBuffer((__gm__ float*)g_c, M * N);
    }
};

static std::map<std::string, std::pair<uint32_t, std::function<void()>>> cases() {
    std::map<std::string, std::pair<uint32_t, std::function<void()>>> c;
    c["ok_blocks_past_end"] = {24, [] {
        TCubeTiling t = cube_tiling(64, 48);
        TPipe pipe;
        MM mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        GlobalTensor<half> a, b;
        GlobalTensor<float> cg;
        a.SetGlobalBuffer((__gm__ half*)g_a, M * K);
        b.SetGlobalBuffer((__gm__ half*)g_b, K * N);
        cg.SetGlobalBuffer((__gm__ float*)g_c, M * N);
        int mBlocks = (M + t.singleCoreM - 1) / t.singleCoreM;
        int mIdx = GetBlockIdx() % mBlocks, nIdx = GetBlockIdx() / mBlocks;
        int tailM = std::min(M - mIdx * t.singleCoreM, t.singleCoreM);
        int tailN = std::min(N - nIdx * t.singleCoreN, t.singleCoreN);
        mm.SetTensorA(a[mIdx * K * t.singleCoreM]);
        mm.SetTensorB(b[nIdx * t.singleCoreN]);
        mm.SetTail(tailM, tailN);
        if (nIdx % 2 == 0) {
            mm.IterateAll(cg[mIdx * N * t.singleCoreM + nIdx * t.singleCoreN]);
        } else {
            while (mm.Iterate()) mm.GetTensorC(cg[mIdx * N * t.singleCoreM + nIdx * t.singleCoreN]);
        }
        mm.End();
    }};
    // Two blocks accumulate the whole product into one C with IterateAll's enAtomic (AtomicAdd):
    // accumulations meet in any order, so no race; a fakeMsg call computes nothing.
    c["ok_atomic_iterate_all"] = {2, [] {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);
        TCubeTiling t = cube_tiling(M, N);
        TPipe pipe;
        MM mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        Whole w;
        auto& a = w.a;
        auto& b = w.b;
        auto& cg = w.c;
        mm.SetTensorA(a);
        mm.SetTensorB(b);
        mm.template IterateAll<false>(cg, 1, false, true);
        mm.WaitIterateAll();
        mm.IterateAll(cg, 1, false, false, true);
        mm.End();
    }};
    // One Iterate<false> starts the walk; each GetTensorC<false> fetches the next block
    // (Ascend/samples MatmulLeakyReluInvocationAsync), with a workspace set from a GlobalTensor.
    c["ok_async_walk"] = {1, [] {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);
        TCubeTiling t = cube_tiling(M, N);
        TPipe pipe;
        MM mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        Whole w;
        auto& a = w.a;
        auto& b = w.b;
        auto& cg = w.c;
        mm.SetWorkspace(cg);
        mm.SetTensorA(a);
        mm.SetTensorB(b);
        mm.template Iterate<false>();
        const int blocks = ((M + 31) / 32) * ((N + 31) / 32);
        for (int i = 0; i < blocks; ++i) mm.template GetTensorC<false>(cg);
        mm.End();
    }};
    // Two blocks store the same whole product into one C (IBShare's two AIVs): the same bytes,
    // so no race.
    c["ok_same_product_two_blocks"] = {2, [] {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);
        TCubeTiling t = cube_tiling(M, N);
        TPipe pipe;
        MM mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        Whole w;
        auto& a = w.a;
        auto& b = w.b;
        auto& cg = w.c;
        mm.SetTensorA(a);
        mm.SetTensorB(b);
        mm.IterateAll(cg);
        mm.End();
    }};
    // The same, block by block through Iterate/GetTensorC (in Ascend/samples MatmulLeakyReluCustom
    // the AIVs past the tiling's usedCoreNum repeat another AIV's block): the same bytes, no race.
    c["ok_same_blocks_two_blocks"] = {2, [] {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);
        TCubeTiling t = cube_tiling(M, N);
        TPipe pipe;
        MM mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        Whole w;
        mm.SetTensorA(w.a);
        mm.SetTensorB(w.b);
        while (mm.Iterate()) mm.GetTensorC(w.c);
        mm.End();
    }};
    // The pure Cube mode (`#define ASCENDC_CUBE_ONLY`, which the toolchain turns into
    // cube_only_mode()): the AIC computes its own Matmul and signals the AIVs, which wait
    // (Ascend/samples 22_baremix); in the default mix mode the AIC would leave at REGIST_MATMUL_OBJ.
    c["ok_cube_only"] = {1, [] {
        kernelgen::cube_only_mode() = true;
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
        TCubeTiling t = cube_tiling(M, N);
        TPipe pipe;
        if ASCEND_IS_AIC {
            MM mm;
            REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
            Whole w;
            auto& a = w.a;
        auto& b = w.b;
        auto& cg = w.c;
            mm.SetTensorA(a);
            mm.SetTensorB(b);
            mm.IterateAll(cg);
            mm.End();
            CrossCoreSetFlag<0x2, PIPE_FIX>(3);
        }
        if ASCEND_IS_AIV {
            CrossCoreWaitFlag(3);
        }
    }};
    // One core walks two units (the halves of M), each a new SetTensorA/SetTail and its own
    // Iterate loop: the second loop must compute again (the generator's per-unit pattern).
    c["ok_iterate_per_unit"] = {1, [] {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);  // one AIV walks both units
        TCubeTiling t = cube_tiling(M / 2, N);
        TPipe pipe;
        MM mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        GlobalTensor<half> a, b;
        GlobalTensor<float> cg;
        a.SetGlobalBuffer((__gm__ half*)g_a, M * K);
        b.SetGlobalBuffer((__gm__ half*)g_b, K * N);
        cg.SetGlobalBuffer((__gm__ float*)g_c, M * N);
        for (int unit = 0; unit < 2; ++unit) {
            mm.SetTensorA(a[unit * (M / 2) * K]);
            mm.SetTensorB(b);
            mm.SetTail(M / 2, N);
            while (mm.Iterate()) mm.GetTensorC(cg[unit * (M / 2) * N]);
        }
        mm.End();
    }};
    c["iterate_all_past_end"] = {1, [] {
        TCubeTiling t = cube_tiling(M, N);
        MM mm;
        REGIST_MATMUL_OBJ(nullptr, GetSysWorkSpacePtr(), mm, &t);
        GlobalTensor<half> a, b;
        GlobalTensor<float> cg;
        a.SetGlobalBuffer((__gm__ half*)g_a, M * K);
        b.SetGlobalBuffer((__gm__ half*)g_b, K * N);
        cg.SetGlobalBuffer((__gm__ float*)g_c, M * N);
        mm.SetTensorA(a);
        mm.SetTensorB(b);
        mm.IterateAll(cg[N]);  // BUG: iterate_all_past_end
    }};
    c["get_tensor_c_past_end"] = {1, [] {
        TCubeTiling t = cube_tiling(M, N);
        MM mm;
        REGIST_MATMUL_OBJ(nullptr, GetSysWorkSpacePtr(), mm, &t);
        GlobalTensor<half> a, b;
        GlobalTensor<float> cg;
        a.SetGlobalBuffer((__gm__ half*)g_a, M * K);
        b.SetGlobalBuffer((__gm__ half*)g_b, K * N);
        cg.SetGlobalBuffer((__gm__ float*)g_c);  // no extent: only the allocation bounds the write
        mm.SetTensorA(a);
        mm.SetTensorB(b);
        while (mm.Iterate()) mm.GetTensorC(cg[8]);  // BUG: get_tensor_c_past_end
    }};
    c["get_tensor_c_without_iterate"] = {1, [] {
        TCubeTiling t = cube_tiling(M, N);
        MM mm;
        REGIST_MATMUL_OBJ(nullptr, GetSysWorkSpacePtr(), mm, &t);
        GlobalTensor<float> cg;
        cg.SetGlobalBuffer((__gm__ float*)g_c, M * N);
        mm.GetTensorC(cg);  // BUG: get_tensor_c_without_iterate
    }};
    c["local_a_too_small"] = {1, [] {
        TCubeTiling t = cube_tiling(M, N);
        TPipe pipe;
        TBuf<TPosition::A1> l1;
        MM mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        pipe.InitBuffer(l1, 1024 * sizeof(half));
        GlobalTensor<half> b;
        GlobalTensor<float> cg;
        b.SetGlobalBuffer((__gm__ half*)g_b, K * N);
        cg.SetGlobalBuffer((__gm__ float*)g_c, M * N);
        mm.SetTensorA(l1.Get<half>());
        mm.SetTensorB(b);
        mm.IterateAll(cg);  // BUG: local_a_too_small
    }};
    c["five_matmul_objects"] = {1, [] {
        TCubeTiling t = cube_tiling(M, N);
        TPipe pipe;
        MM m1, m2, m3, m4, m5;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), m1, &t, m2, &t, m3, &t, m4, &t, m5, &t);  // BUG: five_matmul_objects
    }};
    c["init_buffer_before_regist"] = {1, [] {
        TCubeTiling t = cube_tiling(M, N);
        TPipe pipe;
        TQue<TPosition::A1, 1> a1;
        pipe.InitBuffer(a1, 1, 1024);
        MM mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);  // BUG: init_buffer_before_regist
    }};
    // A UB queue before it (Ascend/samples' matmul + LeakyRelu): the object's share is in L1/L0.
    c["ok_vector_queue_before_regist"] = {1, [] {
        TCubeTiling t = cube_tiling(M, N);
        TPipe pipe;
        TQue<TPosition::VECOUT, 1> out;
        pipe.InitBuffer(out, 1, 1024);
        MM mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);  // WARN: vector_queue_before_regist
    }};
    c["ok_four_matmul_objects"] = {1, [] {
        TCubeTiling t = cube_tiling(M, N);
        TPipe pipe;
        MM m1, m2, m3, m4;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), m1, &t, m2, &t, m3, &t, m4, &t);
    }};
    // One object may leave its tiling to Init (the documented third form).
    c["ok_one_matmul_tiling_by_init"] = {1, [] {
        TCubeTiling t = cube_tiling(M, N);
        TPipe pipe;
        MM mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm);
        mm.Init(&t);
    }};
    return c;
}

int main(int argc, char** argv) {
    auto all = cases();
    const auto& chosen = tio::select_case(all, argc, argv, {3, 6}, "matmul_bounds CASE report [a.bin b.bin c.bin]");
    std::vector<uint8_t> av = argc == 6 ? tio::read_bytes(argv[3]) : std::vector<uint8_t>(M * K * 2, 0);
    std::vector<uint8_t> bv = argc == 6 ? tio::read_bytes(argv[4]) : std::vector<uint8_t>(K * N * 2, 0);
    tio::Gm a(av, "a"), b(bv, "b"), c(size_t(M) * N * 4, "c");
    g_a = a.addr();
    g_b = b.addr();
    g_c = c.addr();
    // An accumulating case starts from zeros, as the glue that zero-fills its output does.
    if (std::string(argv[1]) == "ok_atomic_iterate_all") std::fill(c.bytes.begin(), c.bytes.end(), 0);
    tio::run(chosen.first, argv[2], chosen.second);
    if (argc == 6) tio::write_bytes(argv[5], c.bytes.data(), c.bytes.size());
    return 0;
}
