// The AscendDequant high-level API in its documented forms (tensor and scalar deqScale, with and
// without sharedTmpBuffer, both DeQuantModes, the deprecated forms without DequantParams) and its
// documented limits: `dequant CASE src.bin scale.bin out.bin report`. src.bin holds the int32_t
// source, scale.bin float32 scales (converted to the case's scale type; a uint64_t scale gets the
// float in its low 32 bits and junk in the high ones); each case writes its whole dst (m rows of
// n_dst elements) to out.bin for the Python side to compare.
#include <functional>
#include <map>

#include "test_io.h"
#include "tiling/tiling_api.h"

using namespace AscendC;

static std::vector<int32_t> g_src;
static std::vector<float> g_scale;
static std::vector<uint8_t> g_out;

static void chip(const char* name, uint32_t cce_aicore) {
    auto& c = kernelgen::chip();
    c.name = name;
    c.cce_aicore = cce_aicore;
    c.has_bf16 = cce_aicore == 220;
}

template <class S>
static S scale_of(float f) {
    if constexpr (std::is_same_v<S, uint64_t>) {
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        return (uint64_t(0xA5A5A5A5u) << 32) | bits;  // control fields the API ignores
    } else {
        return static_cast<S>(f);
    }
}

// UB tiles: src (int32_t), deqScale (S), dst (D) and a scratch buffer, 4 KiB each.
template <class D, class S>
struct Tiles {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bc, bd, bt;
    LocalTensor<int32_t> src;
    LocalTensor<S> scale;
    LocalTensor<D> dst;
    LocalTensor<uint8_t> tmp;
    explicit Tiles(uint32_t scale_elems = 0) {
        pipe.InitBuffer(bs, 4096);
        pipe.InitBuffer(bc, 4096);
        pipe.InitBuffer(bd, 4096);
        pipe.InitBuffer(bt, 4096);
        src = bs.Get<int32_t>();
        scale = scale_elems ? bc.Get<S>(scale_elems) : bc.Get<S>();
        dst = bd.Get<D>();
        tmp = bt.Get<uint8_t>();
        for (uint32_t i = 0; i < g_src.size() && i < src.GetSize(); ++i) src.SetValue(i, g_src[i]);
        for (uint32_t i = 0; i < g_scale.size() && i < scale.GetSize(); ++i) scale.SetValue(i, scale_of<S>(g_scale[i]));
        PipeBarrier<PIPE_ALL>();
    }
    void out(uint64_t elems) {
        PipeBarrier<PIPE_ALL>();
        const auto* p = reinterpret_cast<const uint8_t*>(dst.data());
        g_out.insert(g_out.end(), p, p + elems * sizeof(D));
    }
};

// n rounded up to whole 32-byte blocks of D.
template <class D>
static uint32_t cols(uint32_t n) {
    return (n + 32 / sizeof(D) - 1) / (32 / sizeof(D)) * (32 / sizeof(D));
}

// One call of the tensor-deqScale form on {m, n, cal}, with or without the scratch buffer.
template <class D, class S, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW, bool tmp = true>
static void tensor_form(uint32_t m, uint32_t n, uint32_t cal) {
    Tiles<D, S> t;
    if constexpr (tmp)
        AscendDequant<D, S, mode>(t.dst, t.src, t.scale, t.tmp, {m, n, cal});
    else
        AscendDequant<D, S, mode>(t.dst, t.src, t.scale, {m, n, cal});
    t.out(uint64_t(m) * cols<D>(n));
}

template <class D, class S, bool tmp = true>
static void scalar_form(uint32_t m, uint32_t n, uint32_t cal) {
    Tiles<D, S> t;
    const S s = static_cast<S>(g_scale[0]);
    if constexpr (tmp)
        AscendDequant(t.dst, t.src, s, t.tmp, {m, n, cal});
    else
        AscendDequant(t.dst, t.src, s, {m, n, cal});
    t.out(uint64_t(m) * cols<D>(n));
}

static std::map<std::string, std::function<void()>> cases() {
    std::map<std::string, std::function<void()>> c;
    // Table 3 (tensor deqScale): every documented (dst, deqScale) pair; the reference's example
    // shape {4, 8, 4} and the real kernels' float/bfloat16_t {rows, n, n}.
    c["f32_f32"] = [] { tensor_form<float, float>(4, 8, 4); };
    c["f32_bf16"] = [] { tensor_form<float, bfloat16_t, DeQuantMode::DEQUANT_WITH_SINGLE_ROW, false>(3, 16, 16); };
    c["bf16_bf16"] = [] { tensor_form<bfloat16_t, bfloat16_t>(4, 8, 4); };
    c["bf16_f32"] = [] { tensor_form<bfloat16_t, float, DeQuantMode::DEQUANT_WITH_SINGLE_ROW, false>(2, 24, 20); };
    c["half_u64"] = [] { tensor_form<half, uint64_t>(3, 8, 8); };
    // Table 4 (scalar deqScale).
    c["scalar_f32_f32"] = [] { scalar_form<float, float>(4, 8, 4); };
    c["scalar_bf16_bf16"] = [] { scalar_form<bfloat16_t, bfloat16_t, false>(2, 16, 16); };
    c["scalar_f32_bf16"] = [] { scalar_form<float, bfloat16_t, false>(2, 8, 8); };
    // {1, 16, 8} into float: DEQUANT_WITH_SINGLE_ROW computes two rows of 8, MULTI_ROW one row;
    // {1, 16, 4} is not eligible (4 is no multiple of 32 / sizeof(float)): one row either way.
    c["single_row"] = [] { tensor_form<float, float>(1, 16, 8); };
    c["multi_row"] = [] { tensor_form<float, float, DeQuantMode::DEQUANT_WITH_MULTI_ROW>(1, 16, 8); };
    c["single_row_short"] = [] { tensor_form<float, float>(1, 16, 4); };
    // The deprecated forms: src read flat, deqScale repeating.
    c["deprecated_count"] = [] {
        Tiles<half, uint64_t> t(8);
        AscendDequant(t.dst, t.src, t.scale, t.tmp, 24u);
        t.out(24);
    };
    c["deprecated_whole"] = [] {
        Tiles<float, float> t(8);
        AscendDequant(t.dst, t.src, t.scale);
        t.out(1024);
    };
    // The host helper's range for the reference's example shape (2, 1024), printed; the kernels'
    // way of using it: a sharedTmpBuffer of the minimum.
    c["tmp_size"] = [] {
        uint32_t maxTmp = 0, minTmp = 0;
        GetAscendDequantMaxMinTmpSize(ge::Shape({2, 1024}), sizeof(int32_t), maxTmp, minTmp);
        std::printf("tmp %u %u\n", maxTmp, minTmp);
        Tiles<float, float> t;
        AscendDequant(t.dst, t.src, t.scale, t.tmp, {2, 8, 8});
        t.out(16);
    };
    // The Atlas inference series AI Core (no bfloat16_t).
    c["on_310p"] = [] {
        chip("ascend310p", 200);
        tensor_form<half, uint64_t>(2, 16, 16);
    };

    // Errors, each at its marker line.
    c["n_unaligned"] = [] {
        Tiles<float, float> t;
        AscendDequant(t.dst, t.src, t.scale, {2, 6, 6});  // BUG: n_unaligned
    };
    c["cal_over_n"] = [] {
        Tiles<float, float> t;
        AscendDequant(t.dst, t.src, t.scale, t.tmp, {2, 8, 9});  // BUG: cal_over_n
    };
    c["cal_zero"] = [] {
        Tiles<float, float> t;
        AscendDequant(t.dst, t.src, 1.0f, {2, 8, 0});  // BUG: cal_zero
    };
    c["cal_over_scale"] = [] {
        Tiles<float, float> t(8);
        AscendDequant(t.dst, t.src, t.scale, {2, 16, 16});  // BUG: cal_over_scale
    };
    c["bad_combo"] = [] {
        Tiles<half, float> t;
        AscendDequant(t.dst, t.src, t.scale, {2, 8, 8});  // BUG: bad_combo
    };
    c["bf16_on_310p"] = [] {
        chip("ascend310p", 200);
        Tiles<float, float> t;
        AscendDequant(t.dst, t.src, t.scale.template ReinterpretCast<bfloat16_t>(), {2, 8, 8});  // BUG: bf16_on_310p
    };
    c["on_910"] = [] {
        chip("ascend910", 100);
        Tiles<float, float> t;
        AscendDequant(t.dst, t.src, t.scale, {2, 8, 8});  // BUG: on_910
    };
    c["in_place"] = [] {
        Tiles<float, float> t;
        AscendDequant(t.src.template ReinterpretCast<float>(), t.src, t.scale, {2, 8, 8});  // BUG: in_place
    };
    c["dst_short"] = [] {
        Tiles<bfloat16_t, float> t;
        AscendDequant(t.dst[2032], t.src, t.scale, {4, 8, 8});  // BUG: dst_short
    };
    c["deprecated_not_multiple"] = [] {
        Tiles<half, uint64_t> t(8);
        AscendDequant(t.dst, t.src, t.scale, 12u);  // BUG: deprecated_not_multiple
    };
    return c;
}

int main(int argc, char** argv) {
    auto all = cases();
    const auto& chosen = tio::select_case(all, argc, argv, {6}, "dequant CASE src.bin scale.bin out.bin report");
    auto src = tio::read_bytes(argv[2]);
    g_src.resize(src.size() / 4);
    std::memcpy(g_src.data(), src.data(), g_src.size() * 4);
    auto scale = tio::read_bytes(argv[3]);
    g_scale.resize(scale.size() / 4);
    std::memcpy(g_scale.data(), scale.data(), g_scale.size() * 4);
    tio::run(1, argv[5], chosen);
    tio::write_bytes(argv[4], g_out.data(), g_out.size());
    return 0;
}
