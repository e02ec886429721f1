// The pattern form of the high-level reductions (ReduceSum/Max/Min/Mean/Prod/All/Any with
// AscendC::Pattern::Reduce::AR or RA) and Broadcast, the current spelling of BroadCast:
// `reduce_pattern CASE x.bin out.bin report`. x holds float32 inputs; each case writes its
// results to out.bin for the Python side to compare with values it computes itself.
#include <functional>
#include <map>

#include "test_io.h"

using namespace AscendC;

static std::vector<float> g_x;
static std::vector<uint8_t> g_out;

template <class T>
static void put(const LocalTensor<T>& t, uint64_t n) {
    const auto* p = reinterpret_cast<const uint8_t*>(t.data());
    g_out.insert(g_out.end(), p, p + n * sizeof(T));
}

// Rows of `cols` inputs into a tile whose rows are `stride` elements apart (the padding is -1000,
// so a reduction that reads it shows).
template <class T>
static void fill_rows(const LocalTensor<T>& t, uint32_t rows, uint32_t cols, uint32_t stride) {
    for (uint32_t i = 0; i < rows; ++i)
        for (uint32_t j = 0; j < stride; ++j)
            t.SetValue(i * stride + j, static_cast<T>(j < cols ? g_x[i * cols + j] : -1000.0f));
    PipeBarrier<PIPE_ALL>();
}

// x: a [5, 13] float matrix; rows padded to 16 in UB; reduced by `pattern` with every op.
template <class pattern>
static void all_ops() {
    constexpr uint32_t R = 5, C = 13, S = 16, A = std::is_same_v<pattern, Pattern::Reduce::AR> ? R : C;
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, tmp;
    pipe.InitBuffer(bx, R * S * 4);
    pipe.InitBuffer(by, 16 * 4);
    pipe.InitBuffer(tmp, 4096);
    auto x = bx.Get<float>(), y = by.Get<float>();
    auto t = tmp.Get<uint8_t>();
    fill_rows(x, R, C, S);
    uint32_t shape[] = {R, C};
    ReduceSum<float, pattern>(y, x, t, shape, true);
    put(y, A);
    ReduceSum<float, pattern, true>(y, x, shape, true);  // no sharedTmpBuffer
    put(y, A);
    ReduceMax<float, pattern>(y, x, t, shape, true);
    put(y, A);
    ReduceMin<float, pattern>(y, x, t, shape, true);
    put(y, A);
    ReduceMean<float, pattern>(y, x, t, shape, true);
    put(y, A);
    ReduceProd<float, pattern>(y, x, t, shape, true);
    put(y, A);
}

static std::map<std::string, std::function<void()>> cases() {
    std::map<std::string, std::function<void()>> c;
    c["ar"] = [] { all_ops<Pattern::Reduce::AR>(); };
    c["ra"] = [] { all_ops<Pattern::Reduce::RA>(); };
    // x: [3, 40] of 0/1 as uint8_t (rows of 40 bytes padded to 64); out: All then Any, AR then RA
    c["all_any_u8"] = [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, by, tmp;
        pipe.InitBuffer(bx, 3 * 64);
        pipe.InitBuffer(by, 64);
        pipe.InitBuffer(tmp, 4096);
        auto x = bx.Get<uint8_t>(), y = by.Get<uint8_t>();
        for (uint32_t i = 0; i < 3; ++i)
            for (uint32_t j = 0; j < 64; ++j) x.SetValue(i * 64 + j, j < 40 ? uint8_t(g_x[i * 40 + j]) : uint8_t(7));
        PipeBarrier<PIPE_ALL>();
        uint32_t shape[] = {3, 40};
        ReduceAll<uint8_t, Pattern::Reduce::AR>(y, x, tmp.Get<uint8_t>(), shape, true);
        put(y, 3);
        ReduceAny<uint8_t, Pattern::Reduce::AR>(y, x, shape, true);
        put(y, 3);
        ReduceAll<uint8_t, Pattern::Reduce::RA>(y, x, shape, true);
        put(y, 40);
        ReduceAny<uint8_t, Pattern::Reduce::RA>(y, x, tmp.Get<uint8_t>(), shape, true);
        put(y, 40);
    };
    // The count form still resolves next to the pattern form: x[0..20) summed, max with index.
    c["count_form"] = [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, by, bw;
        pipe.InitBuffer(bx, 32 * 4);
        pipe.InitBuffer(by, 8 * 4);
        pipe.InitBuffer(bw, 32 * 4);
        auto x = bx.Get<float>(), y = by.Get<float>(), w = bw.Get<float>();
        fill_rows(x, 1, 20, 32);
        ReduceSum(y, x, w, 20);
        put(y, 1);
        ReduceMax<float>(y, x, w, 20, true);
        put(y, 2);
    };
    // Broadcast (current name): x[0..4) as [4, 1] to [4, 8], then x[0..8) as [1, 8] to [4, 8];
    // BroadCast (CANN 8.0 name) gives the same.
    c["broadcast"] = [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bs, bd, tmp;
        pipe.InitBuffer(bs, 8 * 4);
        pipe.InitBuffer(bd, 32 * 4);
        pipe.InitBuffer(tmp, 1024);
        auto s = bs.Get<float>(), d = bd.Get<float>();
        fill_rows(s, 1, 8, 8);
        uint32_t dstShape[] = {4, 8}, col[] = {4, 1}, row[] = {1, 8};
        Broadcast<float, 2, 1>(d, s, dstShape, col);
        put(d, 32);
        LocalTensor<uint8_t> t = tmp.Get<uint8_t>();
        Broadcast<float, 2, 0>(d, s, dstShape, row, t);
        put(d, 32);
        BroadCast<float, 2, 1>(d, s, dstShape, col);
        put(d, 32);
    };
    // srcInnerPad = false over rows of whole 32-byte blocks: the same layout padded or not, a
    // warning (RecSDK in_linear_silu_backward).
    c["unpadded_aligned"] = [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, by;
        pipe.InitBuffer(bx, 4 * 16 * 4);
        pipe.InitBuffer(by, 16 * 4);
        auto x = bx.Get<float>(), y = by.Get<float>();
        fill_rows(x, 4, 16, 16);
        uint32_t shape[] = {4, 16};
        ReduceSum<float, Pattern::Reduce::RA>(y, x, shape, false);  // WARN: unpadded_aligned
        put(y, 16);
    };
    // Errors, each at its marker line.
    c["unpadded"] = [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, by;
        pipe.InitBuffer(bx, 64 * 4);
        pipe.InitBuffer(by, 8 * 4);
        uint32_t shape[] = {4, 13};
        ReduceSum<float, Pattern::Reduce::AR>(by.Get<float>(), bx.Get<float>(), shape, false);  // BUG: unpadded
    };
    c["half_sum"] = [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, by;
        pipe.InitBuffer(bx, 64 * 2);
        pipe.InitBuffer(by, 16 * 2);
        uint32_t shape[] = {4, 16};
        ReduceSum<half, Pattern::Reduce::AR>(by.Get<half>(), bx.Get<half>(), shape, true);  // BUG: half_sum
    };
    c["overlap"] = [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx;
        pipe.InitBuffer(bx, 64 * 4);
        auto x = bx.Get<float>();
        uint32_t shape[] = {4, 16};
        ReduceMax<float, Pattern::Reduce::RA>(x, x, shape, true);  // BUG: overlap
    };
    c["bad_broadcast"] = [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bs, bd;
        pipe.InitBuffer(bs, 8 * 4);
        pipe.InitBuffer(bd, 32 * 4);
        uint32_t dstShape[] = {4, 8}, srcShape[] = {2, 1};
        Broadcast<float, 2, 1>(bd.Get<float>(), bs.Get<float>(), dstShape, srcShape);  // BUG: bad_broadcast
    };
    return c;
}

int main(int argc, char** argv) {
    auto all = cases();
    const auto& chosen = tio::select_case(all, argc, argv, {5}, "reduce_pattern CASE x.bin out.bin report");
    auto bytes = tio::read_bytes(argv[2]);
    g_x.resize(bytes.size() / 4);
    std::memcpy(g_x.data(), bytes.data(), g_x.size() * 4);
    tio::run(1, argv[4], chosen);
    tio::write_bytes(argv[3], g_out.data(), g_out.size());
    return 0;
}
