// LoadDataWithTranspose for 1-, 2- and 4-byte types: `load_transpose CASE x.bin y.bin report`.
// Layout cases (i8_*, f32_*): x holds the L1 source bytes (whole fractals), copied GM -> L1 by a
// count DataCopy; y gets the 8 KB of the L0 destination after one LoadDataWithTranspose with the
// case's parameters (bytes the load does not write keep the fill 0x7F). Product cases
// (*_mmad): x holds A (16 x K) and B (K x N) row-major; both go GM -> L1 by Nd2Nz, A into L0A by
// LoadData, B into L0B by LoadDataWithTranspose, then Mmad and Fixpipe of C (16 x N) into y.
// The failing call of an error case carries `// BUG: <case>`.
#include <cstring>
#include <functional>
#include <map>

#include "kernel_operator.h"
#include "test_io.h"

using namespace AscendC;

static GM_ADDR g_x, g_y;
constexpr uint32_t kOut = 8192;  // bytes of y

struct Layout {
    LoadData2dTransposeParams params;
    uint32_t src_bytes = 4096;    // L1 source (and x) size
    uint32_t dst_offset = 0;      // elements of the L0 tensor before the load's destination
    bool to_a2 = false;           // L0A instead of L0B
};

// One transposing load of the case's source into a 0x7F-filled L0 buffer, copied out to y.
template <class T>
static void layout(const Layout& c) {
    TPipe pipe;
    TBuf<TPosition::B1> bl1;
    TBuf<TPosition::A2> bl0a;
    TBuf<TPosition::B2> bl0b;
    pipe.InitBuffer(bl1, c.src_bytes);
    pipe.InitBuffer(bl0a, kOut);
    pipe.InitBuffer(bl0b, kOut);
    GlobalTensor<T> gx;
    gx.SetGlobalBuffer((__gm__ T*)g_x, c.src_bytes / sizeof(T));
    auto src = bl1.Get<T>();
    auto dst = c.to_a2 ? bl0a.Get<T>() : bl0b.Get<T>();
    std::memset(dst.data(), 0x7F, kOut);
    DataCopy(src, gx, c.src_bytes / sizeof(T));
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    LoadDataWithTranspose(dst[c.dst_offset], src, c.params);  // BUG: i8_src_past_end; BUG: f32_overlap; BUG: i8_dst_unaligned; BUG: i8_down_below_start; BUG: i16_undocumented
    PipeBarrier<PIPE_ALL>();
    std::memcpy(g_y, dst.data(), kOut);
}

// C (16 x N) = A (16 x K) x B (K x N) with B loaded into L0B by LoadDataWithTranspose.
// int8_t: B in Nz (32-column blocks of all K rows), one load per 32-row k-block, each repeat
// one 32 x 32 square of the next column block (srcStride K / 32), dstGap 1.
// float: B copied as two 16-row slabs, each Nz (8-column blocks); a square is two neighbouring
// column blocks of a slab; one load per slab picks it by startIndex, dstFracGap N / 16 - 1.
template <class T, class C>
static void product(uint16_t k, uint16_t n) {
    constexpr uint16_t m = 16, c0 = 32 / sizeof(T);
    TPipe pipe;
    TBuf<TPosition::A1> ba1;
    TBuf<TPosition::B1> bb1;
    TBuf<TPosition::A2> ba2;
    TBuf<TPosition::B2> bb2;
    TBuf<TPosition::CO1> bc1;
    pipe.InitBuffer(ba1, m * k * sizeof(T));
    pipe.InitBuffer(bb1, k * n * sizeof(T));
    pipe.InitBuffer(ba2, m * k * sizeof(T));
    pipe.InitBuffer(bb2, k * n * sizeof(T));
    pipe.InitBuffer(bc1, m * n * sizeof(C));
    GlobalTensor<T> ga, gb;
    ga.SetGlobalBuffer((__gm__ T*)g_x, m * k);
    gb.SetGlobalBuffer((__gm__ T*)g_x + m * k, k * n);
    GlobalTensor<C> gc;
    gc.SetGlobalBuffer((__gm__ C*)g_y, m * n);
    auto a1 = ba1.Get<T>(), b1 = bb1.Get<T>(), a2 = ba2.Get<T>(), b2 = bb2.Get<T>();
    auto c1 = bc1.Get<C>();
    DataCopy(a1, ga, Nd2NzParams(1, m, k, 0, k, m, 1, 0));
    const uint16_t n1 = n / 16;
    if constexpr (sizeof(T) == 1) {
        DataCopy(b1, gb, Nd2NzParams(1, k, n, 0, n, k, 1, 0));
    } else {
        for (uint16_t s = 0; s < k / 16; ++s) DataCopy(b1[s * 16 * n], gb[s * 16 * n], Nd2NzParams(1, 16, n, 0, n, 16, 1, 0));
    }
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    LoadData(a2, a1, LoadData2DParams(0, k / c0, 1, 0, 0, false, 0));
    if constexpr (sizeof(T) == 1) {
        for (uint16_t kb = 0; kb < k / 32; ++kb)
            LoadDataWithTranspose(b2[kb * n * 32], b1[kb * 1024], LoadData2dTransposeParams(0, n / 32, k / 32, 1, 0));
    } else {
        for (uint16_t s = 0; s < k / 16; ++s)
            LoadDataWithTranspose(b2[s * 2 * n1 * 128], b1, LoadData2dTransposeParams(s * n1, n1, 1, 0, n1 - 1));
    }
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    MmadParams mp;
    mp.m = m;
    mp.n = n;
    mp.k = k;
    Mmad(c1, a2, b2, mp);
    SetFlag<HardEvent::M_FIX>(EVENT_ID0);
    WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    FixpipeParamsV220 fp;
    fp.nSize = n;
    fp.mSize = m;
    fp.srcStride = m;
    fp.dstStride = n;
    Fixpipe<C, C, CFG_ROW_MAJOR>(gc, c1, fp);
}

static std::map<std::string, std::function<void()>> cases() {
    std::map<std::string, std::function<void()>> c;
    using P = LoadData2dTransposeParams;
    // the reference's two figures: 3 squares, dst fractals in order / at r and r + 3
    c["i8_seq"] = [] { layout<int8_t>({P(0, 3, 1, 1, 0)}); };
    c["i8_gap"] = [] { layout<int8_t>({P(0, 3, 1, 0, 2)}); };
    // squares 1 and 3 (startIndex 1, srcStride 2), into L0A
    c["i8_start"] = [] { layout<int8_t>({P(1, 2, 2, 1, 0), 4096, 0, true}); };
    // addrMode 1: squares 3, then 1
    c["i8_down"] = [] { layout<int8_t>({P(3, 2, 2, 1, 0, 1)}); };
    c["f32_seq"] = [] { layout<float>({P(0, 3, 1, 1, 0)}); };
    c["f32_gap"] = [] { layout<float>({P(0, 3, 1, 0, 2)}); };
    c["f32_start"] = [] { layout<float>({P(1, 2, 2, 1, 0)}); };
    // half: one 16 x 16 fractal a repeat, dstFracGap has no effect
    c["f16_gap"] = [] { layout<half>({P(1, 2, 1, 1, 5)}); };
    c["i8_mmad"] = [] { product<int8_t, int32_t>(64, 64); };
    c["f32_mmad"] = [] { product<float, float>(32, 32); };
    // errors: square 4 of a 4-square source; repeat 1 writes fractal 1 again (dstGap 0,
    // dstFracGap 0); dst 32 bytes into L0B; addrMode 1 from square 1 by 2
    c["i8_src_past_end"] = [] { layout<int8_t>({P(2, 2, 2, 1, 0)}); };
    c["f32_overlap"] = [] { layout<float>({P(0, 2, 1, 0, 0)}); };
    c["i8_dst_unaligned"] = [] { layout<int8_t>({P(0, 1, 1, 0, 0), 4096, 32}); };
    c["i8_down_below_start"] = [] { layout<int8_t>({P(1, 2, 2, 0, 0, 1)}); };
    // int16_t: documented on Atlas 200I/500 A2 only, not on A2/A3 (the test chip)
    c["i16_undocumented"] = [] { layout<int16_t>({P(0, 1, 1, 0, 0)}); };
    return c;
}

int main(int argc, char** argv) {
    auto all = cases();
    const auto& body = tio::select_case(all, argc, argv, {5}, "load_transpose CASE x.bin y.bin report");
    tio::Gm x(tio::read_bytes(argv[2]), "x"), y(kOut, "y");
    g_x = x.addr();
    g_y = y.addr();
    tio::run(1, argv[4], body);
    tio::write_bytes(argv[3], y.bytes.data(), y.bytes.size());
    return 0;
}
