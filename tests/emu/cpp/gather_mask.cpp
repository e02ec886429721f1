// GatherMask's documented read extents (API reference, GatherMask; ascend_tools/emu/README.md):
// `gather_mask CASE x.bin out.bin report`. x holds float32 inputs; each case writes the kept
// elements, then rsvdCnt as a float, to out.bin for the Python side to compare with torch.
#include <functional>
#include <map>

#include "test_io.h"

using namespace AscendC;

static std::vector<float> g_x;
static std::vector<uint8_t> g_out;

static void fill(const LocalTensor<float>& t, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) t.SetValue(i, g_x[i]);
    PipeBarrier<PIPE_ALL>();  // the scalar stores land before the vector unit reads them
}

static void put(const LocalTensor<float>& t, uint64_t kept) {
    const auto* p = reinterpret_cast<const uint8_t*>(t.data());
    g_out.insert(g_out.end(), p, p + kept * sizeof(float));
    float n = static_cast<float>(kept);
    const auto* q = reinterpret_cast<const uint8_t*>(&n);
    g_out.insert(g_out.end(), q, q + sizeof n);
}

static LocalTensor<uint32_t> pattern(TBuf<TPosition::VECCALC>& b, uint32_t word, uint32_t words) {
    auto pat = b.Get<uint32_t>();
    for (uint32_t i = 0; i < words; ++i) pat.SetValue(i, word);
    PipeBarrier<PIPE_ALL>();
    return pat;
}

static void chip310p() {
    auto& c = kernelgen::chip();
    c.name = "ascend310p";
    c.soc_version = 2002;
    c.cce_aicore = 200;
    c.ub_bytes = c.ub_safe_bytes = 262144;
}

// One call on `n` floats of x (TBuf of `src_elems`), dst of `dst_elems`.
template <class F>
static void one(uint32_t src_elems, uint32_t dst_elems, F call) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bp;
    pipe.InitBuffer(bx, src_elems * 4);
    pipe.InitBuffer(by, dst_elems * 4);
    pipe.InitBuffer(bp, 64);
    auto x = bx.Get<float>(), y = by.Get<float>();
    fill(x, src_elems);
    put(y, call(x, y, bp));
}

static std::map<std::string, std::function<void()>> cases() {
    std::map<std::string, std::function<void()>> c;
    // Counter mode, configuration one (910B): 96 lanes a repeat (more than the 64 floats of 256
    // bytes), repeat stride 12 blocks, a 96-bit pattern keeping lane 0 of every 3 (DrivingSDK
    // grid_sampler3d_grad's x coordinates): x 192 floats -> x[0::3].
    c["counter_per_repeat"] = [] {
        one(192, 64, [](auto& x, auto& y, auto& bp) {
            auto pat = bp.template Get<uint32_t>();
            const uint32_t words[3] = {0x49249249u, 0x92492492u, 0x24924924u};
            for (uint32_t i = 0; i < 3; ++i) pat.SetValue(i, words[i]);
            PipeBarrier<PIPE_ALL>();
            uint64_t kept = 0;
            GatherMask(y, x, pat, true, 96, GatherMaskParams(1, 2, 12, 0), kept);
            return kept;
        });
    };
    // The reference's example: mask 70, 2 repeats, src0RepeatStride 4 blocks, pattern 0x99999999
    // reused (src1RepeatStride 0): repeat 0 reads x[0:70], repeat 1 x[32:102].
    c["counter_reference_example"] = [] {
        one(128, 70, [](auto& x, auto& y, auto& bp) {
            auto pat = pattern(bp, 0x99999999u, 3);
            uint64_t kept = 0;
            GatherMask(y, x, pat, true, 70, GatherMaskParams(1, 2, 4, 0), kept);
            return kept;
        });
    };
    // Configuration two (310P): mask 70 in all, repeatTimes (5) ignored: 64 lanes at x[0:64],
    // then 6 at x[64:70], each repeat from the pattern's first bit.
    c["counter_total_310p"] = [] {
        chip310p();
        one(128, 70, [](auto& x, auto& y, auto& bp) {
            auto pat = pattern(bp, 0x99999999u, 2);
            uint64_t kept = 0;
            GatherMask(y, x, pat, true, 70, GatherMaskParams(1, 5, 8, 0), kept);
            return kept;
        });
    };
    // Normal mode, built-in pattern 1 over 2 whole repeats of a 128-float source.
    c["normal"] = [] {
        one(128, 64, [](auto& x, auto& y, auto&) {
            uint64_t kept = 0;
            GatherMask(y, x, 1, false, 0, GatherMaskParams(1, 2, 8, 0), kept);
            return kept;
        });
    };
    // Normal mode over an 80-float source (DrivingSDK grid_sampler2d_v2): the last repeat reads
    // the 48 floats that follow it in UB and keeps 24 of them past the 40-float dst (warnings).
    c["normal_tail"] = [] {
        one(80, 40, [](auto& x, auto& y, auto&) {
            uint64_t kept = 0;
            GatherMask(y, x, 1, false, 0, GatherMaskParams(1, 2, 8, 0), kept);  // tail: normal_tail
            return kept;
        });
    };
    // Seeded bugs: what stays an error.
    c["counter_past_src"] = [] {  // Counter mode reads what mask says: 2 x 96 lanes of 160
        one(160, 64, [](auto& x, auto& y, auto& bp) {
            auto pat = pattern(bp, 0xffffffffu, 3);
            uint64_t kept = 0;
            GatherMask(y, x, pat, true, 96, GatherMaskParams(1, 2, 12, 0), kept);  // BUG: counter_past_src
            return kept;
        });
    };
    c["normal_past_src_by_repeats"] = [] {  // 3 repeats of a 64-float source: 2 repeats past it
        one(64, 96, [](auto& x, auto& y, auto&) {
            uint64_t kept = 0;
            GatherMask(y, x, 1, false, 0, GatherMaskParams(1, 3, 8, 0), kept);  // BUG: normal_past_src_by_repeats
            return kept;
        });
    };
    c["normal_dst_short"] = [] {  // whole repeats of a 128-float source into a 32-float dst
        one(128, 32, [](auto& x, auto& y, auto&) {
            uint64_t kept = 0;
            GatherMask(y, x, 1, false, 0, GatherMaskParams(1, 2, 8, 0), kept);  // BUG: normal_dst_short
            return kept;
        });
    };
    c["counter_mask_zero"] = [] {
        one(64, 64, [](auto& x, auto& y, auto&) {
            uint64_t kept = 0;
            GatherMask(y, x, 7, true, 0, GatherMaskParams(1, 1, 8, 0), kept);  // BUG: counter_mask_zero
            return kept;
        });
    };
    c["pattern7_310p"] = [] {  // the 310P's built-in patterns are 1..6
        chip310p();
        one(64, 64, [](auto& x, auto& y, auto&) {
            uint64_t kept = 0;
            GatherMask(y, x, 7, false, 0, GatherMaskParams(1, 1, 8, 0), kept);  // BUG: pattern7_310p
            return kept;
        });
    };
    // The same whole-repeat tail in Compare's count form (count: whole 256-byte repeats): 40
    // floats compared over 64 lanes; out: the 8 bytes of result bits as 2 floats' worth.
    c["compare_tail"] = [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> ba, bb, bm;
        pipe.InitBuffer(ba, 40 * 4);
        pipe.InitBuffer(bb, 40 * 4);
        pipe.InitBuffer(bm, 64);
        auto a = ba.Get<float>(), b = bb.Get<float>();
        auto m = bm.Get<uint8_t>();
        fill(a, 40);
        for (uint32_t i = 0; i < 40; ++i) b.SetValue(i, 20.5f);
        PipeBarrier<PIPE_ALL>();
        Compare(m, a, b, CMPMODE::GT, 64);  // tail: compare_tail
        CompareScalar(m[32], a, 10.5f, CMPMODE::LT, 64);  // tail: compare_scalar_tail
        const auto* p = reinterpret_cast<const uint8_t*>(m.data());
        g_out.insert(g_out.end(), p, p + 8);
        g_out.insert(g_out.end(), p + 32, p + 40);
    };
    c["compare_past_src"] = [] {  // 128 lanes of a 40-float source: a repeat more than its last
        TPipe pipe;
        TBuf<TPosition::VECCALC> ba, bm;
        pipe.InitBuffer(ba, 40 * 4);
        pipe.InitBuffer(bm, 32);
        auto a = ba.Get<float>();
        fill(a, 40);
        CompareScalar(bm.Get<uint8_t>(), a, 1.0f, CMPMODE::LT, 128);  // BUG: compare_past_src
    };
    return c;
}

int main(int argc, char** argv) {
    auto all = cases();
    const auto& chosen = tio::select_case(all, argc, argv, {5}, "gather_mask CASE x.bin out.bin report");
    auto bytes = tio::read_bytes(argv[2]);
    g_x.resize(bytes.size() / 4);
    std::memcpy(g_x.data(), bytes.data(), g_x.size() * 4);
    tio::run(1, argv[4], chosen);
    tio::write_bytes(argv[3], g_out.data(), g_out.size());
    return 0;
}
