// The DropOut high-level API (byte and bit masks, with and without dirty mask data, the mode
// inferred from the shape) and its documented limits: `dropout CASE x.bin mask.bin out.bin report`.
// x holds float32 inputs (cast to the case's element type), mask.bin the uint8_t mask bytes; each
// case writes dst and then the mask as it is after the call to out.bin, for the Python side to
// compare with values it computes itself.
#include <functional>
#include <map>

#include "test_io.h"

using namespace AscendC;

static std::vector<float> g_x;
static std::vector<uint8_t> g_mask;
static std::vector<uint8_t> g_out;

template <class T>
static void put(const LocalTensor<T>& t, uint64_t n) {
    const auto* p = reinterpret_cast<const uint8_t*>(t.data());
    g_out.insert(g_out.end(), p, p + n * sizeof(T));
}

static void chip(const char* name, uint32_t cce_aicore) {
    auto& c = kernelgen::chip();
    c.name = name;
    c.cce_aicore = cce_aicore;
    c.has_bf16 = cce_aicore == 220;
}

// src (x), dst (y: its own buffer, or x in place), the mask (rows of m bytes) and a scratch buffer.
template <class T>
struct Tiles {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bm, bt;
    LocalTensor<T> x, y;
    LocalTensor<uint8_t> mask, tmp;
    DropOutShapeInfo info;
    uint32_t rows, s, m;
    Tiles(uint32_t rows_, uint32_t s_, uint32_t m_, bool inplace = false) : rows(rows_), s(s_), m(m_) {
        pipe.InitBuffer(bx, (rows * s * sizeof(T) + 31) / 32 * 32);
        pipe.InitBuffer(by, (rows * s * sizeof(T) + 31) / 32 * 32);
        pipe.InitBuffer(bm, (rows * m + 31) / 32 * 32);
        pipe.InitBuffer(bt, 1024);
        x = bx.Get<T>();
        y = inplace ? x : by.Get<T>();
        mask = bm.Get<uint8_t>();
        tmp = bt.Get<uint8_t>();
        for (uint32_t i = 0; i < rows * s; ++i) x.SetValue(i, static_cast<T>(g_x[i]));
        for (uint32_t i = 0; i < rows * m; ++i) mask.SetValue(i, g_mask[i]);
        info.firstAxis = rows;
        info.srcLastAxis = s;
        info.maskLastAxis = m;
        PipeBarrier<PIPE_ALL>();
    }
    void out() {
        PipeBarrier<PIPE_ALL>();
        put(y, uint64_t(rows) * s);
        put(mask, uint64_t(rows) * m);
    }
};

// One call with dropOutMode `mode` (with the scratch buffer or without), its results written.
template <class T, uint32_t mode, bool tmp = true>
static void drop(uint32_t rows, uint32_t s, uint32_t m, float keep, bool inplace = false) {
    Tiles<T> t(rows, s, m, inplace);
    if constexpr (tmp)
        DropOut<T, false, mode>(t.y, t.x, t.mask, t.tmp, keep, t.info);
    else
        DropOut<T, false, mode>(t.y, t.x, t.mask, keep, t.info);
    t.out();
}

static std::map<std::string, std::function<void()>> cases() {
    std::map<std::string, std::function<void()>> c;
    // The four modes on float, then half in place (bit mode) and half byte mode with isInitBitMode.
    c["byte_clean"] = [] { drop<float, 2, false>(4, 16, 16, 0.5f); };
    c["byte_dirty"] = [] { drop<float, 1>(4, 16, 32, 0.25f); };
    c["bit_clean"] = [] { drop<float, 3>(4, 64, 8, 0.8f); };
    c["bit_dirty"] = [] { drop<float, 4>(4, 32, 32, 0.6f); };
    c["half_bit_inplace"] = [] { drop<half, 3>(2, 128, 16, 0.7f, true); };
    c["half_byte_init"] = [] {
        Tiles<half> t(3, 32, 32);
        DropOut<half, true>(t.y, t.x, t.mask, 0.9f, t.info);
        t.out();
    };
    // dropOutMode 0: the mode inferred from the shape.
    c["infer_byte_clean"] = [] { drop<float, 0>(4, 16, 16, 0.5f); };
    c["infer_bit_clean"] = [] { drop<float, 0>(4, 64, 8, 0.5f); };
    c["infer_byte_dirty"] = [] { drop<float, 0, false>(4, 16, 32, 0.5f); };
    c["infer_bit_dirty"] = [] { drop<float, 0>(4, 64, 32, 0.5f); };
    // The reference's example (byte mode, 32 floats, keepProb 0.5) and one bit-mode byte.
    c["doc_example"] = [] { drop<float, 0>(1, 32, 32, 0.5f); };
    c["one_byte_bits"] = [] { drop<float, 3>(1, 8, 1, 0.5f); };
    // The Atlas inference series AI Core has DropOut too.
    c["on_310p"] = [] {
        chip("ascend310p", 200);
        drop<float, 3>(4, 64, 8, 0.8f);
    };
    // keepProb 1 (outside the documented (0, 1)) runs, with a warning: the masked copy.
    c["keep_one"] = [] { drop<float, 2>(4, 16, 16, 1.0f); };

    // Errors, each at its marker line.
    c["bad_mode"] = [] {
        Tiles<float> t(4, 16, 16);
        DropOut<float, false, 5>(t.y, t.x, t.mask, 0.5f, t.info);  // BUG: bad_mode
    };
    c["keep_zero"] = [] {
        Tiles<float> t(4, 16, 16);
        DropOut(t.y, t.x, t.mask, 0.0f, t.info);  // BUG: keep_zero
    };
    c["keep_above_one"] = [] {
        Tiles<float> t(4, 16, 16);
        DropOut(t.y, t.x, t.mask, t.tmp, 1.5f, t.info);  // BUG: keep_above_one
    };
    c["zero_axis"] = [] {
        Tiles<float> t(4, 16, 16);
        t.info.firstAxis = 0;
        DropOut(t.y, t.x, t.mask, 0.5f, t.info);  // BUG: zero_axis
    };
    c["mode2_shape"] = [] {
        Tiles<float> t(4, 16, 32);
        DropOut<float, false, 2>(t.y, t.x, t.mask, 0.5f, t.info);  // BUG: mode2_shape
    };
    c["mode3_shape"] = [] {
        Tiles<float> t(4, 64, 32);
        DropOut<float, false, 3>(t.y, t.x, t.mask, 0.5f, t.info);  // BUG: mode3_shape
    };
    c["bit_cols"] = [] {
        Tiles<float> t(2, 12, 32);
        DropOut<float, false, 4>(t.y, t.x, t.mask, 0.5f, t.info);  // BUG: bit_cols
    };
    c["odd_valid"] = [] {
        Tiles<float> t(2, 15, 32);
        DropOut<float, false, 1>(t.y, t.x, t.mask, 0.5f, t.info);  // BUG: odd_valid
    };
    c["dirty_unpadded"] = [] {
        Tiles<float> t(2, 64, 16);
        DropOut<float, false, 4>(t.y, t.x, t.mask, 0.5f, t.info);  // BUG: dirty_unpadded
    };
    c["mask_too_short"] = [] {
        Tiles<float> t(2, 64, 4);
        DropOut(t.y, t.x, t.mask, 0.5f, t.info);  // BUG: mask_too_short
    };
    c["int32"] = [] {
        Tiles<int32_t> t(2, 16, 16);
        DropOut(t.y, t.x, t.mask, 0.5f, t.info);  // BUG: int32
    };
    c["on_910"] = [] {
        chip("ascend910", 100);
        Tiles<float> t(4, 16, 16);
        DropOut(t.y, t.x, t.mask, 0.5f, t.info);  // BUG: on_910
    };
    c["overlap"] = [] {
        Tiles<float> t(4, 16, 16);
        t.info.firstAxis = 3;
        DropOut(t.x[8], t.x, t.mask, 0.5f, t.info);  // BUG: overlap
    };
    return c;
}

int main(int argc, char** argv) {
    auto all = cases();
    const auto& chosen =
        tio::select_case(all, argc, argv, {6}, "dropout CASE x.bin mask.bin out.bin report");
    auto bytes = tio::read_bytes(argv[2]);
    g_x.resize(bytes.size() / 4);
    std::memcpy(g_x.data(), bytes.data(), g_x.size() * 4);
    g_mask = tio::read_bytes(argv[3]);
    tio::run(1, argv[5], chosen);
    tio::write_bytes(argv[4], g_out.data(), g_out.size());
    return 0;
}
