// Reductions, Compare/Select, mask/repeat forms with strides, and data movement forms:
// `vecforms CASE DTYPE N BLOCKS x y out report`. x and y (N elements each) are copied to UB;
// z (N elements) is filled with -7, then the case runs. Cases that return true wrote GM
// themselves; otherwise z is copied out.
#include <map>

#include "test_io.h"

using namespace AscendC;

template <class T>
struct Ctx {
    uint32_t n;
    GlobalTensor<T> gx, gy, gz;
    LocalTensor<T> x, y, z, tmp;
    LocalTensor<uint8_t> bits;
};

template <class T>
using CaseFn = bool (*)(Ctx<T>&);

// The n/8 mask bytes into z as T: uint8_t -> half is the documented Cast (there is no
// uint8_t -> float), then half -> float.
template <class T>
void bits_out(Ctx<T>& c) {
    if constexpr (std::is_same_v<T, half>) {
        Cast(c.z, c.bits, RoundMode::CAST_NONE, c.n / 8);
    } else {
        auto h = c.tmp.template ReinterpretCast<half>();
        Cast(h, c.bits, RoundMode::CAST_NONE, c.n / 8);
        Cast(c.z, h, RoundMode::CAST_NONE, c.n / 8);
    }
}

constexpr uint64_t kAlt[2] = {0x5555555555555555ull, 0x00000000FFFF0000ull};

template <class T>
std::map<std::string, CaseFn<T>> table() {
    constexpr uint32_t per = 256 / sizeof(T);
    (void)per;
    return {
        {"reduce_sum", [](Ctx<T>& c) { ReduceSum(c.z, c.x, c.tmp, c.n - 24); return false; }},
        {"reduce_max", [](Ctx<T>& c) { ReduceMax(c.z, c.x, c.tmp, c.n - 24, true); return false; }},
        {"reduce_min", [](Ctx<T>& c) { ReduceMin(c.z, c.x, c.tmp, c.n - 24, true); return false; }},
        // bit-mask form (Ascend/samples ReduceMin: the first 4 lanes of each repeat)
        {"reduce_min_bits", [](Ctx<T>& c) { const uint64_t m[2] = {0xFull, 0}; ReduceMin(c.z, c.x, c.tmp, m, 2, 8, true); return false; }},
        {"whole_reduce_sum", [](Ctx<T>& c) { WholeReduceSum(c.z, c.x, 256 / sizeof(T), c.n / (256 / sizeof(T)), 1, 1, 8); return false; }},
        {"whole_reduce_max", [](Ctx<T>& c) { WholeReduceMax(c.z, c.x, 50, 4, 1, 1, 8); return false; }},
        {"whole_reduce_min_value", [](Ctx<T>& c) { WholeReduceMin(c.z, c.x, 256 / sizeof(T), 4, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE); return false; }},
        {"block_reduce_sum", [](Ctx<T>& c) { BlockReduceSum(c.z, c.x, 4, 256 / sizeof(T), 1, 1, 8); return false; }},
        {"block_reduce_max", [](Ctx<T>& c) { BlockReduceMax(c.z, c.x, 4, 256 / sizeof(T), 1, 1, 8); return false; }},
        {"compare_lt", [](Ctx<T>& c) { Compare(c.bits, c.x, c.y, CMPMODE::LT, c.n); Duplicate(c.z, T(0), c.n); bits_out(c); return false; }},
        {"compare_ge", [](Ctx<T>& c) { Compare(c.bits, c.x, c.y, CMPMODE::GE, c.n); Duplicate(c.z, T(0), c.n); bits_out(c); return false; }},
        {"compare_eq", [](Ctx<T>& c) { Compare(c.bits, c.x, c.x, CMPMODE::EQ, c.n); Duplicate(c.z, T(0), c.n); bits_out(c); return false; }},
        {"compare_lt_mask_count", [](Ctx<T>& c) { Compare(c.bits, c.x, c.y, CMPMODE::LT, uint64_t(256 / sizeof(T)), int64_t(c.n / (256 / sizeof(T))), BinaryRepeatParams(1, 1, 1, 8, 8, 8)); Duplicate(c.z, T(0), c.n); bits_out(c); return false; }},
        {"compare_lt_mask_bits", [](Ctx<T>& c) { const uint64_t all[2] = {~0ull, sizeof(T) == 2 ? ~0ull : 0ull}; Compare(c.bits, c.x, c.y, CMPMODE::LT, all, int64_t(c.n / (256 / sizeof(T))), BinaryRepeatParams(1, 1, 1, 8, 8, 8)); Duplicate(c.z, T(0), c.n); bits_out(c); return false; }},
        {"compare_scalar_gt", [](Ctx<T>& c) { CompareScalar(c.bits, c.x, T(0.5), CMPMODE::GT, c.n); Duplicate(c.z, T(0), c.n); bits_out(c); return false; }},
        // mask forms (msda.h: CompareScalar<float, uint8_t, false>(..., MASK_PLACEHOLDER, rpt, {1, 1, 8, 8}))
        {"compare_scalar_gt_mask_count", [](Ctx<T>& c) { CompareScalar(c.bits, c.x, T(0.5), CMPMODE::GT, uint64_t(256 / sizeof(T)), int64_t(c.n / (256 / sizeof(T))), UnaryRepeatParams(1, 1, 8, 8)); Duplicate(c.z, T(0), c.n); bits_out(c); return false; }},
        {"compare_scalar_gt_mask_bits", [](Ctx<T>& c) { const uint64_t all[2] = {~0ull, sizeof(T) == 2 ? ~0ull : 0ull}; CompareScalar(c.bits, c.x, T(0.5), CMPMODE::GT, all, int64_t(c.n / (256 / sizeof(T))), UnaryRepeatParams(1, 1, 8, 8)); Duplicate(c.z, T(0), c.n); bits_out(c); return false; }},
        {"select_tensor", [](Ctx<T>& c) { Compare(c.bits, c.x, c.y, CMPMODE::LT, c.n); Select(c.z, c.bits, c.x, c.y, SELMODE::VSEL_TENSOR_TENSOR_MODE, c.n); return false; }},
        {"select_scalar", [](Ctx<T>& c) { CompareScalar(c.bits, c.x, T(0), CMPMODE::GT, c.n); Select(c.z, c.bits, c.x, T(0), SELMODE::VSEL_TENSOR_SCALAR_MODE, c.n); return false; }},
        {"select_spr", [](Ctx<T>& c) { Compare(c.bits, c.x, c.y, CMPMODE::LT, c.n); Select(c.z, c.bits, c.x, c.y, SELMODE::VSEL_CMPMASK_SPR, c.n); return false; }},
        {"select_bytes_mask", [](Ctx<T>& c) {
             // mask rows of 64 bytes over 4 rows of 32 elements: nonzero -> scalar 5
             for (uint32_t i = 0; i < 256; ++i) c.bits.SetValue(i, static_cast<uint8_t>((i * 7) % 3));
             PipeBarrier<PIPE_ALL>();
             SelectWithBytesMaskShapeInfo info;
             info.firstAxis = 4; info.srcLastAxis = 32; info.maskLastAxis = 64;
             SelectWithBytesMask(c.z, c.x, T(5), c.bits, c.bits[256], info); return false; }},
        {"broadcast_rows", [](Ctx<T>& c) {
             const uint32_t dstShape[2] = {8, 32}, srcShape[2] = {8, 1};
             BroadCast<T, 2, 1>(c.z, c.x, dstShape, srcShape); return false; }},
        {"cast_mask_half_out", [](Ctx<T>& c) {
             // float -> half in the mask form: 64 lanes a repeat, dst repeats 4 blocks apart
             auto h = c.z.template ReinterpretCast<half>();
             auto f = c.x.template ReinterpretCast<float>();
             Cast(h, f, RoundMode::CAST_RINT, 64, 2, UnaryRepeatParams(1, 1, 4, 8)); return false; }},
        {"whole_reduce_sum_bits", [](Ctx<T>& c) {
             uint64_t m[2] = {0xFFull, 0};
             WholeReduceSum(c.z, c.x, m, 3, 2, 1, 8); return false; }},
        {"datacopy_pad_left", [](Ctx<T>& c) {
             DataCopyPad(c.tmp, c.gx, DataCopyParams(2, 3 * sizeof(T), 0, 0), DataCopyPadParams(true, 2, 32 / sizeof(T) - 5, 0));
             PipeBarrier<PIPE_ALL>();
             DataCopy(c.z, c.tmp, 2 * 32 / sizeof(T)); return false; }},
        {"add_mask_count", [](Ctx<T>& c) { Add(c.z, c.x, c.y, 40, 4, BinaryRepeatParams(1, 1, 1, 8, 8, 8)); return false; }},
        {"add_mask_bits_strided", [](Ctx<T>& c) {
             uint64_t m[2] = {kAlt[0], sizeof(T) == 2 ? kAlt[1] : 0};
             Add(c.z, c.x, c.y, m, 3, BinaryRepeatParams(2, 1, 1, 16, 8, 16)); return false; }},
        {"add_counter_mode", [](Ctx<T>& c) {
             SetMaskCount();
             SetVectorMask<T, MaskMode::COUNTER>(0, 150);
             Add<T, false>(c.z, c.x, c.y, MASK_PLACEHOLDER, 1, BinaryRepeatParams());
             SetMaskNorm();
             ResetMask();
             return false; }},
        {"mul_placeholder_norm", [](Ctx<T>& c) {
             SetVectorMask<T>(0, 0xF0F0ull);
             Mul<T, false>(c.z, c.x, c.y, MASK_PLACEHOLDER, 2, BinaryRepeatParams());
             ResetMask();
             return false; }},
        {"exp_mask_src_stride", [](Ctx<T>& c) { Exp(c.z, c.x, 256 / sizeof(T), 2, UnaryRepeatParams(1, 2, 8, 16)); return false; }},
        {"adds_mask_bits", [](Ctx<T>& c) {
             uint64_t m[2] = {0xFFull << 8, 0};
             Adds(c.z, c.x, T(1), m, 2, UnaryRepeatParams(1, 1, 4, 8)); return false; }},
        {"axpy_mask_count", [](Ctx<T>& c) { Axpy(c.z, c.x, T(2), 40, 3, UnaryRepeatParams(1, 1, 8, 8)); return false; }},
        {"axpy_mask_bits", [](Ctx<T>& c) {
             uint64_t m[2] = {0xFFull << 8, 0};
             Axpy<T, T, true>(c.z, c.x, T(0.5), m, 2, UnaryRepeatParams(1, 1, 4, 8)); return false; }},
        {"duplicate_mask", [](Ctx<T>& c) { Duplicate(c.z, T(3), 20, 3, 1, 16); return false; }},
        {"brcb", [](Ctx<T>& c) { Brcb(c.z, c.x, 2, BrcbRepeatParams(1, 8)); return false; }},
        {"gather", [](Ctx<T>& c) {
             auto off = c.bits.template ReinterpretCast<uint32_t>();
             for (uint32_t i = 0; i < 64; ++i) off.SetValue(i, ((i * 37) % 64) * sizeof(T));
             PipeBarrier<PIPE_ALL>();
             Gather(c.z, c.x, off, 0, 64); return false; }},
        {"datacopy_params", [](Ctx<T>& c) {
             const uint32_t epb = 32 / sizeof(T);
             DataCopy(c.tmp, c.gx, DataCopyParams(3, 2, 1, 2));  // 3 rows of 2 blocks, GM gap 1, UB gap 2
             PipeBarrier<PIPE_ALL>();
             DataCopy(c.gz[epb], c.tmp, DataCopyParams(2, 1, 3, 0));
             return true; }},
        {"datacopy_pad", [](Ctx<T>& c) {
             // 3 rows of 5 elements, GM rows 7 elements apart; UB rows padded to 32 bytes
             DataCopyPad(c.z, c.gx, DataCopyExtParams(3, 5 * sizeof(T), 2 * sizeof(T), 0, 0),
                         DataCopyPadExtParams<T>(true, 0, 32 / sizeof(T) - 5, T(9)));
             PipeBarrier<PIPE_ALL>();
             DataCopy(c.gz, c.z, 3 * 32 / sizeof(T));
             DataCopyPad(c.gz[64], c.z, DataCopyExtParams(3, 5 * sizeof(T), 0, sizeof(T), 0));
             return true; }},
        {"atomic_add", [](Ctx<T>& c) {
             DataCopy(c.tmp, c.gx, 64);
             PipeBarrier<PIPE_ALL>();
             SetAtomicAdd<T>();
             DataCopy(c.gz, c.tmp, 64);  // block 0 filled gz with -7 first
             SetAtomicNone();
             return true; }},
        {"mean_rows", [](Ctx<T>& c) {
             MeanParams p;
             p.outter = 4; p.inner = 64; p.n = 50;
             Mean(c.z, c.x, c.bits, p); return false; }},
        {"init_global_memory", [](Ctx<T>& c) {
             if (GetBlockIdx() == 0) InitGlobalMemory(c.gz[16], 32, T(2));
             return true; }},
        {"sum_rows", [](Ctx<T>& c) {
             SumParams p;
             p.outter = 4; p.inner = 64; p.n = 50;
             Sum(c.z, c.x, c.bits, p); return false; }},
    };
}

template <class T>
int run(char** argv) {
    uint32_t n = static_cast<uint32_t>(std::atoi(argv[3]));
    uint32_t blocks = static_cast<uint32_t>(std::atoi(argv[4]));
    auto all = table<T>();
    auto it = all.find(argv[1]);
    if (it == all.end()) {
        std::fprintf(stderr, "unknown case %s\n", argv[1]);
        return 2;
    }
    tio::Gm x(tio::read_bytes(argv[5]), "x"), y(tio::read_bytes(argv[6]), "y"), z(n * sizeof(T), "z");
    CaseFn<T> fn = it->second;
    tio::run(blocks, argv[8], [&] {
        TPipe pipe;
        TBuf<TPosition::VECIN> bx, by;
        TBuf<TPosition::VECOUT> bz;
        TBuf<TPosition::VECCALC> bt, bb;
        pipe.InitBuffer(bx, n * sizeof(T));
        pipe.InitBuffer(by, n * sizeof(T));
        pipe.InitBuffer(bz, n * sizeof(T));
        pipe.InitBuffer(bt, n * sizeof(T));
        pipe.InitBuffer(bb, n);
        Ctx<T> c{n, {}, {}, {}, bx.Get<T>(), by.Get<T>(), bz.Get<T>(), bt.Get<T>(), bb.Get<uint8_t>()};
        c.gx.SetGlobalBuffer((__gm__ T*)x.addr(), n);
        c.gy.SetGlobalBuffer((__gm__ T*)y.addr(), n);
        c.gz.SetGlobalBuffer((__gm__ T*)z.addr(), n);
        DataCopy(c.x, c.gx, n);
        DataCopy(c.y, c.gy, n);
        Duplicate(c.z, T(-7), n);
        PipeBarrier<PIPE_ALL>();  // the copies in and the fill land before anything reads them
        if (GetBlockIdx() == 0) DataCopy(c.gz, c.z, n);
        PipeBarrier<PIPE_ALL>();  // the copy out of z finishes before a case rewrites z
        if (blocks > 1) SyncAll();  // block 0's fill of gz lands before any block adds into it
        bool wrote = fn(c);
        PipeBarrier<PIPE_ALL>();
        if (!wrote) DataCopy(c.gz, c.z, n);
    });
    tio::write_bytes(argv[7], z.bytes.data(), z.bytes.size());
    return 0;
}

int main(int argc, char** argv) {
    if (argc != 9) {
        std::fprintf(stderr, "usage: vecforms CASE DTYPE N BLOCKS x y out report\n");
        return 2;
    }
    std::string dt = argv[2];
    if (dt == "float32") return run<float>(argv);
    if (dt == "float16") return run<half>(argv);
    std::fprintf(stderr, "unknown dtype %s\n", argv[2]);
    return 2;
}
