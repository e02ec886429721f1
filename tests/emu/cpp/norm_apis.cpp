// LayerNorm, RmsNorm (with the host tiling helpers), PairReduceSum, GatherMask and
// LoadDataWithTranspose: `norm_apis CASE x.bin out.bin report`. x holds float32 inputs; each
// case writes its results to out.bin for the Python side to compare with torch.
#include <functional>
#include <map>

#include "kernel_tiling/kernel_tiling.h"
#include "test_io.h"
#include "lib/math/kernel_operator_exp_intf.h"
#include "tiling/tiling_api.h"

using namespace AscendC;

static std::vector<float> g_x;
static std::vector<uint8_t> g_out;

template <class T>
static void put(const LocalTensor<T>& t, uint64_t n) {
    const auto* p = reinterpret_cast<const uint8_t*>(t.data());
    g_out.insert(g_out.end(), p, p + n * sizeof(T));
}

template <class T>
static void fill(const LocalTensor<T>& t, uint64_t n, uint64_t from = 0) {
    for (uint64_t i = 0; i < n; ++i) t.SetValue(i, static_cast<T>(g_x[from + i]));
    PipeBarrier<PIPE_ALL>();  // the scalar stores land before the vector unit reads them
}

static std::map<std::string, std::function<void()>> cases() {
    std::map<std::string, std::function<void()>> c;
    // x: [6, 32] rows, then gamma[32], beta[32]; out: y[6, 32], mean[6], var[6]
    c["layernorm_f32"] = [] {
        LayerNormTiling t;
        uint32_t maxTmp = 0, minTmp = 0;
        GetLayerNormMaxMinTmpSize(ge::Shape({2, 3, 32}), 4, false, maxTmp, minTmp);
        GetLayerNormNDTilingInfo(ge::Shape({2, 3, 32}), minTmp, 4, false, t);
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, bg, bb, by, bm, bv, tmp;
        pipe.InitBuffer(bx, 6 * 32 * 4);
        pipe.InitBuffer(bg, 32 * 4);
        pipe.InitBuffer(bb, 32 * 4);
        pipe.InitBuffer(by, 6 * 32 * 4);
        pipe.InitBuffer(bm, 8 * 4);
        pipe.InitBuffer(bv, 8 * 4);
        pipe.InitBuffer(tmp, minTmp);
        auto x = bx.Get<float>(), g = bg.Get<float>(), b = bb.Get<float>(), y = by.Get<float>();
        auto m = bm.Get<float>(), v = bv.Get<float>();
        fill(x, 6 * 32);
        fill(g, 32, 6 * 32);
        fill(b, 32, 7 * 32);
        LayerNorm<float>(y, m, v, x, g, b, tmp.Get<uint8_t>(), 1e-5f, t);
        put(y, 6 * 32);
        put(m, 6);
        put(v, 6);
    };
    // x: [4, 48] rows (40 valid columns), then gamma[48]; out: y[4, 48] as half
    c["rmsnorm_f16"] = [] {
        RmsNormTiling t;
        uint32_t maxTmp = 0, minTmp = 0;
        if (!GetRmsNormMaxMinTmpSize(ge::Shape({4, 48}), 2, maxTmp, minTmp) ||
            !GetRmsNormTilingInfo(ge::Shape({4, 48}), ge::Shape({4, 40}), maxTmp, 2, t))
            kernelgen::fail("tiling-failed", "RmsNorm tiling helpers refused the shape", __FILE__, __LINE__);
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, bg, by;
        pipe.InitBuffer(bx, 4 * 48 * 2);
        pipe.InitBuffer(bg, 48 * 2);
        pipe.InitBuffer(by, 4 * 48 * 2);
        auto x = bx.Get<half>(), g = bg.Get<half>(), y = by.Get<half>();
        fill(x, 4 * 48);
        fill(g, 48, 4 * 48);
        Duplicate(y, half(0.0f), 4 * 48);
        RmsNorm<half>(y, x, g, half(1e-6f), t);
        put(y, 4 * 48);
    };
    // x: 128 floats (2 repeats); out: 64 pair sums
    c["pair_reduce_sum"] = [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, by;
        pipe.InitBuffer(bx, 128 * 4);
        pipe.InitBuffer(by, 64 * 4);
        auto x = bx.Get<float>(), y = by.Get<float>();
        fill(x, 128);
        PairReduceSum(y, x, 2, 64, 1, 1, 8);
        put(y, 64);
    };
    // x: 128 floats; out: even lanes (pattern 1), then lanes whose bit is set in a pattern
    // tensor (bits 0,1 of every 4 in repeat 0, reused for repeat 1), counts as floats
    c["gather_mask"] = [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, by, bp;
        pipe.InitBuffer(bx, 128 * 4);
        pipe.InitBuffer(by, 128 * 4);
        pipe.InitBuffer(bp, 32);
        auto x = bx.Get<float>(), y = by.Get<float>();
        auto pat = bp.Get<uint32_t>();
        fill(x, 128);
        uint64_t kept = 0;
        GatherMask(y, x, 1, false, 0, GatherMaskParams(1, 2, 8, 0), kept);
        put(y, kept);
        float k1 = static_cast<float>(kept);
        pat.SetValue(0, 0x33333333u);
        pat.SetValue(1, 0x33333333u);
        PipeBarrier<PIPE_ALL>();
        GatherMask(y, x, pat, false, 0, GatherMaskParams(1, 2, 8, 0), kept);
        put(y, kept);
        float counts[2] = {k1, static_cast<float>(kept)};
        const auto* p = reinterpret_cast<const uint8_t*>(counts);
        g_out.insert(g_out.end(), p, p + sizeof counts);
    };
    // x: 512 values as half (two 16 x 16 fractals); out: L0B after the transposing load
    c["load_transpose"] = [] {
        TPipe pipe;
        TBuf<TPosition::B1> l1;
        TBuf<TPosition::B2> l0b;
        TBuf<TPosition::VECCALC> vb;
        pipe.InitBuffer(l1, 512 * 2);
        pipe.InitBuffer(l0b, 512 * 2);
        pipe.InitBuffer(vb, 512 * 2);
        auto src = l1.Get<half>(), dst = l0b.Get<half>();
        for (uint32_t i = 0; i < 512; ++i) src.SetValue(i, half(g_x[i]));
        PipeBarrier<PIPE_ALL>();  // the scalar writes before the load (MTE1), the load before the reads
        LoadDataWithTranspose(dst, src, LoadData2dTransposeParams(0, 2, 1, 0, 0));
        PipeBarrier<PIPE_ALL>();
        auto out = vb.Get<half>();
        for (uint32_t i = 0; i < 512; ++i) out.SetValue(i, dst.GetValue(i));
        put(out, 512);
    };
    // x: 64 floats; out: the high-level Exp (Taylor-level template form) next to the basic one
    c["exp_high_level"] = [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, by, bz, tmp;
        pipe.InitBuffer(bx, 64 * 4);
        pipe.InitBuffer(by, 64 * 4);
        pipe.InitBuffer(bz, 64 * 4);
        pipe.InitBuffer(tmp, 1024);
        auto x = bx.Get<float>(), y = by.Get<float>(), z = bz.Get<float>();
        fill(x, 64);
        Exp<float, 15, false>(y, x, tmp.Get<uint8_t>(), 64);
        Exp(z, x, 64);
        put(y, 64);
        put(z, 64);
    };
    // The whole-tensor forms of the math library (box_iou of DrivingSDK calls Sin(dst, src)):
    // every element of src, with and without a shared buffer, then the count form on 32 of them.
    c["trig_whole_tensor"] = [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, bs, bc, bt, tmp;
        pipe.InitBuffer(bx, 64 * 4);
        pipe.InitBuffer(bs, 64 * 4);
        pipe.InitBuffer(bc, 64 * 4);
        pipe.InitBuffer(bt, 64 * 4);
        pipe.InitBuffer(tmp, 1024);
        auto x = bx.Get<float>(), s = bs.Get<float>(), c = bc.Get<float>(), t = bt.Get<float>();
        fill(x, 64);
        Sin(s, x);
        Cos(c, x, tmp.Get<uint8_t>());
        Tanh(t, x);
        put(s, 64);
        put(c, 64);
        put(t, 64);
        Duplicate(t, 0.0f, 64);
        Tan(t, x, 32);
        put(t, 64);
    };
    // SoftMax over [8, 64] floats with a tiling made for the whole source at once: a buffer of the
    // one-row minimum is short for it.
    c["softmax_short_tmp"] = [] {
        ge::Shape shape({8, 64});
        SoftMaxTiling t;
        SoftMaxTilingFunc(shape, 4, GetSoftMaxMaxTmpSize(shape, 4, false), t);
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, by, bs, bm, tmp;
        pipe.InitBuffer(bx, 8 * 64 * 4);
        pipe.InitBuffer(by, 8 * 64 * 4);
        pipe.InitBuffer(bs, 8 * 32);
        pipe.InitBuffer(bm, 8 * 32);
        pipe.InitBuffer(tmp, GetSoftMaxMinTmpSize(shape, 4, false));
        auto x = bx.Get<float>();
        fill(x, 8 * 64);
        SoftMax<float>(by.Get<float>(), bs.Get<float>(), bm.Get<float>(), x, tmp.Get<uint8_t>(), t);  // BUG: softmax_short_tmp
    };
    c["softmax_unfilled_tiling"] = [] {
        SoftMaxTiling t;  // srcM/srcK set by hand: no split, as SoftMaxTilingFunc would give
        t.srcM = 8;
        t.srcK = 64;
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, by, bs, bm;
        pipe.InitBuffer(bx, 8 * 64 * 4);
        pipe.InitBuffer(by, 8 * 64 * 4);
        pipe.InitBuffer(bs, 8 * 32);
        pipe.InitBuffer(bm, 8 * 32);
        auto x = bx.Get<float>();
        fill(x, 8 * 64);
        SoftMax<float>(by.Get<float>(), bs.Get<float>(), bm.Get<float>(), x, t);  // BUG: softmax_unfilled_tiling
    };
    c["layernorm_short_tmp"] = [] {
        LayerNormTiling t;
        uint32_t maxTmp = 0, minTmp = 0;
        GetLayerNormMaxMinTmpSize(ge::Shape({2, 3, 32}), 4, false, maxTmp, minTmp);
        GetLayerNormNDTilingInfo(ge::Shape({2, 3, 32}), maxTmp, 4, false, t);  // all 6 rows at once
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, bg, bb, by, bm, bv, tmp;
        pipe.InitBuffer(bx, 6 * 32 * 4);
        pipe.InitBuffer(bg, 32 * 4);
        pipe.InitBuffer(bb, 32 * 4);
        pipe.InitBuffer(by, 6 * 32 * 4);
        pipe.InitBuffer(bm, 8 * 4);
        pipe.InitBuffer(bv, 8 * 4);
        pipe.InitBuffer(tmp, minTmp);
        auto x = bx.Get<float>(), g = bg.Get<float>(), b = bb.Get<float>();
        fill(x, 6 * 32);
        fill(g, 32, 6 * 32);
        fill(b, 32, 7 * 32);
        LayerNorm<float>(by.Get<float>(), bm.Get<float>(), bv.Get<float>(), x, g, b, tmp.Get<uint8_t>(), 1e-5f, t);  // BUG: layernorm_short_tmp
    };
    c["rmsnorm_untiled"] = [] {
        RmsNormTiling t{};
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        auto x = b.Get<float>();
        RmsNorm<float>(x, x, x, 1e-6f, t);  // BUG: rmsnorm_untiled
    };
    return c;
}

int main(int argc, char** argv) {
    auto all = cases();
    const auto& chosen = tio::select_case(all, argc, argv, {5}, "norm_apis CASE x.bin out.bin report");
    auto bytes = tio::read_bytes(argv[2]);
    g_x.resize(bytes.size() / 4);
    std::memcpy(g_x.data(), bytes.data(), g_x.size() * 4);
    tio::run(1, argv[4], chosen);
    tio::write_bytes(argv[3], g_out.data(), g_out.size());
    return 0;
}
