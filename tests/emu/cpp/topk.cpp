// The TopK high-level API with its host tiling helpers, as a kernel uses them:
// `topk CASE DTYPE OUTTER,INNER,N,K,LARGEST,INIT,FINISH,TMP x idx fin values indices report`.
// x holds OUTTER * INNER scores of DTYPE (rows padded past N by the caller), idx OUTTER * INNER
// int32 indices (Normal mode reads the first row only), fin 32 bools (one per row). LARGEST,
// INIT (isInitIndex), FINISH (isHasfinish) and TMP (the tmpLocal overload) are 0 or 1. The host
// part runs TopKTilingFunc and GetTopKMaxMinTmpSize; the kernel copies the inputs in, fills the
// outputs with a sentinel (values 7, indices -7) so lanes TopK does not write show, calls TopK
// and copies the whole output buffers out.
// Cases:
//   normal, small    TOPK_NORMAL / TOPK_NSMALL with the configuration given.
//   k_over_n         k = N + 1: must fail with param-range (1 <= k <= n).
//   inner_40         topKInfo.inner 40 (tiling made for 32): must fail with param-range.
//   small_finish     Small mode with isHasfinish: must fail with param-range.
//   tmp_short        tmpLocal one block short of GetTopKMaxMinTmpSize: workspace-size.
//   in_place         dstValueLocal is srcLocal: must fail with operand-overlap.
//   unfilled         a TopkTiling TopKTilingFunc refused (inner 48): prints the helpers' return
//                    values, then TopK must fail with tiling-mismatch.
//   short_info       topKInfo.inner half the tiling's: a warning, and the tiling's lanes sort.
#include <cstdio>
#include <map>
#include <string>

#include "kernel_tiling/kernel_tiling.h"
#include "test_io.h"
#include "tiling/tiling_api.h"

using namespace AscendC;

struct Config {
    int32_t outter, inner, n, k;
    bool largest, init, finish, tmp;
};

static Config parse(const char* s) {
    int v[8] = {};
    if (std::sscanf(s, "%d,%d,%d,%d,%d,%d,%d,%d", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8) {
        std::fprintf(stderr, "bad configuration %s\n", s);
        std::exit(2);
    }
    return {v[0], v[1], v[2], v[3], v[4] != 0, v[5] != 0, v[6] != 0, v[7] != 0};
}

static uint32_t align32(uint32_t bytes) { return (bytes + 31) / 32 * 32; }

template <class T>
struct Bufs {
    LocalTensor<T> x, values;
    LocalTensor<int32_t> idx, indices;
    LocalTensor<bool> fin;
    LocalTensor<uint8_t> tmp;
};

// TopK with the template arguments the configuration names; `mode` and the two flags must be
// compile-time constants, so each combination is its own instantiation.
template <class T, TopKMode mode, bool init, bool finish>
static void call(Bufs<T>& b, const Config& c, const TopkTiling& tiling, const TopKInfo& info, int32_t k) {
    if (c.tmp)
        TopK<T, init, finish, false, mode>(b.values, b.indices, b.x, b.idx, b.fin, b.tmp,  // TOPK_TMP
                                           k, tiling, info, c.largest);
    else
        TopK<T, init, finish, false, mode>(b.values, b.indices, b.x, b.idx, b.fin, k, tiling, info, c.largest);
}

template <class T, TopKMode mode>
static void dispatch(Bufs<T>& b, const Config& c, const TopkTiling& tiling, const TopKInfo& info, int32_t k) {
    if (c.init && c.finish) call<T, mode, true, true>(b, c, tiling, info, k);
    if (c.init && !c.finish) call<T, mode, true, false>(b, c, tiling, info, k);
    if (!c.init && c.finish) call<T, mode, false, true>(b, c, tiling, info, k);
    if (!c.init && !c.finish) call<T, mode, false, false>(b, c, tiling, info, k);
}

template <class T>
static int run(char** argv) {
    const std::string name = argv[1];
    const Config c = parse(argv[3]);
    const TopKMode mode = name == "small" || name == "small_finish" ? TopKMode::TOPK_NSMALL : TopKMode::TOPK_NORMAL;
    const bool small = mode == TopKMode::TOPK_NSMALL;
    // Host: the tiling for the configured shape (inner 48 for `unfilled`).
    const int32_t tiling_inner = name == "unfilled" ? 48 : c.inner;
    platform_ascendc::PlatformAscendC platform;
    TopkTiling tiling;
    uint32_t max_tmp = 0, min_tmp = 0;
    const bool tiled = TopKTilingFunc(platform, tiling_inner, c.outter, c.k, sizeof(T), c.init, mode, c.largest, tiling);
    const bool sized = GetTopKMaxMinTmpSize(platform, tiling_inner, c.outter, false, c.init, mode, c.largest,
                                            sizeof(T), max_tmp, min_tmp);
    std::printf("tiling %d tmp %d %u %u\n", tiled, sized, max_tmp, min_tmp);
    if (name == "unfilled") min_tmp = 1024;

    const uint32_t all = uint32_t(c.outter) * c.inner;
    const uint32_t vstride = small ? c.k : (c.k * sizeof(T) + 31) / 32 * 32 / sizeof(T);
    const uint32_t istride = small ? c.k : (c.k + 7) / 8 * 8;
    const uint32_t vbytes = align32(c.outter * vstride * sizeof(T)), ibytes = align32(c.outter * istride * 4);
    tio::Gm x(tio::read_bytes(argv[4]), "x"), idx(tio::read_bytes(argv[5]), "idx"), fin(tio::read_bytes(argv[6]), "fin");
    tio::Gm values(vbytes, "values"), indices(ibytes, "indices");
    tio::run(1, argv[9], [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, bi, bf, bv, bo, bt;
        pipe.InitBuffer(bx, all * sizeof(T));
        pipe.InitBuffer(bi, all * 4);
        pipe.InitBuffer(bf, 32);
        pipe.InitBuffer(bv, vbytes);
        pipe.InitBuffer(bo, ibytes);
        pipe.InitBuffer(bt, name == "tmp_short" ? min_tmp - 32 : min_tmp);
        Bufs<T> b{bx.Get<T>(), bv.Get<T>(), bi.Get<int32_t>(), bo.Get<int32_t>(), bf.Get<bool>(), bt.Get<uint8_t>()};
        GlobalTensor<T> gx, gv;
        GlobalTensor<int32_t> gi, go;
        GlobalTensor<bool> gf;
        gx.SetGlobalBuffer((__gm__ T*)x.addr(), all);
        gi.SetGlobalBuffer((__gm__ int32_t*)idx.addr(), all);
        gf.SetGlobalBuffer((__gm__ bool*)fin.addr(), 32);
        gv.SetGlobalBuffer((__gm__ T*)values.addr(), vbytes / sizeof(T));
        go.SetGlobalBuffer((__gm__ int32_t*)indices.addr(), ibytes / 4);
        DataCopy(b.x, gx, all);
        DataCopy(b.idx, gi, all);
        DataCopy(b.fin, gf, 32);
        Duplicate(b.values, T(7.0f), vbytes / sizeof(T));
        Duplicate(b.indices, int32_t(-7), ibytes / 4);
        PipeBarrier<PIPE_ALL>();
        TopKInfo info;
        info.outter = c.outter;
        info.inner = name == "inner_40" ? 40 : name == "short_info" ? c.inner / 2 : c.inner;
        info.n = c.n;
        const int32_t k = name == "k_over_n" ? c.n + 1 : c.k;
        if (name == "in_place") {
            TopK<T, false, false, false, TopKMode::TOPK_NORMAL>(b.x, b.indices, b.x, b.idx,  // TOPK_IN_PLACE
                                                                b.fin, k, tiling, info, c.largest);
            return;
        }
        if (small)
            dispatch<T, TopKMode::TOPK_NSMALL>(b, c, tiling, info, k);
        else
            dispatch<T, TopKMode::TOPK_NORMAL>(b, c, tiling, info, k);
        PipeBarrier<PIPE_ALL>();
        DataCopy(gv, b.values, vbytes / sizeof(T));
        DataCopy(go, b.indices, ibytes / 4);
    });
    tio::write_bytes(argv[7], values.bytes.data(), vbytes);
    tio::write_bytes(argv[8], indices.bytes.data(), ibytes);
    return 0;
}

int main(int argc, char** argv) {
    static const std::map<std::string, int> cases = {
        {"normal", 0}, {"small", 0},    {"k_over_n", 0}, {"inner_40", 0},   {"small_finish", 0},
        {"tmp_short", 0}, {"in_place", 0}, {"unfilled", 0}, {"short_info", 0},
    };
    tio::select_case(cases, argc, argv, {10},
                     "topk CASE DTYPE OUTTER,INNER,N,K,LARGEST,INIT,FINISH,TMP x idx fin values indices report");
    const std::string dtype = argv[2];
    if (dtype == "float32") return run<float>(argv);
    if (dtype == "float16") return run<half>(argv);
    std::fprintf(stderr, "dtype must be float32 or float16\n");
    return 2;
}
