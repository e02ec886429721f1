// Kernel side of tiling: GET_TILING_DATA and friends, TILING_KEY_IS, and the tiling structs of
// the high-level APIs (TCubeTiling for Matmul, SoftMaxTiling) as plain structs whose members the
// device code reads. The host fills the same structs (optiling:: names are aliases).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "graph/types.h"
#include "kernelgen/host_tiling_macros.h"
#include "kernelgen/runtime.h"
#include "kernelgen/topk_tiling.h"  // TopkTiling, TopKInfo, TopKMode

// ---------------------------------------------------------------- API tiling structs
// TCubeTiling: field list and order as documented for the Matmul high-level API (all int32).
BEGIN_TILING_DATA_DEF(TCubeTiling)
TILING_DATA_FIELD_DEF(int32_t, usedCoreNum);
TILING_DATA_FIELD_DEF(int32_t, M);
TILING_DATA_FIELD_DEF(int32_t, N);
TILING_DATA_FIELD_DEF(int32_t, Ka);
TILING_DATA_FIELD_DEF(int32_t, Kb);
TILING_DATA_FIELD_DEF(int32_t, singleCoreM);
TILING_DATA_FIELD_DEF(int32_t, singleCoreN);
TILING_DATA_FIELD_DEF(int32_t, singleCoreK);
TILING_DATA_FIELD_DEF(int32_t, baseM);
TILING_DATA_FIELD_DEF(int32_t, baseN);
TILING_DATA_FIELD_DEF(int32_t, baseK);
TILING_DATA_FIELD_DEF(int32_t, depthA1);
TILING_DATA_FIELD_DEF(int32_t, depthB1);
TILING_DATA_FIELD_DEF(int32_t, stepM);
TILING_DATA_FIELD_DEF(int32_t, stepN);
TILING_DATA_FIELD_DEF(int32_t, isBias);
TILING_DATA_FIELD_DEF(int32_t, transLength);
TILING_DATA_FIELD_DEF(int32_t, iterateOrder);
TILING_DATA_FIELD_DEF(int32_t, shareMode);
TILING_DATA_FIELD_DEF(int32_t, shareL1Size);
TILING_DATA_FIELD_DEF(int32_t, shareL0CSize);
TILING_DATA_FIELD_DEF(int32_t, shareUbSize);
TILING_DATA_FIELD_DEF(int32_t, batchM);
TILING_DATA_FIELD_DEF(int32_t, batchN);
TILING_DATA_FIELD_DEF(int32_t, singleBatchM);
TILING_DATA_FIELD_DEF(int32_t, singleBatchN);
TILING_DATA_FIELD_DEF(int32_t, stepKa);
TILING_DATA_FIELD_DEF(int32_t, stepKb);
TILING_DATA_FIELD_DEF(int32_t, depthAL1CacheUB);
TILING_DATA_FIELD_DEF(int32_t, depthBL1CacheUB);
TILING_DATA_FIELD_DEF(int32_t, dbL0A);
TILING_DATA_FIELD_DEF(int32_t, dbL0B);
TILING_DATA_FIELD_DEF(int32_t, dbL0C);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoB);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoS);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoN);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoG);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoD);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoB);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoS);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoN);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoG);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoD);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoB);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoS1);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoN);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoG);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoS2);
TILING_DATA_FIELD_DEF(int32_t, BatchNum);
TILING_DATA_FIELD_DEF(int32_t, reserved);
END_TILING_DATA_DEF;

// SoftMaxTiling: the documented split of a [M, K] softmax into UB-sized pieces (all uint32).
BEGIN_TILING_DATA_DEF(SoftMaxTiling)
TILING_DATA_FIELD_DEF(uint32_t, srcM);
TILING_DATA_FIELD_DEF(uint32_t, srcK);
TILING_DATA_FIELD_DEF(uint32_t, srcSize);
TILING_DATA_FIELD_DEF(uint32_t, outMaxM);
TILING_DATA_FIELD_DEF(uint32_t, outMaxK);
TILING_DATA_FIELD_DEF(uint32_t, outMaxSize);
TILING_DATA_FIELD_DEF(uint32_t, splitM);
TILING_DATA_FIELD_DEF(uint32_t, splitK);
TILING_DATA_FIELD_DEF(uint32_t, splitSize);
TILING_DATA_FIELD_DEF(uint32_t, reduceM);
TILING_DATA_FIELD_DEF(uint32_t, reduceK);
TILING_DATA_FIELD_DEF(uint32_t, reduceSize);
TILING_DATA_FIELD_DEF(uint32_t, rangeM);
TILING_DATA_FIELD_DEF(uint32_t, tailM);
TILING_DATA_FIELD_DEF(uint32_t, tailSplitSize);
TILING_DATA_FIELD_DEF(uint32_t, tailReduceSize);
END_TILING_DATA_DEF;

// LayerNormTiling: a [B, S, H] normalisation over H (hLength 32-byte padded, originalHLength
// valid) split into row groups of bsCurLength rows that fit the temp buffer.
BEGIN_TILING_DATA_DEF(LayerNormTiling)
TILING_DATA_FIELD_DEF(uint32_t, bLength);
TILING_DATA_FIELD_DEF(uint32_t, sLength);
TILING_DATA_FIELD_DEF(uint32_t, hLength);
TILING_DATA_FIELD_DEF(uint32_t, originalHLength);
TILING_DATA_FIELD_DEF(uint32_t, inputXSize);
TILING_DATA_FIELD_DEF(uint32_t, meanVarSize);
TILING_DATA_FIELD_DEF(uint32_t, numberOfTmpBuf);
TILING_DATA_FIELD_DEF(uint32_t, firstTmpStartPos);
TILING_DATA_FIELD_DEF(uint32_t, secondTmpStartPos);
TILING_DATA_FIELD_DEF(uint32_t, thirdTmpStartPos);
TILING_DATA_FIELD_DEF(uint32_t, loopRound);
TILING_DATA_FIELD_DEF(uint32_t, inputRoundSize);
TILING_DATA_FIELD_DEF(uint32_t, inputTailSize);
TILING_DATA_FIELD_DEF(uint32_t, inputTailPos);
TILING_DATA_FIELD_DEF(uint32_t, meanVarRoundSize);
TILING_DATA_FIELD_DEF(uint32_t, meanVarTailSize);
TILING_DATA_FIELD_DEF(uint32_t, meanVarTailPos);
TILING_DATA_FIELD_DEF(uint32_t, bshCurLength);
TILING_DATA_FIELD_DEF(uint32_t, bsCurLength);
TILING_DATA_FIELD_DEF(float, lastDimValueBack);
END_TILING_DATA_DEF;

// RmsNormTiling: the same [B, S, H] split for RmsNorm (reciprocalOfHLength = 1 / originalHLength).
BEGIN_TILING_DATA_DEF(RmsNormTiling)
TILING_DATA_FIELD_DEF(uint32_t, bLength);
TILING_DATA_FIELD_DEF(uint32_t, sLength);
TILING_DATA_FIELD_DEF(uint32_t, hLength);
TILING_DATA_FIELD_DEF(uint32_t, originalHLength);
TILING_DATA_FIELD_DEF(float, reciprocalOfHLength);
TILING_DATA_FIELD_DEF(uint32_t, mainBshLength);
TILING_DATA_FIELD_DEF(uint32_t, mainBsLength);
TILING_DATA_FIELD_DEF(uint32_t, mainBsLengthAlign);
TILING_DATA_FIELD_DEF(uint32_t, loopRound);
TILING_DATA_FIELD_DEF(uint32_t, inputTailPos);
TILING_DATA_FIELD_DEF(uint32_t, tailBshLength);
TILING_DATA_FIELD_DEF(uint32_t, tailBsLength);
END_TILING_DATA_DEF;

// UnPadTiling: the [srcHeight, srcWidth] source of UnPad and how its scratch is split (all
// uint32), filled by UnPadTilingFunc; the kernel side reads the shape.
BEGIN_TILING_DATA_DEF(UnPadTiling)
TILING_DATA_FIELD_DEF(uint32_t, srcHeight);
TILING_DATA_FIELD_DEF(uint32_t, srcWidth);
TILING_DATA_FIELD_DEF(uint32_t, tmpBuffer1BlockNum);
TILING_DATA_FIELD_DEF(uint32_t, tmpBuffer1RowNum);
TILING_DATA_FIELD_DEF(uint32_t, tmpBuffer2Offset);
TILING_DATA_FIELD_DEF(uint32_t, widthTiling);
TILING_DATA_FIELD_DEF(uint32_t, widthFractal);
TILING_DATA_FIELD_DEF(uint32_t, widthFractalTail);
END_TILING_DATA_DEF;

// PadTiling: the [srcHeight, srcWidth] source of Pad (valid data and the redundant columns),
// srcOriWidth of them valid, and the rows of the source the scratch holds at once (all uint32),
// filled by PadTilingFunc. The reference documents the struct by name only; these fields are
// the emulator's, and the kernel side reads the shape.
BEGIN_TILING_DATA_DEF(PadTiling)
TILING_DATA_FIELD_DEF(uint32_t, srcHeight);
TILING_DATA_FIELD_DEF(uint32_t, srcWidth);
TILING_DATA_FIELD_DEF(uint32_t, srcOriWidth);
TILING_DATA_FIELD_DEF(uint32_t, tmpBufferRowNum);
END_TILING_DATA_DEF;

static_assert(sizeof(TCubeTiling) == 50 * 4, "TCubeTiling is 50 int32 fields");
static_assert(sizeof(SoftMaxTiling) == 16 * 4, "SoftMaxTiling is 16 uint32 fields");
static_assert(sizeof(UnPadTiling) == 8 * 4, "UnPadTiling is 8 uint32 fields");
static_assert(sizeof(PadTiling) == 4 * 4, "PadTiling is 4 uint32 fields");
static_assert(sizeof(LayerNormTiling) == 20 * 4 && sizeof(RmsNormTiling) == 12 * 4, "norm tilings are 4-byte fields");
static_assert(std::is_standard_layout<TCubeTiling>::value && std::is_trivially_copyable<TCubeTiling>::value,
              "tiling structs must be plain data");

namespace optiling {
using ::LayerNormTiling;
using ::PadTiling;
using ::RmsNormTiling;
using ::SoftMaxTiling;
using ::TCubeTiling;
using ::UnPadTiling;
}  // namespace optiling

// Newer samples name the API tiling structs AscendC::tiling::TCubeTiling in a plain tiling struct
// the host and kernel share (REGISTER_TILING_DEFAULT style).
namespace AscendC {
namespace tiling {
using ::LayerNormTiling;
using ::PadTiling;
using ::RmsNormTiling;
using ::SoftMaxTiling;
using ::TCubeTiling;
using ::UnPadTiling;
}  // namespace tiling
}  // namespace AscendC

// ---------------------------------------------------------------- tiling lookup
namespace kernelgen {
struct NoDefaultTiling {};

// REGISTER_TILING_DEFAULT wins over the op's registered struct; neither is a compile error.
template <class Default, class ByOp>
struct PickTiling {
    using type = Default;
};
template <class ByOp>
struct PickTiling<NoDefaultTiling, ByOp> {
    static_assert(!std::is_same<ByOp, NoTiling>::value,
                  "GET_TILING_DATA: no tiling struct for this op; add REGISTER_TILING_DATA_CLASS(<OpType>, "
                  "<Struct>) to the tiling header, or REGISTER_TILING_DEFAULT(<Struct>) before "
                  "GET_TILING_DATA, or use GET_TILING_DATA_WITH_STRUCT");
    using type = ByOp;
};
}  // namespace kernelgen

// Global fallback so the unqualified call below always has a candidate.
template <uint64_t Key>
kernelgen::NoTiling kernelgen_tiling_for(::optiling::KernelgenOpKey<Key>);

// Shadowed inside a kernel body by REGISTER_TILING_DEFAULT.
using kernelgen_tiling_default_t = kernelgen::NoDefaultTiling;

#define KERNELGEN_STR2_(x) #x
#define KERNELGEN_STR_(x) KERNELGEN_STR2_(x)
// Expanded where GET_TILING_DATA is used, so KERNELGEN_OP_TYPE may be defined after this header
// (the toolchain's precompiled kernel header comes first). Undefined, the name stringifies to
// "KERNELGEN_OP_TYPE", which nothing registers: the lookup falls back to NoTiling.
#define KERNELGEN_OP_TILING_T_                                                             \
    decltype(kernelgen_tiling_for(                                                         \
        ::optiling::KernelgenOpKey<::kernelgen::op_key(KERNELGEN_STR_(KERNELGEN_OP_TYPE))>{}))

#define REGISTER_TILING_DEFAULT(struct_type) using kernelgen_tiling_default_t = struct_type

#define GET_TILING_DATA(var, tiling)                                                        \
    typename ::kernelgen::PickTiling<kernelgen_tiling_default_t, KERNELGEN_OP_TILING_T_>::type var; \
    ::kernelgen::tiling_load(&var, (tiling), 0, sizeof(var), "GET_TILING_DATA", __FILE__, __LINE__)

#define GET_TILING_DATA_WITH_STRUCT(struct_type, var, tiling) \
    struct_type var;                                          \
    ::kernelgen::tiling_load(&var, (tiling), 0, sizeof(var), "GET_TILING_DATA_WITH_STRUCT", __FILE__, __LINE__)

#define GET_TILING_DATA_MEMBER(struct_type, member, var, tiling)                              \
    decltype(struct_type::member) var;                                                        \
    ::kernelgen::tiling_load(&var, (tiling), offsetof(struct_type, member), sizeof(var),      \
                             "GET_TILING_DATA_MEMBER", __FILE__, __LINE__)

#define GET_TILING_DATA_PTR_WITH_STRUCT(struct_type, var, tiling) \
    const struct_type* var = reinterpret_cast<const struct_type*>(tiling)

#define TILING_KEY_IS(key) (::kernelgen::tiling_key() == static_cast<uint64_t>(key))
