// Basic vocabulary of AscendC device code: qualifiers, element types (half, bfloat16_t),
// positions, enums and the parameter structs of the data-movement and vector APIs.
// Written from the documented behaviour (docs/ASCENDC_SPEC.md sections 1-4), not from vendor headers.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime.h"

// ---------------------------------------------------------------- qualifiers and macros
// Device qualifiers carry no meaning on the CPU. (__inline__ is already a GNU keyword.)
#define __global__
#define __aicore__
#define __gm__
#define __ubuf__
// bisheng's mark on a mix kernel's workspace parameter for the Matmul API's client-server
// messaging (`__kfc_workspace__ GM_ADDR workspace`, Ascend/samples .asc matmul): the emulator's
// Matmul object needs no message area.
#define __kfc_workspace__
// bisheng's spelling of a forced inline (`__forceinline__ [aicore] void f()`; the toolchain blanks
// the `[aicore]` attribute, which g++ cannot parse, in the translation unit it builds).
#ifndef __forceinline__
#define __forceinline__ inline __attribute__((always_inline))
#endif
// Core-type markers on an entry put it in a named section; runtime.h declared_layout() reads
// which exist to launch the right cores (an entry in the mix section is a mix kernel).
#define __vector__
#define __cube__ __attribute__((section("kernelgen_cube")))
#define __mix__(c, v) __attribute__((section("kernelgen_mix_" #c "_" #v)))

#ifndef __CCE_AICORE__
#define __CCE_AICORE__ 220
#endif
#ifndef __CCE_KT_TEST__
#define __CCE_KT_TEST__ 1
#endif
#ifndef ASCENDC_CPU_DEBUG
#define ASCENDC_CPU_DEBUG 1
#endif

// A typedef rather than a macro: `GM_ADDR a, b;` declares two pointers, and `const GM_ADDR`
// stays convertible to GM_ADDR.
using GM_ADDR = uint8_t*;

// The element type AscendC code names unqualified.
using half = _Float16;

// Scalar abs of a float is a float in device code: bisheng compiles it as C++ with the <cmath>
// overloads in the global namespace (bisheng guide, "Scalars": C++ scalar types and operators on
// the device; AscendC::Std::abs is declared for float and int types alike), while g++ with the C
// <stdlib.h> alone has only int abs(int) and would truncate (abs(1.9999f) == 1). half gets its own
// overload so abs(half) stays unambiguous.
using std::abs;
inline half abs(half x) { return x < half(0) ? half(-x) : x; }

// bfloat16: the top 16 bits of a float; conversion from float rounds to nearest even.
struct bfloat16_t {
    uint16_t bits = 0;

    bfloat16_t() = default;
    template <class U, class = std::enable_if_t<std::is_arithmetic_v<U> || std::is_same_v<U, _Float16>>>
    bfloat16_t(U v) : bits(from_float(static_cast<float>(v))) {}  // NOLINT: implicit like the real type

    operator float() const {  // NOLINT
        uint32_t u = static_cast<uint32_t>(bits) << 16;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
    static bfloat16_t from_bits(uint16_t b) {
        bfloat16_t r;
        r.bits = b;
        return r;
    }
    static uint16_t from_float(float f) {
        uint32_t u;
        std::memcpy(&u, &f, 4);
        if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
        u += 0x7fffu + ((u >> 16) & 1u);
        return static_cast<uint16_t>(u >> 16);
    }
    bfloat16_t& operator+=(float o) { return *this = bfloat16_t(float(*this) + o); }
    bfloat16_t& operator-=(float o) { return *this = bfloat16_t(float(*this) - o); }
    bfloat16_t& operator*=(float o) { return *this = bfloat16_t(float(*this) * o); }
    bfloat16_t& operator/=(float o) { return *this = bfloat16_t(float(*this) / o); }
    bfloat16_t operator-() const { return from_bits(static_cast<uint16_t>(bits ^ 0x8000u)); }
};

// Pipes and event ids are compiler-level names in CCE code: global, and used unqualified
// (pipe_barrier(PIPE_ALL), EVENT_ID0).
enum pipe_t : uint8_t {
    PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4, PIPE_MTE5,
    PIPE_V2, PIPE_FIX,
};

enum event_t : uint8_t {
    EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7,
};

// Kernel types (KERNEL_TASK_TYPE_DEFAULT); used unqualified in kernels.
enum KernelType {
    KERNEL_TYPE_AIV_ONLY,
    KERNEL_TYPE_AIC_ONLY,
    KERNEL_TYPE_MIX_AIV_1_0,
    KERNEL_TYPE_MIX_AIC_1_0,
    KERNEL_TYPE_MIX_AIC_1_1,
    KERNEL_TYPE_MIX_AIC_1_2,
    KERNEL_TYPE_MIX_AIV_HARD_SYNC,
    KERNEL_TYPE_MIX_AIC_HARD_SYNC,
    // Atlas inference (310P) types, KernelMetaType in the API reference: its AI Cores, its Vector
    // Cores, or both.
    KERNEL_TYPE_AICORE,
    KERNEL_TYPE_VECTORCORE,
    KERNEL_TYPE_MIX_AICORE,
    KERNEL_TYPE_MIX_VECTOR_CORE,
};

namespace AscendC {

using ::bfloat16_t;
using ::KernelType;
using ::event_t;
using ::pipe_t;
using TEventID = int8_t;
using ::half;

inline float ToFloat(const bfloat16_t& v) { return static_cast<float>(v); }
inline bfloat16_t ToBfloat16(float v) { return bfloat16_t(v); }

// int4b_t (S4): a signed 4-bit integer, [-8, 7] (API reference, built-in data types,
// atlas_ascendc_10_0019). In memory two elements share a byte ("one int4b_t occupies half a
// byte", Cast constraints), element 2k in the low nibble (inferred: ggml's CANN backend packs the
// quants its kernels read and write so), which LocalTensor<int4b_t> and GlobalTensor<int4b_t>
// (tensor.h) model. A scalar int4b_t holds one value; the reference lists it among the types with
// no immediate assignment or initialisation, so its conversion from a number is explicit (the
// low four bits of the integer, as a nibble store keeps them); to int it gives the value.
struct int4b_t {
    int8_t value = 0;  // sign-extended, in [-8, 7]

    int4b_t() = default;
    template <class U, class = std::enable_if_t<std::is_arithmetic_v<U> || std::is_same_v<U, _Float16>>>
    explicit int4b_t(U v) : value(sign_extend(static_cast<uint8_t>(static_cast<int64_t>(v)))) {}
    operator int() const { return value; }  // NOLINT: reads as its value, like the built-in integers
    static int4b_t from_bits(uint8_t nibble) {
        int4b_t r;
        r.value = sign_extend(nibble);
        return r;
    }
    uint8_t bits() const { return static_cast<uint8_t>(value) & 0xFu; }
    static int8_t sign_extend(uint8_t nibble) {
        return static_cast<int8_t>(static_cast<int8_t>(static_cast<uint8_t>(nibble << 4)) >> 4);
    }
};

// ---------------------------------------------------------------- constants
constexpr int32_t ONE_BLK_SIZE = 32;
constexpr int32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr int32_t BLOCK_CUBE = 16;
constexpr int32_t DEFAULT_BLK_NUM = 8;
constexpr int32_t DEFAULT_BLK_STRIDE = 1;
constexpr int32_t DEFAULT_REPEAT_STRIDE = 8;
constexpr int32_t MAX_REPEAT_TIMES = 255;
constexpr int32_t ONE_BYTE_BIT_SIZE = 8;
constexpr int32_t CUBE_MAX_SIZE = 256;
constexpr uint64_t MASK_PLACEHOLDER = 0;
constexpr uint64_t FULL_MASK = ~uint64_t(0);
constexpr int32_t MAX_BUFFERS_PER_PIPE = 64;


// ---------------------------------------------------------------- positions
enum class TPosition : uint8_t {
    GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC,
    LCM = VECCALC, SPM = 13, SHM, TSCM, C2PIPE2GM, C2PIPE2LOCAL, MAX,
};
using QuePosition = TPosition;

inline const char* position_name(TPosition p) {
    static const char* const names[] = {"GM",  "A1",  "A2",     "B1",     "B2",      "C1",
                                        "C2",  "CO1", "CO2",    "VECIN",  "VECOUT",  "VECCALC",
                                        "?",   "SPM", "SHM",    "TSCM",   "C2PIPE2GM", "C2PIPE2LOCAL"};
    auto i = static_cast<size_t>(p);
    return i < sizeof(names) / sizeof(names[0]) ? names[i] : "?";
}

inline bool is_ub_position(TPosition p) {
    return p == TPosition::VECIN || p == TPosition::VECOUT || p == TPosition::VECCALC;
}

// ---------------------------------------------------------------- enums
enum class RoundMode : uint8_t {
    CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD,
};
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };
enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };

enum class HardEvent : uint8_t {
    MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V,
    MTE3_MTE1, MTE1_MTE3, MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3,
    S_V, V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S, MTE2_FIX, FIX_MTE2, FIX_S, M_S, FIX_MTE3,
    MTE1_FIX, FIX_MTE1, FIX_FIX, MAX,
};


// ---------------------------------------------------------------- parameter structs
struct DataCopyParams {
    uint16_t blockCount = 1;
    uint16_t blockLen = 0;   // 32-byte blocks
    uint16_t srcStride = 0;  // gap between blocks of the source (32-byte blocks; GM side too)
    uint16_t dstStride = 0;
    DataCopyParams() = default;
    DataCopyParams(uint16_t count, uint16_t len, uint16_t srcGap, uint16_t dstGap)
        : blockCount(count), blockLen(len), srcStride(srcGap), dstStride(dstGap) {}
};

// DataCopyPad's UB layout (API reference, DataCopyPad template parameter): Normal pads each row to
// 32 bytes; Compact packs the rows (copy.h).
enum class PaddingMode : uint8_t { Normal = 0, Compact };

struct DataCopyExtParams {
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;   // bytes
    uint32_t srcStride = 0;  // bytes on GM, 32-byte blocks on UB
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
    DataCopyExtParams() = default;
    // All five values, rsv too (no default): a four-value brace list then means DataCopyParams, as
    // kernels that build on CANN pass `DataCopyPad(gm, ub, {1, len, 0, 0})` (DrivingSDK's
    // deformable_conv2d), and every DataCopyExtParams they spell out has five.
    DataCopyExtParams(uint16_t count, uint32_t len, uint32_t srcGap, uint32_t dstGap, uint32_t r)
        : blockCount(count), blockLen(len), srcStride(srcGap), dstStride(dstGap), rsv(r) {}
};

struct DataCopyPadParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint8_t paddingValue = 0;
    DataCopyPadParams() = default;
    DataCopyPadParams(bool pad, uint8_t left, uint8_t right, uint8_t value)
        : isPad(pad), leftPadding(left), rightPadding(right), paddingValue(value) {}
};

template <class T>
struct DataCopyPadExtParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = T(0);
    DataCopyPadExtParams() = default;
    DataCopyPadExtParams(bool pad, uint8_t left, uint8_t right, T value)
        : isPad(pad), leftPadding(left), rightPadding(right), paddingValue(value) {}
};

struct BinaryRepeatParams {
    uint8_t dstBlkStride = 1, src0BlkStride = 1, src1BlkStride = 1;
    uint8_t dstRepStride = 8, src0RepStride = 8, src1RepStride = 8;
    BinaryRepeatParams() = default;
    BinaryRepeatParams(uint8_t db, uint8_t s0b, uint8_t s1b, uint8_t dr, uint8_t s0r, uint8_t s1r)
        : dstBlkStride(db), src0BlkStride(s0b), src1BlkStride(s1b), dstRepStride(dr),
          src0RepStride(s0r), src1RepStride(s1r) {}
};

struct UnaryRepeatParams {
    uint16_t dstBlkStride = 1, srcBlkStride = 1;
    uint8_t dstRepStride = 8, srcRepStride = 8;
    UnaryRepeatParams() = default;
    UnaryRepeatParams(uint16_t db, uint16_t sb, uint8_t dr, uint8_t sr)
        : dstBlkStride(db), srcBlkStride(sb), dstRepStride(dr), srcRepStride(sr) {}
};

struct BrcbRepeatParams {
    uint16_t dstBlkStride = 1;
    uint16_t dstRepStride = 8;
    BrcbRepeatParams() = default;
    BrcbRepeatParams(uint16_t db, uint16_t dr) : dstBlkStride(db), dstRepStride(dr) {}
};

struct GatherRepeatParams {
    uint8_t dstBlkStride = 1;
    uint8_t dstRepStride = 8;
};

struct Nd2NzParams {
    uint16_t ndNum = 1, nValue = 0, dValue = 0, srcNdMatrixStride = 0, srcDValue = 0,
             dstNzC0Stride = 0, dstNzNStride = 0, dstNzMatrixStride = 0;
    Nd2NzParams() = default;
    Nd2NzParams(uint16_t nd, uint16_t n, uint16_t d, uint16_t srcMat, uint16_t srcD, uint16_t c0,
                uint16_t nStride, uint16_t dstMat)
        : ndNum(nd), nValue(n), dValue(d), srcNdMatrixStride(srcMat), srcDValue(srcD),
          dstNzC0Stride(c0), dstNzNStride(nStride), dstNzMatrixStride(dstMat) {}
};

// Used by high-level APIs (SoftMax family) to describe the shape of the tile they work on.
struct SoftMaxShapeInfo {
    uint32_t srcM = 0, srcK = 0, oriSrcM = 0, oriSrcK = 0;
};


// DataCopy's enhanced parameters (data conversion on the copy path: block modes for the cube
// buffers, dequantisation, ReLU). Only the plain form (normal block mode, no dequantisation, no
// ReLU) is emulated; DataCopy reports the others as not emulated.
enum class BlockMode : uint8_t {
    BLOCK_MODE_NORMAL = 0,
    BLOCK_MODE_MATRIX,
    BLOCK_MODE_VECTOR,
    BLOCK_MODE_SMALL_CHANNEL,
    BLOCK_MODE_DEPTHWISE,
};
enum class DeqScale : uint8_t { DEQ_NONE = 0, DEQ, VDEQ, DEQ8, VDEQ8, DEQ16, VDEQ16 };

}  // namespace AscendC

// Padding mode of DataCopyEnhancedParams; named unqualified by kernels.
enum pad_t : uint8_t {
    PAD_NONE = 0,
    PAD_MODE1,
    PAD_MODE2,
    PAD_MODE3,
    PAD_MODE4,
    PAD_MODE5,
    PAD_MODE6,
    PAD_MODE7,
    PAD_MODE8,
};

namespace AscendC {

struct DataCopyEnhancedParams {
    BlockMode blockMode = BlockMode::BLOCK_MODE_NORMAL;
    DeqScale deqScale = DeqScale::DEQ_NONE;
    uint64_t deqValue = 0;
    uint8_t sidStoreMode = 0;
    bool isRelu = false;
    pad_t padMode = PAD_NONE;
    uint64_t deqTensorAddr = 0;
};

// Cache maintenance targets (DataCacheCleanAndInvalid); the CPU has nothing to flush.
enum class CacheLine : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };

// UB bytes usable for vector data on the chip of the run (the chip table's ub_safe_bytes): the
// size kernels give the Matmul API's local workspace. Read when used, as the chip is a run value.
struct total_vec_local_size {
    operator uint32_t() const { return static_cast<uint32_t>(kernelgen::chip().ub_safe_bytes); }
};
inline constexpr total_vec_local_size TOTAL_VEC_LOCAL_SIZE{};
}  // namespace AscendC

namespace kernelgen {

template <class T>
struct nd_type {
    using type = T;
};
// Non-deduced context: lets scalars of another arithmetic type bind to `T` (Adds(h, h, 2.0f, n)).
template <class T>
using nd_t = typename nd_type<T>::type;

template <class T>
constexpr bool is_half_like_v = std::is_same_v<T, _Float16> || std::is_same_v<T, bfloat16_t>;
template <class T>
constexpr bool is_float_like_v = is_half_like_v<T> || std::is_floating_point_v<T>;

// Arithmetic type an op computes in: half and bf16 compute in float, rounded per op.
template <class T>
using acc_t = std::conditional_t<is_float_like_v<T>, float, T>;

// Sub-byte element types (int4b_t): their tensors address elements in nibbles, not bytes.
template <class T>
constexpr bool is_int4_v = std::is_same_v<T, AscendC::int4b_t>;

// Bytes that `n` elements of T occupy (int4b_t: two to a byte, a last odd one takes its byte).
template <class T>
constexpr uint64_t bytes_of(uint64_t n) {
    if constexpr (is_int4_v<T>) return (n + 1) / 2;
    else return n * sizeof(T);
}
// Elements of T that `bytes` bytes hold.
template <class T>
constexpr uint64_t elems_in(uint64_t bytes) {
    if constexpr (is_int4_v<T>) return bytes * 2;
    else return bytes / sizeof(T);
}

// Element i of a packed int4b_t array starting at `base`, and its store (element 2k in the low
// nibble of byte k); the caller has checked i.
inline AscendC::int4b_t int4_load(const void* base, uint64_t i) {
    const uint8_t b = static_cast<const uint8_t*>(base)[i / 2];
    return AscendC::int4b_t::from_bits(static_cast<uint8_t>(i % 2 ? b >> 4 : b & 0xFu));
}
inline void int4_store(void* base, uint64_t i, AscendC::int4b_t v) {
    uint8_t& b = static_cast<uint8_t*>(base)[i / 2];
    b = static_cast<uint8_t>(i % 2 ? (b & 0x0Fu) | (v.bits() << 4) : (b & 0xF0u) | v.bits());
}

template <class T>
inline acc_t<T> widen(T v) {
    return static_cast<acc_t<T>>(v);
}

// Narrowing store used by the vector ops (float -> half / bf16 rounds to nearest even).
template <class T, class A>
inline T narrow(A v) {
    if constexpr (std::is_same_v<T, bfloat16_t>) {
        return bfloat16_t(static_cast<float>(v));
    } else {
        return static_cast<T>(v);
    }
}

// What a value the kernel cannot rely on reads as (GM bytes another core writes unordered with
// the read): element `k` of a run alternates a huge finite value and a smaller negative one for
// floating types (as the harness poisons allocation padding), the largest value for integers.
// `side`: a racing read of bytes other cores only raise with AtomicMax reads below every value
// (MAX), one of bytes they only lower with AtomicMin above every value (MIN): RacingRead.
template <class T>
inline T poison_of(uint64_t k, AtomicMode side = AtomicMode::NONE) {
    if (side == AtomicMode::MAX) {
        if constexpr (std::is_same_v<T, _Float16>) return static_cast<T>(-60000.0f);
        else if constexpr (is_float_like_v<T>) return narrow<T>(-3.0e38f);
        else if constexpr (std::is_same_v<T, bool>) return false;
        else return std::numeric_limits<T>::lowest();
    }
    if (side == AtomicMode::MIN) k = 0;
    if constexpr (std::is_same_v<T, _Float16>) return static_cast<T>(k % 2 ? -20000.0f : 60000.0f);
    else if constexpr (is_float_like_v<T>) return narrow<T>(k % 2 ? -1.0e38f : 3.0e38f);
    else if constexpr (std::is_same_v<T, bool>) return true;
    else return std::numeric_limits<T>::max();
}

template <class T>
inline const char* type_name() {
    if constexpr (std::is_same_v<T, float>) return "float";
    else if constexpr (std::is_same_v<T, _Float16>) return "half";
    else if constexpr (std::is_same_v<T, bfloat16_t>) return "bfloat16_t";
    else if constexpr (std::is_same_v<T, int8_t>) return "int8_t";
    else if constexpr (std::is_same_v<T, uint8_t>) return "uint8_t";
    else if constexpr (std::is_same_v<T, int16_t>) return "int16_t";
    else if constexpr (std::is_same_v<T, uint16_t>) return "uint16_t";
    else if constexpr (std::is_same_v<T, int32_t>) return "int32_t";
    else if constexpr (std::is_same_v<T, uint32_t>) return "uint32_t";
    else if constexpr (std::is_same_v<T, int64_t>) return "int64_t";
    else if constexpr (std::is_same_v<T, uint64_t>) return "uint64_t";
    else if constexpr (is_int4_v<T>) return "int4b_t";
    else return "T";
}

}  // namespace kernelgen
