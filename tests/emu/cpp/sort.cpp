// Full sorts with the Atlas A2 (score, index) APIs, as real kernels chain them:
// `sort CASE DTYPE N x idx values indices report`. x holds 256 scores (only the first N count),
// idx 256 uint32 indices.
// The kernel loads the scores into a buffer of 32-element repeats and pads the tail past N with
// -inf (every Sort32 repeat sorts exactly 32), sorts, and writes the extracted scores and indices.
// Cases:
//   merge4      N <= 128: Sort32 x4, one MrgSort of four lists of 32 (MrgSort4Info form).
//   repeat2     N <= 256: Sort32 x8, MrgSort repeatTimes 2 over four back-to-back lists of 32
//               (the sortedNum form), then MrgSort of the two runs of 128 (validBit 0b11).
//   full_sort   N <= 256: Sort<T, true> over 8 repeats, then Extract.
//   concat_sort the same on a copy Concat makes (the A2 form: 16 elements per repeat).
//   suspend     N <= 64: Sort32 x2, MrgSort<T, true> of the two runs; prints sortedNum.
//   suspend_info  the same through MrgSort4Info(..., true, ...); prints GetMrgSortResult.
//   layout      N <= 32: Sort32 x1; the values output gets the 32 raw 8-byte structures.
//   overlap     Sort32 whose dst starts inside src0: must fail with operand-overlap.
//   no_sync     N <= 128: like merge4, but Sort32 reads x right after the copy in, unsynchronised.
//   bad_valid   validBit 0b101: must fail with param-range.
#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "test_io.h"

using namespace AscendC;

template <class T>
struct Ctx {
    uint32_t n;
    LocalTensor<T> x, s, m, values;  // scores, Sort32 output, merge output, extracted scores
    LocalTensor<uint32_t> idx, indices;
    GlobalTensor<T> gv;  // the values output, for a case that writes raw structures
};

template <class T>
constexpr uint32_t E = 8 / sizeof(T);  // T elements per (score, index) structure

template <class T>
MrgSortSrcList<T> four_lists(const LocalTensor<T>& t, uint32_t len) {
    return MrgSortSrcList<T>(t, t[len * E<T>], t[2 * len * E<T>], t[3 * len * E<T>]);
}

template <class T>
std::map<std::string, std::function<uint32_t(Ctx<T>&)>> table() {
    return {
        {"merge4", [](Ctx<T>& c) {
             Sort32(c.s, c.x, c.idx, 4);
             const uint16_t lens[4] = {32, 32, 32, 32};
             MrgSort<T>(c.m, four_lists(c.s, 32), {lens, false, 0b1111, 1});
             Extract(c.values, c.indices, c.m, 4);
             return 128u;
         }},
        {"repeat2", [](Ctx<T>& c) {
             Sort32(c.s, c.x, c.idx, 8);
             const uint16_t lens[4] = {32, 32, 32, 32};
             uint32_t sorted[4] = {0, 0, 0, 0};
             MrgSort(c.m, four_lists(c.s, 32), lens, sorted, 0b1111, 2);
             const uint16_t runs[4] = {128, 128, 0, 0};
             MrgSortSrcList<T> two(c.m, c.m[128 * E<T>], LocalTensor<T>(), LocalTensor<T>());
             MrgSort(c.s, two, runs, sorted, 0b11, 1);
             Extract(c.values, c.indices, c.s, 8);
             return 256u;
         }},
        {"concat_sort", [](Ctx<T>& c) {
             Concat(c.m, c.x, c.values, 16);     // 16 elements per repeat; values: the scratch space
             Sort<T, true>(c.s, c.m, c.idx, c.values, 8);
             Extract(c.values, c.indices, c.s, 8);
             return 256u;
         }},
        {"full_sort", [](Ctx<T>& c) {
             Sort<T, true>(c.s, c.x, c.idx, c.m, 8);  // m is the scratch space
             Extract(c.values, c.indices, c.s, 8);
             return 256u;
         }},
        {"suspend", [](Ctx<T>& c) {
             Duplicate(c.m, T(0), 64 * E<T>);  // Extract reads past what the suspended merge wrote
             Sort32(c.s, c.x, c.idx, 2);
             const uint16_t lens[4] = {32, 32, 0, 0};
             uint32_t sorted[4] = {0, 0, 0, 0};
             MrgSortSrcList<T> two(c.s, c.s[32 * E<T>], LocalTensor<T>(), LocalTensor<T>());
             MrgSort<T, true>(c.m, two, lens, sorted, 0b11, 1);
             std::printf("sortedNum %u %u %u %u\n", sorted[0], sorted[1], sorted[2], sorted[3]);
             Extract(c.values, c.indices, c.m, 2);
             return sorted[0] + sorted[1];
         }},
        // the MrgSort4Info form, whose counts GetMrgSortResult reads (DrivingSDK unique_v2)
        {"suspend_info", [](Ctx<T>& c) {
             Duplicate(c.m, T(0), 64 * E<T>);
             Sort32(c.s, c.x, c.idx, 2);
             const uint16_t lens[4] = {32, 32, 0, 0};
             MrgSortSrcList<T> two(c.s, c.s[32 * E<T>], LocalTensor<T>(), LocalTensor<T>());
             MrgSort(c.m, two, MrgSort4Info(lens, true, 0b11, 1));
             uint16_t n0 = 9, n1 = 9, n2 = 9, n3 = 9;
             GetMrgSortResult(n0, n1, n2, n3);
             std::printf("sortedNum %u %u %u %u\n", n0, n1, n2, n3);
             Extract(c.values, c.indices, c.m, 2);
             return uint32_t(n0) + n1;
         }},
        {"layout", [](Ctx<T>& c) {
             Sort32(c.s, c.x, c.idx, 1);
             PipeBarrier<PIPE_ALL>();
             DataCopy(c.gv, c.s, 32 * E<T>);  // the 32 structures, raw
             return 0u;
         }},
        {"overlap", [](Ctx<T>& c) {
             Sort32(c.x[16], c.x, c.idx, 1);  // dst starts inside src0
             return 0u;
         }},
        {"bad_valid", [](Ctx<T>& c) {
             Sort32(c.s, c.x, c.idx, 4);
             const uint16_t lens[4] = {32, 32, 32, 32};
             MrgSort<T>(c.m, four_lists(c.s, 32), {lens, false, 0b101, 1});
             return 0u;
         }},
    };
}

template <class T>
int run(int argc, char** argv) {
    auto all = table<T>();
    all["no_sync"] = [](Ctx<T>&) { return 0u; };  // the unsynchronised Sort32 runs before the case
    auto fn = tio::select_case(all, argc, argv, {9}, "sort CASE DTYPE N x idx values indices report");
    constexpr uint32_t cap = 256;  // elements: 8 repeats of 32
    const uint32_t n = static_cast<uint32_t>(std::atoi(argv[3]));
    if (n == 0 || n > cap) {
        std::fprintf(stderr, "N must be in [1, %u]\n", cap);
        return 2;
    }
    tio::Gm x(tio::read_bytes(argv[4]), "x"), idx(tio::read_bytes(argv[5]), "idx");
    tio::Gm values(cap * sizeof(T), "values"), indices(cap * sizeof(uint32_t), "indices");
    tio::run(1, argv[8], [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, bs, bm, bv, bi, bo;
        pipe.InitBuffer(bx, cap * sizeof(T));
        pipe.InitBuffer(bs, cap * 8);
        pipe.InitBuffer(bm, cap * 8);
        pipe.InitBuffer(bv, cap * sizeof(T));
        pipe.InitBuffer(bi, cap * sizeof(uint32_t));
        pipe.InitBuffer(bo, cap * sizeof(uint32_t));
        Ctx<T> c{n, bx.Get<T>(), bs.Get<T>(), bm.Get<T>(), bv.Get<T>(), bi.Get<uint32_t>(), bo.Get<uint32_t>(), {}};
        GlobalTensor<T> gx, &gv = c.gv;
        GlobalTensor<uint32_t> gi, go;
        gx.SetGlobalBuffer((__gm__ T*)x.addr(), cap);
        gi.SetGlobalBuffer((__gm__ uint32_t*)idx.addr(), cap);
        gv.SetGlobalBuffer((__gm__ T*)values.addr(), cap);
        go.SetGlobalBuffer((__gm__ uint32_t*)indices.addr(), cap);
        // x has 256 elements; the host fills those past N with 1e4, which the -inf fill replaces.
        DataCopy(c.x, gx, cap);
        DataCopy(c.idx, gi, cap);
        if (std::string(argv[1]) == "no_sync") {
            Sort32(c.s, c.x, c.idx, 4);  // the vector unit reads x before MTE2 has written it
            return;
        }
        PipeBarrier<PIPE_ALL>();
        const uint32_t whole = n / 32 * 32, padded = (n + 31) / 32 * 32;
        if (n < cap) Duplicate(c.x[padded], -std::numeric_limits<float>::infinity(), cap - padded);
        if (whole < n) {  // lanes n-whole .. 31 of the last started group of 32
            const uint64_t mask[2] = {0xFFFFFFFFull & ~((1ull << (n - whole)) - 1), 0};
            Duplicate(c.x[whole], T(-std::numeric_limits<float>::infinity()), mask, 1, 1, 8);
        }
        PipeBarrier<PIPE_ALL>();
        const uint32_t sorted = fn(c);
        PipeBarrier<PIPE_ALL>();
        // Whole blocks of what the case sorted (the suspended merge ends mid-block).
        const uint32_t out = (sorted + 15) / 16 * 16;
        if (out) {
            DataCopy(gv, c.values, out);
            DataCopy(go, c.indices, out);
        }
    });
    tio::write_bytes(argv[6], values.bytes.data(), values.bytes.size());
    tio::write_bytes(argv[7], indices.bytes.data(), indices.bytes.size());
    return 0;
}

int main(int argc, char** argv) {
    if (argc != 9) {
        std::fprintf(stderr, "usage: sort CASE DTYPE N x idx values indices report\n");
        return 2;
    }
    std::string dt = argv[2];
    if (dt == "float32") return run<float>(argc, argv);
    if (dt == "float16") return run<half>(argc, argv);
    std::fprintf(stderr, "unknown dtype %s\n", argv[2]);
    return 2;
}
