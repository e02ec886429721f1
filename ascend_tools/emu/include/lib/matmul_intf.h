// Matmul high-level API on the CPU: C = A x B (+ bias), with A/B optionally transposed, read
// from GM or UB and accumulated in float. Shapes come from the TCubeTiling (singleCore*, Ka/Kb,
// M/N as the original row strides), SetOrgShape, SetSingleShape and SetTail. IterateAll writes
// the whole result; Iterate/GetTensorC walk it in baseM x baseN blocks.
#pragma once

#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel_operator.h"
#include "kernel_tiling/kernel_tiling.h"

enum class CubeFormat : uint8_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
enum class LayoutMode : uint8_t { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };

namespace matmul {

// The basic API is visible through `matmul`: kernels that say only `using namespace matmul;`
// call DataCopy and DataCopyParams unqualified and build with CANN (Ascend/samples
// MatmulLeakyReluCustom).
using namespace AscendC;
using ::CubeFormat;
using ::LayoutMode;

// MatmulType<POSITION, FORMAT, TYPE, ISTRANS, LAYOUT, IBSHARE, SRCPOS> (API reference, Matmul >
// MatmulType); IBSHARE (the two AIVs of a cluster share B in L1) changes where B is staged, and
// SRCPOS (where the caller's data comes from, GM by default) how it gets there, not the product.
template <TPosition pos, CubeFormat format, class TYPE, bool isTrans = false, LayoutMode layout = LayoutMode::NONE,
          bool ibShare = false, TPosition srcPos = TPosition::GM>
struct MatmulType {
    using DType = TYPE;
    using T = TYPE;  // the element type under the name kernels read (`cT::T`, Ascend/samples group matmul)
    static constexpr TPosition position = pos;
    static constexpr CubeFormat fmt = format;
    static constexpr bool trans = isTrans;
};

// The enums a custom template's parameters take (API reference, Matmul > GetNormalConfig).
enum class BatchMode : uint8_t { BATCH_LESS_THAN_L1 = 0, BATCH_LARGE_THAN_L1, SINGLE_LARGE_THAN_L1 };
enum class IterateOrder : uint8_t { ORDER_M = 0, ORDER_N, UNDEF };
enum class ScheduleType : uint8_t { INNER_PRODUCT = 0, OUTER_PRODUCT };
enum class BatchOutMode : uint8_t { SINGLE_BATCH = 0 };  // the documented default; other modes not modelled

// A Matmul object's compile-time configuration. Every configuration computes the same product
// (they choose how the work is scheduled and staged), so the emulator only keeps the values
// GetNormalConfig and GetMMConfig document setting, for a kernel that reads them back; the
// single-core and base shapes (GetMMConfig's MatmulShapeParams) take effect through
// GetMatmulApiTiling.
struct MatmulConfig {
    bool doNorm = true;
    bool intrinsicsCheck = false;
    bool isNBatch = false;
    bool enVecND2NZ = false;
    BatchMode batchMode = BatchMode::BATCH_LESS_THAN_L1;
    bool isMsgReuse = true;
    IterateOrder iterateOrder = IterateOrder::UNDEF;
    ScheduleType scheduleType = ScheduleType::INNER_PRODUCT;
    bool enUnitFlag = true;
    bool enableMixDualMaster = false;
    BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH;
    // Set by GetMMConfig (API reference, Matmul > MatmulConfig, table 2): 0 leaves a shape to
    // the run-time TCubeTiling.
    bool doMultiDataLoad = false;
    bool doSpecialMDL = false;
    bool doIBShareNorm = false;
    uint32_t singleCoreM = 0, singleCoreN = 0, singleCoreK = 0;
    uint32_t basicM = 0, basicN = 0, basicK = 0;
    bool isPerTensor = false;
    bool hasAntiQuantOffset = false;
    bool isBiasBatch = true;
    uint32_t doMTE2Preload = 0;
    bool enableDoubleCache = false;
    bool enableL1CacheUB = false;
    bool enableReuse = true;
    bool enableUBReuse = true;
    bool enableKdimReorderLoad = false;
};
inline constexpr MatmulConfig CFG_NORM{};
inline constexpr MatmulConfig CFG_MDL{};

// The Norm template with its parameters set (API reference, Matmul > GetNormalConfig,
// atlasascendc_api_07_0621): each parameter sets the MatmulConfig field of the same role.
constexpr MatmulConfig GetNormalConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                       const bool isVecND2NZ = false,
                                       const BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1,
                                       const bool isMsgReuse = true,
                                       const IterateOrder iterateOrder = IterateOrder::UNDEF,
                                       const ScheduleType scheduleType = ScheduleType::INNER_PRODUCT,
                                       const bool enUnitFlag = true, const bool enableMixDualMaster = false,
                                       const BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH) {
    MatmulConfig c{};
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.enVecND2NZ = isVecND2NZ;
    c.batchMode = bmmMode;
    c.isMsgReuse = isMsgReuse;
    c.iterateOrder = iterateOrder;
    c.scheduleType = scheduleType;
    c.enUnitFlag = enUnitFlag;
    c.enableMixDualMaster = enableMixDualMaster;
    c.bmmOutMode = bmmOutMode;
    return c;
}

// GetMMConfig (API reference, Matmul > GetMMConfig, atlasascendc_api_07_0627): the template
// MatmulConfigMode names, changed by any of the four sub-configs, in any order. Their members
// are in the documented order (tables 4-7), so brace initialisation fills the same fields.
enum class MatmulConfigMode : uint8_t { CONFIG_NORM = 0, CONFIG_MDL, CONFIG_SPECIALMDL, CONFIG_IBSHARE };
struct MatmulShapeParams {
    uint32_t singleCoreM = 0;
    uint32_t singleCoreN = 0;
    uint32_t singleCoreK = 0;
    uint32_t basicM = 0;
    uint32_t basicN = 0;
    uint32_t basicK = 0;
};
struct MatmulQuantParams {
    bool isPerTensor = false;
    bool hasAntiQuantOffset = false;
};
struct MatmulBatchParams {
    bool isNBatch = false;
    BatchMode batchMode = BatchMode::BATCH_LESS_THAN_L1;
    bool isBiasBatch = true;
};
struct MatmulFuncParams {
    bool intrinsicsLimit = false;
    bool enVecND2NZ = false;
    bool enableDoubleCache = false;
    bool enableL1CacheUB = false;
    uint32_t doMTE2Preload = 0;
    IterateOrder iterateOrder = IterateOrder::UNDEF;
    ScheduleType scheduleType = ScheduleType::INNER_PRODUCT;
    bool enableReuse = true;
    bool enableUBReuse = true;
};

namespace detail {
// The template each MatmulConfigMode starts from (MatmulConfig, table 1: Norm is the default;
// the MDL templates move several base blocks at once and default enUnitFlag to false, as
// GetMDLConfig does).
constexpr MatmulConfig config_of_mode(MatmulConfigMode mode) {
    MatmulConfig c{};
    if (mode == MatmulConfigMode::CONFIG_NORM) return c;
    c.doNorm = false;
    if (mode == MatmulConfigMode::CONFIG_IBSHARE) {
        c.doIBShareNorm = true;
        return c;
    }
    c.enUnitFlag = false;
    if (mode == MatmulConfigMode::CONFIG_MDL) c.doMultiDataLoad = true;
    else c.doSpecialMDL = true;
    return c;
}
constexpr void apply_mm_params(MatmulConfig& c, const MatmulShapeParams& p) {
    c.singleCoreM = p.singleCoreM, c.singleCoreN = p.singleCoreN, c.singleCoreK = p.singleCoreK;
    c.basicM = p.basicM, c.basicN = p.basicN, c.basicK = p.basicK;
}
constexpr void apply_mm_params(MatmulConfig& c, const MatmulQuantParams& p) {
    c.isPerTensor = p.isPerTensor, c.hasAntiQuantOffset = p.hasAntiQuantOffset;
}
constexpr void apply_mm_params(MatmulConfig& c, const MatmulBatchParams& p) {
    c.isNBatch = p.isNBatch, c.batchMode = p.batchMode, c.isBiasBatch = p.isBiasBatch;
}
constexpr void apply_mm_params(MatmulConfig& c, const MatmulFuncParams& p) {
    c.intrinsicsCheck = p.intrinsicsLimit, c.enVecND2NZ = p.enVecND2NZ;
    c.enableDoubleCache = p.enableDoubleCache, c.enableL1CacheUB = p.enableL1CacheUB;
    c.doMTE2Preload = p.doMTE2Preload, c.iterateOrder = p.iterateOrder, c.scheduleType = p.scheduleType;
    c.enableReuse = p.enableReuse, c.enableUBReuse = p.enableUBReuse;
}
template <class T>
constexpr void apply_mm_params(MatmulConfig&, const T&) {
    static_assert(sizeof(T) == 0,
                  "GetMMConfig takes MatmulShapeParams, MatmulQuantParams, MatmulBatchParams or MatmulFuncParams");
}
}  // namespace detail

template <MatmulConfigMode configMode, typename... ArgTypes>
constexpr MatmulConfig GetMMConfig(ArgTypes&&... args) {
    MatmulConfig c = detail::config_of_mode(configMode);
    (detail::apply_mm_params(c, args), ...);
    return c;
}

// The MDL template with its parameters set (API reference, Matmul > GetMDLConfig,
// atlasascendc_api_07_0622): each parameter sets the MatmulConfig field of the same role.
constexpr MatmulConfig GetMDLConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                    const uint32_t doMTE2Preload = 0, const bool isVecND2NZ = false,
                                    bool isPerTensor = false, bool hasAntiQuantOffset = false,
                                    const bool enUnitFlag = false, const bool isMsgReuse = true,
                                    const bool enableUBReuse = true, const bool enableL1CacheUB = false,
                                    const bool enableMixDualMaster = false, const bool enableKdimReorderLoad = false) {
    MatmulConfig c = detail::config_of_mode(MatmulConfigMode::CONFIG_MDL);
    c.intrinsicsCheck = intrinsicsLimit, c.isNBatch = batchLoop, c.doMTE2Preload = doMTE2Preload;
    c.enVecND2NZ = isVecND2NZ, c.isPerTensor = isPerTensor, c.hasAntiQuantOffset = hasAntiQuantOffset;
    c.enUnitFlag = enUnitFlag, c.isMsgReuse = isMsgReuse, c.enableUBReuse = enableUBReuse;
    c.enableL1CacheUB = enableL1CacheUB, c.enableMixDualMaster = enableMixDualMaster;
    c.enableKdimReorderLoad = enableKdimReorderLoad;
    return c;
}

// The SpecialMDL template with its parameters set (API reference, Matmul > GetSpecialMDLConfig,
// atlasascendc_api_07_0623).
constexpr MatmulConfig GetSpecialMDLConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                           const uint32_t doMTE2Preload = 0, const bool isVecND2NZ = false,
                                           bool isPerTensor = false, bool hasAntiQuantOffset = false) {
    MatmulConfig c = detail::config_of_mode(MatmulConfigMode::CONFIG_SPECIALMDL);
    c.intrinsicsCheck = intrinsicsLimit, c.isNBatch = batchLoop, c.doMTE2Preload = doMTE2Preload;
    c.enVecND2NZ = isVecND2NZ, c.isPerTensor = isPerTensor, c.hasAntiQuantOffset = hasAntiQuantOffset;
    return c;
}

// MM_CB (API reference, Matmul > MatmulCallBackFunc, atlasascendc_api_07_0618): user copy
// functions that replace the object's own CO1 -> GM, GM -> A1 and GM -> B1 moves of one base
// block. The emulator computes the product whole and models no per-block moves, so only the
// default (all three nullptr) is supported; a kernel that passes its own functions is stopped at
// compile time with that said.
namespace detail {
using DataCopyOutFn = void (*)(const __gm__ void* gm, const AscendC::LocalTensor<int8_t>& co1Local,
                               const void* dataCopyOutParams, const uint64_t tilingPtr, const uint64_t dataPtr);
using CopyInFn = void (*)(const AscendC::LocalTensor<int8_t>& matrix, const __gm__ void* gm, int row, int col,
                          int useRows, int useCols, const uint64_t tilingPtr, const uint64_t dataPtr);
}  // namespace detail
template <detail::DataCopyOutFn DataCopyOut = nullptr, detail::CopyInFn CopyA1 = nullptr,
          detail::CopyInFn CopyB1 = nullptr>
struct MatmulCallBackFunc {
    static constexpr bool kDefault = DataCopyOut == nullptr && CopyA1 == nullptr && CopyB1 == nullptr;
};

// GetMatmulApiTiling's result (API reference, Matmul > Matmul template parameters, and
// GetMatmulApiTiling, atlasascendc_api_07_0666): a group of constant tiling parameters, named as
// TCubeTiling's, and the MatmulConfig they came from. A shape field of 0 is not constant: the
// run-time TCubeTiling gives it. With all six shapes constant ("full constants") the tiling is
// complete, and REGIST_MATMUL_OBJ may pass nullptr for the TCubeTiling.
struct MatmulApiStaticTiling {
    int32_t usedCoreNum = 0;
    int32_t M = 0, N = 0, Ka = 0, Kb = 0;
    int32_t singleCoreM = 0, singleCoreN = 0, singleCoreK = 0;
    int32_t baseM = 0, baseN = 0, baseK = 0;
    int32_t depthA1 = 0, depthB1 = 0;
    int32_t stepM = 0, stepN = 0;
    int32_t isBias = 0;
    int32_t iterateOrder = 0;
    int32_t stepKa = 0, stepKb = 0;
    int32_t dbL0A = 0, dbL0B = 0, dbL0C = 0;
    MatmulConfig cfg{};
};

namespace detail {
constexpr int32_t kDefaultL1Size = 512 * 1024;  // L1 of the chips that support constant tiling (A2/A3)
}  // namespace detail

// The constant tiling for `mmCFG`'s shapes (0 where mmCFG leaves one to run time). Only the
// shapes are fixed by the kernel; the buffer depths and steps follow the emulator's host
// GetTiling (two base blocks of A and of B in L1, step 1, double-buffered L0A/L0B), with one
// block each when two do not fit in l1Size. A whole-matrix object (full constants, no run-time
// tiling) takes its original shape as the single-core shape, which SetOrgShape may change.
template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE>
constexpr MatmulApiStaticTiling GetMatmulApiTiling(const MatmulConfig& mmCFG,
                                                   int32_t l1Size = detail::kDefaultL1Size) {
    MatmulApiStaticTiling t{};
    t.cfg = mmCFG;
    t.singleCoreM = static_cast<int32_t>(mmCFG.singleCoreM);
    t.singleCoreN = static_cast<int32_t>(mmCFG.singleCoreN);
    t.singleCoreK = static_cast<int32_t>(mmCFG.singleCoreK);
    t.baseM = static_cast<int32_t>(mmCFG.basicM);
    t.baseN = static_cast<int32_t>(mmCFG.basicN);
    t.baseK = static_cast<int32_t>(mmCFG.basicK);
    if (t.singleCoreM > 0 && t.singleCoreN > 0 && t.singleCoreK > 0) {
        t.M = t.singleCoreM, t.N = t.singleCoreN, t.Ka = t.Kb = t.singleCoreK;
        t.usedCoreNum = 1;
    }
    if (t.baseM > 0 && t.baseN > 0 && t.baseK > 0) {
        const int32_t a = t.baseM * t.baseK * static_cast<int32_t>(sizeof(typename A_TYPE::DType));
        const int32_t b = t.baseN * t.baseK * static_cast<int32_t>(sizeof(typename B_TYPE::DType));
        const int32_t bias = t.baseN * static_cast<int32_t>(sizeof(typename BIAS_TYPE::DType));
        t.depthA1 = t.depthB1 = 2 * (a + b) + bias <= l1Size ? 2 : 1;
        t.stepM = t.stepN = t.stepKa = t.stepKb = 1;
        t.isBias = 1;  // whether SetBias comes is known at run time: keep its baseN row
        t.iterateOrder = mmCFG.iterateOrder == IterateOrder::ORDER_N ? 1 : 0;
        t.dbL0A = t.dbL0B = 2;
        t.dbL0C = 1;
    }
    (void)sizeof(typename C_TYPE::DType);
    return t;
}

// An operand held either in GM or in UB/L1: element (r, c) of a row-major [rows, cols] layout.
template <class T>
struct Operand {
    const T* base = nullptr;
    bool set = false;
    GlobalTensor<T> gm;  // when the operand is in GM: for extent checks
    bool in_gm = false;
    uint64_t local_elems = 0;  // when it is a LocalTensor: its size, for the same checks
};

// MM_CFG is `const auto&` (API reference, Matmul template parameters): a MatmulConfig, or a
// MatmulApiStaticTiling from GetMatmulApiTiling whose constant shapes the object uses.
// MatmulImpl is the class the documented `Matmul` alias names (API reference, Matmul template
// parameters: `using Matmul = AscendC::MatmulImpl<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, MM_CFG, MM_CB, ...>`);
// kernels declare either.
template <class A, class B, class C, class BIAS = MatmulType<TPosition::GM, CubeFormat::ND, float>,
          const auto& MM_CFG = CFG_NORM, class MM_CB = MatmulCallBackFunc<nullptr, nullptr, nullptr>>
class MatmulImpl {
    static_assert(MM_CB::kDefault,
                  "Matmul with user copy functions (MatmulCallBackFunc with a non-null DataCopyOut/CopyA1/CopyB1) "
                  "is not emulated: the emulator computes the product whole, with no per-block moves to replace");
    static_assert(C::fmt != CubeFormat::NZ,
                  "Matmul with an NZ result (C's MatmulType format NZ) is not emulated: the emulator writes C "
                  "as ND; NZ operands A and B are read in their layout");
    using TA = typename A::DType;
    using TB = typename B::DType;
    using TC = typename C::DType;
    using TBias = typename BIAS::DType;
    using CfgType = std::remove_cv_t<std::remove_reference_t<decltype(MM_CFG)>>;
    static constexpr bool kStaticTiling = std::is_same_v<CfgType, MatmulApiStaticTiling>;
    static_assert(kStaticTiling || std::is_same_v<CfgType, MatmulConfig>,
                  "Matmul's MM_CFG is a MatmulConfig or a MatmulApiStaticTiling (GetMatmulApiTiling)");

  public:
    void Init(const TCubeTiling* tiling, AscendC::TPipe* pipe = nullptr, KG_LOC) {
        if constexpr (kStaticTiling) set_static_tiling(tiling, file, line);
        else if (tiling) tiling_ = *tiling;
        check_base_fractals(file, line);
        reserve_share(pipe ? pipe : AscendC::GetTPipePtr(), file, line);
        m_ = tiling_.singleCoreM;
        n_ = tiling_.singleCoreN;
        k_ = tiling_.singleCoreK;
        orgM_ = tiling_.M;
        orgN_ = tiling_.N;
        orgKa_ = tiling_.Ka;
        orgKb_ = tiling_.Kb;
        bias_.set = false;
        co1_rows_ = co1_cols_ = -1;
    }
    void SetOrgShape(int orgM, int orgN, int orgK) { SetOrgShape(orgM, orgN, orgK, orgK, orgN); }
    void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0) {
        orgM_ = orgM;
        orgN_ = orgN;
        orgKa_ = orgKa;
        orgKb_ = orgKb;
        (void)orgKc;
    }
    // SetSingleShape is SetTail under its current name (the API reference: the same function,
    // the recommended spelling), so it too starts the next Iterate walk afresh.
    void SetSingleShape(int m, int n, int k, KG_LOC) { SetTail(m, n, k, file, line); }
    // -1 keeps the single-core size; a negative size (a block past the end of the matrix, which
    // kernels compute as `M - idx * singleCoreM`) leaves nothing to compute; 0 in M or N is one
    // base block (warn_zero_size_block).
    void SetTail(int tailM = -1, int tailN = -1, int tailK = -1, KG_LOC) {
        iter_ = -1;
        if (tailM == 0 || tailN == 0) warn_zero_size_block(tailM == 0, tailN == 0, file, line);
        if (tailM != -1) m_ = tailM == 0 ? std::max(tiling_.baseM, 0) : std::max(tailM, 0);
        if (tailN != -1) n_ = tailN == 0 ? std::max(tiling_.baseN, 0) : std::max(tailN, 0);
        if (tailK != -1) k_ = tailK > 0 ? tailK : 0;
    }
    void SetTensorA(const GlobalTensor<TA>& a, bool isTransposeA = false) {
        iter_ = -1;  // new operands: the next Iterate starts a new product
        a_ = Operand<TA>{a.GetPhyAddr(), true, a, true};
        transA_ = isTransposeA;
    }
    void SetTensorA(const LocalTensor<TA>& a, bool isTransposeA = false, KG_LOC) {
        check_l1_start("SetTensorA", a, file, line);
        iter_ = -1;  // new operands: the next Iterate starts a new product
        a_ = Operand<TA>{a.data(), true, {}, false, a.GetSize()};
        transA_ = isTransposeA;
    }
    void SetTensorB(const GlobalTensor<TB>& b, bool isTransposeB = false) {
        iter_ = -1;  // new operands: the next Iterate starts a new product
        b_ = Operand<TB>{b.GetPhyAddr(), true, b, true};
        transB_ = isTransposeB;
    }
    void SetTensorB(const LocalTensor<TB>& b, bool isTransposeB = false, KG_LOC) {
        check_l1_start("SetTensorB", b, file, line);
        iter_ = -1;  // new operands: the next Iterate starts a new product
        b_ = Operand<TB>{b.data(), true, {}, false, b.GetSize()};
        transB_ = isTransposeB;
    }
    // The value a user copy function receives as dataPtr (API reference, SetUserDefInfo); only the
    // default, built-in copies run here, which take none.
    void SetUserDefInfo(const uint64_t tilingPtr) { user_def_info_ = tilingPtr; }
    void SetBias(const GlobalTensor<TBias>& bias) { bias_ = Operand<TBias>{bias.GetPhyAddr(), true, bias, true}; }
    void SetBias(const LocalTensor<TBias>& bias) { bias_ = Operand<TBias>{bias.data(), true, {}, false, bias.GetSize()}; }
    void ClearBias() { bias_.set = false; }
    void SetLocalWorkspace(const LocalTensor<uint8_t>&) {}
    void SetWorkspace(GM_ADDR, int) {}
    // The GM workspace an asynchronous Iterate<false> stages its results in (API reference,
    // SetWorkspace): every call completes before it returns here, so none is needed.
    template <class T>
    void SetWorkspace(const GlobalTensor<T>&) {}
    // HF32 mode (API reference, Matmul > SetHF32): float inputs rounded to hf32 inside the cube.
    // The hf32 format's width is not documented, so the product stays float32 here (more precise
    // than the NPU's).
    void SetHF32(bool enableHF32 = false, int32_t transMode = 0) {
        (void)enableHF32;
        (void)transMode;
    }
    // The AIV this object serves in a mix kernel (API reference, Matmul > SetSubBlockIdx): the
    // CPU computes each AIV's calls directly, so nothing is routed by it.
    void SetSubBlockIdx(uint8_t subBlockIdx) { (void)subBlockIdx; }
    void End() {
        iter_ = -1;
        async_next_ = -1;
        co1_rows_ = co1_cols_ = -1;
    }

    // template <bool sync = true> (API reference): sync false returns before the result lands
    // (WaitIterateAll waits); here every call completes before it returns, so both are one.
    // enAtomic 1/2/3 accumulate into GM with add/max/min (0: the block's SetAtomic* mode, as any
    // GM write); enSequentialWrite writes each baseM x baseN block whole, one after another in
    // iteration order; fakeMsg only pairs the AIVs' calls under IBShare and computes nothing.
    template <bool sync = true>
    void IterateAll(const GlobalTensor<TC>& c, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                    bool waitIterateAll = false, bool fakeMsg = false, KG_LOC) {
        (void)waitIterateAll;
        if (fakeMsg) return;
        compute(file, line);
        const kernelgen::AtomicMode mode = atomic_mode(enAtomic, file, line);
        const int bM = base_m(), bN = base_n();
        auto at = [&](int i, int j) -> int64_t {
            if (!enSequentialWrite) return int64_t(i) * orgN_ + j;
            const int bm = i / bM, bn = j / bN;  // block (bm, bn), M first within N
            const int64_t block = int64_t(bn) * blocks_m() + bm;
            return block * bM * bN + int64_t(i - bm * bM) * bN + (j - bn * bN);
        };
        {
            // The values each row stores go with it: two AIVs writing the same product (IBShare,
            // both computing the whole result) store the same bytes, which is no race.
            AtomicScope scope(mode);
            std::vector<TC> values(size_t(std::max(n_, 0)));
            for (int i = 0; i < m_ && n_ > 0; ++i)
                for (int j = 0; j < n_; j += enSequentialWrite ? bN : n_) {
                    const int count = std::min(n_ - j, enSequentialWrite ? bN : n_);
                    for (int k = 0; k < count; ++k) values[size_t(k)] = kernelgen::narrow<TC>(acc_[size_t(i) * n_ + j + k]);
                    c.check_access("Matmul::IterateAll", uint64_t(at(i, j)), count, true, file, line, values.data());
                }
        }
        for (int i = 0; i < m_; ++i)
            for (int j = 0; j < n_; ++j) store(c.GetPhyAddr() + at(i, j), acc_[size_t(i) * n_ + j], mode);
        kernelgen::counters().l0c_to_gm_bytes += uint64_t(m_) * n_ * sizeof(TC);
    }
    template <bool sync = true>
    void IterateAll(const LocalTensor<TC>& c, uint8_t enAtomic = 0, KG_LOC) {
        compute(file, line);
        if (uint64_t(m_) * n_ > c.GetSize())
            kernelgen::failf("count-exceeds-tensor", file, line, "Matmul::IterateAll: %d x %d result, LocalTensor of %u", m_, n_,
                             c.GetSize());
        const kernelgen::AtomicMode mode = enAtomic ? atomic_mode(enAtomic, file, line) : kernelgen::AtomicMode::NONE;
        for (int i = 0; i < m_; ++i)
            for (int j = 0; j < n_; ++j) store(c.data() + int64_t(i) * n_ + j, acc_[size_t(i) * n_ + j], mode);
    }
    // The wait for an asynchronous IterateAll (API reference, WaitIterateAll): every call has
    // completed when it returns here.
    void WaitIterateAll() {}

    // Walks the result in baseM x baseN blocks, M first within N (iterateOrder 0). Once it has
    // returned false, the next Iterate starts the product again (a loop per work unit).
    //
    // enPartialSum adds the product to the result already in CO1 instead of overwriting it; the
    // reference allows it only when one block is the whole single-core result (singleCoreM ==
    // baseM and singleCoreN == baseN), and it needs an earlier Iterate on this object to have
    // put a result there (End() or Init() clears it).
    // `sync` (the template argument, default true) picks blocking or asynchronous issue; every
    // call completes before it returns here. Asynchronously (API reference, Iterate<false>: one
    // call starts the walk and each GetTensorC<false> fetches the next block) the GetTensorC
    // calls after an Iterate<false> take the blocks in order; one Iterate<false> per
    // GetTensorC<false> walks the same way.
    template <bool sync = true>
    bool Iterate(bool enPartialSum = false, KG_LOC) {
        if (iter_ < 0 || iter_ >= blocks_m() * blocks_n()) {
            if (enPartialSum) check_partial_sum(file, line);
            std::vector<float> before;
            if (enPartialSum) before.swap(acc_);
            compute(file, line);
            for (size_t i = 0; i < before.size(); ++i) acc_[i] += before[i];
            iter_ = 0;
            co1_rows_ = m_, co1_cols_ = n_;
        } else {
            ++iter_;
        }
        async_next_ = sync ? -1 : iter_;
        return iter_ < blocks_m() * blocks_n();
    }
    template <bool sync = true>
    void GetTensorC(const GlobalTensor<TC>& c, uint8_t enAtomic = 0, bool enSequentialWrite = false, KG_LOC) {
        if (!sync) next_async_block();
        check_iterating("Matmul::GetTensorC", file, line);
        int bm = iter_ % blocks_m(), bn = iter_ / blocks_m();
        int bM = base_m(), bN = base_n();
        int i0 = bm * bM, i1 = std::min(m_, (bm + 1) * bM), j0 = bn * bN, j1 = std::min(n_, (bn + 1) * bN);
        auto row = [&](int i) { return enSequentialWrite ? int64_t(i - i0) * bN : int64_t(i) * orgN_ + j0; };
        const kernelgen::AtomicMode mode = atomic_mode(enAtomic, file, line);
        {
            // The values go with each row, as IterateAll's: two blocks storing the same block of
            // the same product store the same bytes, which is no race.
            AtomicScope scope(mode);
            std::vector<TC> values(size_t(std::max(j1 - j0, 0)));
            for (int i = i0; i < i1 && j1 > j0; ++i) {
                for (int j = j0; j < j1; ++j) values[size_t(j - j0)] = kernelgen::narrow<TC>(acc_[size_t(i) * n_ + j]);
                c.check_access("Matmul::GetTensorC", uint64_t(row(i)), j1 - j0, true, file, line, values.data());
            }
        }
        for (int i = i0; i < i1; ++i)
            for (int j = j0; j < j1; ++j) store(c.GetPhyAddr() + row(i) + (j - j0), acc_[size_t(i) * n_ + j], mode);
        if (i1 > i0 && j1 > j0) kernelgen::counters().l0c_to_gm_bytes += uint64_t(i1 - i0) * (j1 - j0) * sizeof(TC);
    }
    template <bool sync = true>
    void GetTensorC(const LocalTensor<TC>& c, uint8_t enAtomic = 0, bool = false, KG_LOC) {
        if (!sync) next_async_block();
        check_iterating("Matmul::GetTensorC", file, line);
        int bm = iter_ % blocks_m(), bn = iter_ / blocks_m();
        int bM = base_m(), bN = base_n();
        if (uint64_t(bM) * bN > c.GetSize())
            kernelgen::failf("count-exceeds-tensor", file, line, "Matmul::GetTensorC: %d x %d block, LocalTensor of %u", bM, bN,
                             c.GetSize());
        for (int i = bm * bM; i < std::min(m_, (bm + 1) * bM); ++i)
            for (int j = bn * bN; j < std::min(n_, (bn + 1) * bN); ++j)
                store(c.data() + int64_t(i - bm * bM) * bN + (j - bn * bN), acc_[size_t(i) * n_ + j],
                      enAtomic ? atomic_mode(enAtomic, file, line) : kernelgen::AtomicMode::NONE);
    }

  private:
    // A MatmulApiStaticTiling's constant shapes: the run-time TCubeTiling must agree with each
    // (GetMatmulApiTiling: "the specified values must be consistent with the tiling's"), and gives
    // the rest; without one (nullptr) the constant tiling must be complete ("full constants":
    // a tiling that fixes only baseM/N/K still needs REGIST_MATMUL_OBJ's TCubeTiling).
    void set_static_tiling(const TCubeTiling* tiling, const char* file, int line) {
        const MatmulApiStaticTiling& st = MM_CFG;
        const struct {
            const char* name;
            int32_t constant;
            int32_t TCubeTiling::*field;
        } shapes[] = {{"singleCoreM", st.singleCoreM, &TCubeTiling::singleCoreM},
                      {"singleCoreN", st.singleCoreN, &TCubeTiling::singleCoreN},
                      {"singleCoreK", st.singleCoreK, &TCubeTiling::singleCoreK},
                      {"baseM", st.baseM, &TCubeTiling::baseM},
                      {"baseN", st.baseN, &TCubeTiling::baseN},
                      {"baseK", st.baseK, &TCubeTiling::baseK}};
        if (tiling == nullptr) {
            std::string unset;
            for (const auto& s : shapes)
                if (s.constant <= 0) unset += std::string(unset.empty() ? "" : ", ") + s.name;
            if (!unset.empty())
                kernelgen::failf("param-range", file, line,
                                 "Matmul: no TCubeTiling (nullptr) for a MatmulApiStaticTiling that leaves %s to run "
                                 "time; only full constants (singleCoreM/N/K and baseM/N/K all set in the MatmulConfig "
                                 "given to GetMatmulApiTiling) may replace REGIST_MATMUL_OBJ's tiling with nullptr",
                                 unset.c_str());
            tiling_ = TCubeTiling();
            tiling_.usedCoreNum = st.usedCoreNum;
            tiling_.M = st.M, tiling_.N = st.N, tiling_.Ka = st.Ka, tiling_.Kb = st.Kb;
            tiling_.depthA1 = st.depthA1, tiling_.depthB1 = st.depthB1;
            tiling_.stepM = st.stepM, tiling_.stepN = st.stepN, tiling_.stepKa = st.stepKa, tiling_.stepKb = st.stepKb;
            tiling_.isBias = st.isBias, tiling_.iterateOrder = st.iterateOrder;
            tiling_.dbL0A = st.dbL0A, tiling_.dbL0B = st.dbL0B, tiling_.dbL0C = st.dbL0C;
            for (const auto& s : shapes) tiling_.*s.field = s.constant;
            return;
        }
        std::string differ;
        for (const auto& s : shapes)
            if (s.constant > 0 && tiling->*s.field != s.constant)
                differ += std::string(differ.empty() ? "" : ", ") + s.name + " " + std::to_string(s.constant) +
                          " vs " + std::to_string(tiling->*s.field);
        if (!differ.empty())
            kernelgen::failf("tiling-mismatch", file, line,
                             "Matmul: the MatmulApiStaticTiling's constants disagree with the run-time TCubeTiling "
                             "(constant vs tiling: %s); GetMatmulApiTiling requires the values set in the MatmulConfig "
                             "to equal those the host tiling computed",
                             differ.c_str());
        tiling_ = *tiling;
    }
    // An operand the Matmul reads from L1 (A1/B1/TSCM) must start on L1's 32-byte alignment (the
    // AscendC general address-alignment table, cube.h kCubeAlign): a per-tap element offset into
    // a TSCM slab breaks it.
    template <class T>
    static void check_l1_start(const char* api, const LocalTensor<T>& t, const char* file, int line) {
        if (kernelgen::is_l1_position(t.GetPosition()))
            AscendC::detail::check_cube_start((std::string("Matmul::") + api).c_str(), "the operand", t, file, line);
    }
    void check_partial_sum(const char* file, int line) const {
        if (co1_rows_ < 0)
            kernelgen::failf("param-range", file, line,
                             "Matmul::Iterate(enPartialSum = true) with no result in CO1 to add to: the first Iterate "
                             "of a sum (after Init or End) must be Iterate(false)");
        if (m_ != base_m() || n_ != base_n())
            kernelgen::failf("param-range", file, line,
                             "Matmul::Iterate(enPartialSum = true) needs singleCoreM == baseM and singleCoreN == baseN "
                             "(one block accumulated in CO1); the shape is %d x %d with base %d x %d",
                             m_, n_, base_m(), base_n());
        if (m_ != co1_rows_ || n_ != co1_cols_)
            kernelgen::failf("param-range", file, line,
                             "Matmul::Iterate(enPartialSum = true): a %d x %d product onto the %d x %d result in CO1", m_,
                             n_, co1_rows_, co1_cols_);
    }
    // baseM, baseN, baseK are the shape of one Mmad, so they follow the fractal layout: M and N
    // in 16-row fractals, K in C0 = 32 B / sizeof(A) (TCubeTiling: "baseM, baseN, baseK ...
    // aligned to the fractal", AscendC API reference; Mmad data formats).
    void check_base_fractals(const char* file, int line) const {
        const int c0 = static_cast<int>(32 / sizeof(TA));
        const struct {
            const char* name;
            int value, unit;
        } bases[] = {{"baseM", tiling_.baseM, 16}, {"baseN", tiling_.baseN, 16}, {"baseK", tiling_.baseK, c0}};
        for (const auto& b : bases)
            if (b.value > 0 && b.value % b.unit != 0)
                kernelgen::failf("fractal-align", file, line,
                                 "Matmul: TCubeTiling %s = %d is not a multiple of %d (%s fractals of %s); baseM/baseN "
                                 "go in 16-row fractals and baseK in C0 = 32 B / sizeof(A) elements",
                                 b.name, b.value, b.unit, b.unit == 16 ? "16-row" : "C0-wide", kernelgen::type_name<TA>());
    }
    // The object's own L1 and L0 use, from its tiling (TCubeTiling: depthA1 base blocks of
    // baseM x baseK in A1, depthB1 of baseN x baseK in B1, baseN bias values; one Mmad's
    // baseM x baseK in L0A, baseK x baseN in L0B, baseM x baseN float/int32 in L0C). It is taken
    // from the TPipe once, so the user's InitBuffer on the same memories adds up with it; the L0
    // part is one reservation every Matmul object of the TPipe shares (TPipe::reserve_shared_for_api).
    void reserve_share(AscendC::TPipe* pipe, const char* file, int line) {
        if (pipe == nullptr || pipe == reserved_on_) return;
        reserved_on_ = pipe;
        const uint64_t bm = std::max(tiling_.baseM, 0), bn = std::max(tiling_.baseN, 0), bk = std::max(tiling_.baseK, 0);
        const uint64_t da = std::max(tiling_.depthA1, 0), db = std::max(tiling_.depthB1, 0);
        auto label = [](const char* part, const char* dims, std::initializer_list<uint64_t> v, size_t size) {
            std::string s = std::string("Matmul ") + part + " (" + dims + " = ";
            for (uint64_t x : v) s += std::to_string(x) + " x ";
            return s + std::to_string(size) + " B)";
        };
        if (A::position != TPosition::TSCM)
            pipe->reserve_for_api(TPosition::A1, label("A1", "depthA1 x baseM x baseK", {da, bm, bk}, sizeof(TA)),
                                da * bm * bk * sizeof(TA), file, line);
        if (B::position != TPosition::TSCM)
            pipe->reserve_for_api(TPosition::B1, label("B1", "depthB1 x baseN x baseK", {db, bn, bk}, sizeof(TB)),
                                db * bn * bk * sizeof(TB), file, line);
        if (tiling_.isBias)
            pipe->reserve_for_api(TPosition::A1, label("bias", "baseN", {bn}, sizeof(TBias)), bn * sizeof(TBias), file, line);
        // One Mmad's operands and result: every Matmul object of the TPipe uses them in turn.
        pipe->reserve_shared_for_api(TPosition::A2, label("L0A", "baseM x baseK", {bm, bk}, sizeof(TA)),
                                     bm * bk * sizeof(TA), file, line);
        pipe->reserve_shared_for_api(TPosition::B2, label("L0B", "baseK x baseN", {bk, bn}, sizeof(TB)),
                                     bk * bn * sizeof(TB), file, line);
        pipe->reserve_shared_for_api(TPosition::CO1, label("L0C", "baseM x baseN", {bm, bn}, 4), bm * bn * 4, file,
                                     line);
    }
    // A single-core M or N of 0 (SetSingleShape/SetTail). The reference gives 0 no meaning (sizes
    // are element counts; -1 alone keeps the tiling's), and Iterate's "false: all of the core's
    // data computed" would make it an empty product. But Ascend/samples HighPerfMatMul and
    // MatmulLeakyReluCustom, verified on the NPU, pass SetSingleShape(0, 0, K) from members they
    // never assign, call Iterate() once and GetTensorC, and read a whole baseM x baseN block of C
    // back: the NPU computes one base block in a dimension of size 0 (inferred). So does the
    // emulator, with this warning: a kernel that means "nothing" by a 0 gets that block written.
    void warn_zero_size_block(bool zeroM, bool zeroN, const char* file, int line) const {
        const std::string dims = zeroM && zeroN ? "M and N" : zeroM ? "M" : "N";
        std::string base;
        if (zeroM) base += "baseM = " + std::to_string(tiling_.baseM);
        if (zeroN) base += std::string(zeroM ? ", " : "") + "baseN = " + std::to_string(tiling_.baseN);
        kernelgen::warn("param-range",
                        "Matmul::SetSingleShape/SetTail: single-core " + dims + " of 0, a size the API reference gives "
                            "no meaning (-1 keeps the tiling's); computed as one base block (" + base + "), as the "
                            "NPU does for the Ascend/samples kernels that pass 0; pass the block's real size",
                        file, line);
    }
    int base_m() const { return tiling_.baseM > 0 ? tiling_.baseM : std::max(m_, 1); }
    int base_n() const { return tiling_.baseN > 0 ? tiling_.baseN : std::max(n_, 1); }
    int blocks_m() const { return static_cast<int>(kernelgen::ceil_div(m_, base_m())); }
    int blocks_n() const { return static_cast<int>(kernelgen::ceil_div(n_, base_n())); }

    void compute(const char* file, int line) {
        if (!a_.set || !b_.set)
            kernelgen::failf("param-range", file, line, "Matmul: SetTensorA and SetTensorB must come before Iterate");
        if (m_ < 0 || n_ < 0 || k_ < 0 || (m_ > 0 && n_ > 0 && k_ == 0 && tiling_.singleCoreK == 0))
            kernelgen::failf("param-range", file, line, "Matmul: shape M=%d N=%d K=%d (tiling not set?)", m_, n_, k_);
        int lda = orgKa_ > 0 ? orgKa_ : k_, ldb = orgN_ > 0 ? orgN_ : n_;
        int ldat = orgM_ > 0 ? orgM_ : m_, ldbt = orgKb_ > 0 ? orgKb_ : k_;
        if (orgN_ <= 0) orgN_ = n_;
        acc_.assign(size_t(m_) * n_, 0.0f);
        if (m_ == 0 || n_ == 0) return;
        // A(i, k) at ai[i] + ak[k], B(k, j) at bk[k] + bj[j]: the stored matrix is A (M x K) or,
        // transposed, K x M; B (K x N) or N x K; its row count in the original shape sets an NZ
        // operand's column-block stride.
        const Layout la = transA_ ? Layout::of(A::fmt == CubeFormat::NZ, k_, m_, ldat, lda, c0<TA>())
                                  : Layout::of(A::fmt == CubeFormat::NZ, m_, k_, lda, ldat, c0<TA>());
        const Layout lb = transB_ ? Layout::of(B::fmt == CubeFormat::NZ, n_, k_, ldbt, ldb, c0<TB>())
                                  : Layout::of(B::fmt == CubeFormat::NZ, k_, n_, ldb, ldbt, c0<TB>());
        const auto& ai = transA_ ? la.col : la.row;
        const auto& ak = transA_ ? la.row : la.col;
        const auto& bk = transB_ ? lb.col : lb.row;
        const auto& bj = transB_ ? lb.row : lb.col;
        check_reads(la, lb, file, line);
        count_cube_work();
        for (int i = 0; i < m_; ++i)
            for (int j = 0; j < n_; ++j) {
                float s = bias_.set ? static_cast<float>(bias_.base[j]) : 0.0f;
                for (int k = 0; k < k_; ++k)
                    s += static_cast<float>(a_.base[ai[i] + ak[k]]) * static_cast<float>(b_.base[bk[k] + bj[j]]);
                acc_[size_t(i) * n_ + j] = s;
            }
    }
    template <class T>
    static constexpr int c0() { return static_cast<int>(32 / sizeof(T)); }
    // Where element (r, c) of a stored rows x cols operand lies: row[r] + col[c]. ND: rows `ld`
    // elements apart. NZ (API reference, data formats: fractals of 16 rows x C0 = 32 B, the
    // column blocks stored one after another, each holding every row of the original shape,
    // aligned to 16: [cols / C0][align16(org_rows)][C0]): r * C0 + (c / C0) * align16(org_rows) * C0
    // + c % C0.
    struct Layout {
        std::vector<int64_t> row, col;
        bool nz = false;
        static Layout of(bool nz, int rows, int cols, int64_t ld, int64_t org_rows, int c0) {
            Layout l;
            l.nz = nz;
            l.row.resize(size_t(rows));
            l.col.resize(size_t(cols));
            const int64_t block = (std::max<int64_t>(org_rows, rows) + 15) / 16 * 16 * c0;
            for (int r = 0; r < rows; ++r) l.row[size_t(r)] = nz ? int64_t(r) * c0 : int64_t(r) * ld;
            for (int c = 0; c < cols; ++c) l.col[size_t(c)] = nz ? c / c0 * block + c % c0 : c;
            return l;
        }
        int64_t span() const { return row.empty() || col.empty() ? 0 : row.back() + col.back() + 1; }
    };
    // Every element the product reads must be inside its GlobalTensor and allocation (GM) or
    // inside its LocalTensor (UB/L1): rows [first, first + n) of each operand.
    template <class T>
    static void check_rows(const Operand<T>& op, const char* role, int rows, int64_t ld, int n, const char* file,
                           int line) {
        if (rows <= 0 || n <= 0) return;
        if (op.in_gm) {
            for (int r = 0; r < rows; ++r) op.gm.check_access("Matmul", uint64_t(r) * ld, uint64_t(n), false, file, line);
            return;
        }
        uint64_t need = uint64_t(rows - 1) * ld + n;
        if (need > op.local_elems)
            kernelgen::failf("count-exceeds-tensor", file, line, "Matmul: reads %llu elements of %s, a LocalTensor of %llu",
                             (unsigned long long)need, role, (unsigned long long)op.local_elems);
    }
    // An NZ operand's elements fill whole fractals of one contiguous span: that span is checked.
    template <class T>
    static void check_operand(const Operand<T>& op, const char* role, const Layout& l, const char* file, int line) {
        if (l.row.empty() || l.col.empty()) return;
        if (!l.nz) {
            const int64_t ld = l.row.size() > 1 ? l.row[1] : 0;
            check_rows(op, role, int(l.row.size()), ld, int(l.col.size()), file, line);
        } else if (op.in_gm) {
            op.gm.check_access("Matmul", 0, uint64_t(l.span()), false, file, line);
        } else if (uint64_t(l.span()) > op.local_elems) {
            kernelgen::failf("count-exceeds-tensor", file, line, "Matmul: reads %llu elements of %s (NZ), a LocalTensor of %llu",
                             (unsigned long long)l.span(), role, (unsigned long long)op.local_elems);
        }
    }
    void check_reads(const Layout& la, const Layout& lb, const char* file, int line) const {
        if (k_ > 0) {
            check_operand(a_, "A", la, file, line);
            check_operand(b_, "B", lb, file, line);
        }
        if (bias_.set) check_rows(bias_, "bias", 1, 0, n_, file, line);
    }
    // Counters for the cost model: the product's MACs, and what a blocked product reads from GM
    // into L1: each baseM x baseN block its A panel (baseM x K) and B panel (K x baseN).
    void count_cube_work() const {
        auto& c = kernelgen::counters();
        const uint64_t macs = uint64_t(m_) * n_ * k_;
        if (sizeof(TA) >= 4) c.cube_macs_fp32 += macs;
        else c.cube_macs += macs;
        const uint64_t a = a_.in_gm ? uint64_t(m_) * k_ * sizeof(TA) * blocks_n() : 0;
        const uint64_t b = b_.in_gm ? uint64_t(k_) * n_ * sizeof(TB) * blocks_m() : 0;
        const uint64_t bias = bias_.set && bias_.in_gm ? uint64_t(n_) * sizeof(TBias) * blocks_m() : 0;
        c.gm_to_l1_bytes += a + b + bias;
        // Every block's A and B panels go from L1 into L0A/L0B once, wherever the operand lives.
        c.l1_to_l0_bytes += uint64_t(m_) * k_ * sizeof(TA) * blocks_n() + uint64_t(k_) * n_ * sizeof(TB) * blocks_m();
    }
    // The block an asynchronous GetTensorC<false> fetches: the next one of the walk its
    // Iterate<false> started.
    void next_async_block() {
        if (async_next_ < 0) return;
        iter_ = async_next_++;
    }
    void check_iterating(const char* api, const char* file, int line) const {
        if (iter_ < 0 || iter_ >= blocks_m() * blocks_n())
            kernelgen::failf("param-range", file, line, "%s without a block: call it after an Iterate() that returned true", api);
    }
    static void store(TC* p, float v, kernelgen::AtomicMode mode) {
        const float old = static_cast<float>(*p);
        switch (mode) {
            case kernelgen::AtomicMode::ADD: *p = kernelgen::narrow<TC>(old + v); break;
            case kernelgen::AtomicMode::MAX: *p = kernelgen::narrow<TC>(std::max(old, v)); break;
            case kernelgen::AtomicMode::MIN: *p = kernelgen::narrow<TC>(std::min(old, v)); break;
            default: *p = kernelgen::narrow<TC>(v);
        }
    }
    // enAtomic of IterateAll/GetTensorC (API reference: 0 none, 1 add, 2 max, 3 min); 0 leaves a GM
    // write to the block's SetAtomicAdd/Max/Min mode, as every GM write.
    static kernelgen::AtomicMode atomic_mode(uint8_t enAtomic, const char* file, int line) {
        switch (enAtomic) {
            case 0: return kernelgen::block().atomic;
            case 1: return kernelgen::AtomicMode::ADD;
            case 2: return kernelgen::AtomicMode::MAX;
            case 3: return kernelgen::AtomicMode::MIN;
            default:
                kernelgen::failf("param-range", file, line, "Matmul: enAtomic %u is not 0-3 (none, add, max, min)", enAtomic);
        }
    }
    // The block's atomic mode while a result's GM accesses are recorded: the cross-core model
    // tells accumulations (which may meet in any order) from plain stores by it.
    struct AtomicScope {
        kernelgen::AtomicMode saved;
        explicit AtomicScope(kernelgen::AtomicMode mode) : saved(kernelgen::block().atomic) { kernelgen::block().atomic = mode; }
        ~AtomicScope() { kernelgen::block().atomic = saved; }
        AtomicScope(const AtomicScope&) = delete;
        AtomicScope& operator=(const AtomicScope&) = delete;
    };

    TCubeTiling tiling_{};
    AscendC::TPipe* reserved_on_ = nullptr;  // the TPipe this object's L1/L0 share was taken from
    int m_ = 0, n_ = 0, k_ = 0, orgM_ = 0, orgN_ = 0, orgKa_ = 0, orgKb_ = 0;
    Operand<TA> a_;
    Operand<TB> b_;
    Operand<TBias> bias_;
    uint64_t user_def_info_ = 0;
    bool transA_ = false, transB_ = false;
    std::vector<float> acc_;
    int iter_ = -1;
    int async_next_ = -1;  // the block the next GetTensorC<false> takes (-1: no asynchronous walk)
    int co1_rows_ = -1, co1_cols_ = -1;  // shape of the result in CO1 (-1: none since Init/End)
};

template <class A, class B, class C, class BIAS = MatmulType<TPosition::GM, CubeFormat::ND, float>,
          const auto& MM_CFG = CFG_NORM, class MM_CB = MatmulCallBackFunc<nullptr, nullptr, nullptr>>
using Matmul = MatmulImpl<A, B, C, BIAS, MM_CFG, MM_CB>;

}  // namespace matmul

namespace kernelgen {

// At most four Matmul objects in a program (AscendC REGIST_MATMUL_OBJ restrictions; ASCENDC_SPEC 7.12).
constexpr int MAX_MATMUL_OBJECTS = 4;

inline void regist_matmul_each(const char*, int, AscendC::TPipe*, GM_ADDR) {}
template <class M>
inline void regist_matmul_each(const char*, int, AscendC::TPipe*, GM_ADDR, M&) {}  // one object, its tiling set by Init
template <class M, class... Rest>
inline void regist_matmul_each(const char* file, int line, AscendC::TPipe* pipe, GM_ADDR ws, M& mm,
                               const TCubeTiling* tiling, Rest&&... rest) {
    mm.Init(tiling, pipe, file, line);
    regist_matmul_each(file, line, pipe, ws, rest...);
}
template <class... Args>
inline void regist_matmul(const char* file, int line, AscendC::TPipe* pipe, GM_ADDR ws, Args&&... args) {
    constexpr int objects = static_cast<int>(sizeof...(Args) + 1) / 2;  // (object, &tiling) pairs
    if (objects > MAX_MATMUL_OBJECTS)
        failf("matmul-object-count", file, line,
              "REGIST_MATMUL_OBJ registers %d Matmul objects; a program may define at most %d", objects,
              MAX_MATMUL_OBJECTS);
    // AscendC REGIST_MATMUL_OBJ restrictions: in separation mode (split cube/vector cores) it must be
    // called before InitBuffer (ASCENDC_SPEC 7.12). The error is a buffer in the cube core's memories,
    // where the Matmul object takes its own share from the same TPipe; UB buffers only (the vector
    // side's queues) are a warning: the share lies in L1/L0, and Ascend/samples' matmul + LeakyRelu
    // samples, verified on the NPU, register after their UB queue (inferred; README).
    const BufferRecord* cube = pipe ? pipe->first_cube_buffer() : nullptr;
    const BufferRecord* first = pipe ? pipe->first_buffer() : nullptr;
    if (cube && chip().split_cores)
        failf("matmul-register-order", file, line,
              "REGIST_MATMUL_OBJ after InitBuffer of %s (line %d, %s) on the same TPipe; on %s (separated cube and "
              "vector cores) REGIST_MATMUL_OBJ must come before any InitBuffer",
              cube->what.c_str(), cube->line, cube->arena, chip().name.c_str());
    if (first && chip().split_cores)
        warn("matmul-register-order",
             "REGIST_MATMUL_OBJ after InitBuffer of " + first->what + " (line " + std::to_string(first->line) +
                 ") on the same TPipe; on " + chip().name +
                 " (separated cube and vector cores) the API reference requires it before any InitBuffer; the "
                 "buffers before it are all in UB, apart from the Matmul object's L1/L0 share",
             file, line);
    regist_matmul_each(file, line, pipe, ws, args...);
}

// The pure Cube mode (API reference, Matmul usage: `#define ASCENDC_CUBE_ONLY` before including
// lib/matmul_intf.h): the AIC computes its own Matmul calls, with no AIV messaging. The toolchain
// sets this when a kernel source defines the macro (the header itself is precompiled before it).
inline bool& cube_only_mode() {
    static bool on = false;
    return on;
}

// REGIST_MATMUL_OBJ as the toolchain has it: a kernel that uses the Matmul API and declares no
// kernel type runs as mix AIC:AIV 1:2 on chips with separate cores; in a mix kernel the AIC
// serves the AIVs' Matmul calls and leaves the kernel function here (true), while the AIVs
// register their objects and go on; in the pure Cube mode the AIC registers and goes on. The
// CPU computes each caller's Matmul calls directly.
template <class... Args>
inline bool regist_matmul_obj(const char* file, int line, AscendC::TPipe* pipe, GM_ADDR ws, Args&&... args) {
    scheduler().declare_layout(CoreLayout::MIX_1_2, "the Matmul API (REGIST_MATMUL_OBJ, no kernel type)", file, line,
                               true);
    if (is_mix(scheduler().layout()) && t_core.is_aic && !cube_only_mode()) return true;
    regist_matmul(file, line, pipe, ws, args...);
    return false;
}

}  // namespace kernelgen

// REGIST_MATMUL_OBJ(&pipe, workspace, mm1, &tiling1[, mm2, &tiling2 ...]); a statement that
// returns from the kernel function on the AIC of a mix kernel.
#define REGIST_MATMUL_OBJ(pipe, workspace, ...) \
    if (::kernelgen::regist_matmul_obj(__FILE__, __LINE__, (pipe), (workspace), __VA_ARGS__)) return; \
    else (void)0

// MatmulConfig and its helpers are AscendC names (kernels use them under `using namespace AscendC`).
namespace AscendC {
using ::CubeFormat;
using matmul::BatchMode;
using matmul::BatchOutMode;
using matmul::GetMatmulApiTiling;
using matmul::GetMDLConfig;
using matmul::GetMMConfig;
using matmul::GetNormalConfig;
using matmul::GetSpecialMDLConfig;
using matmul::IterateOrder;
using matmul::Matmul;
using matmul::MatmulApiStaticTiling;
using matmul::MatmulBatchParams;
using matmul::MatmulCallBackFunc;
using matmul::MatmulImpl;
using matmul::MatmulConfig;
using matmul::MatmulConfigMode;
using matmul::MatmulFuncParams;
using matmul::MatmulQuantParams;
using matmul::MatmulShapeParams;
using matmul::MatmulType;
using matmul::ScheduleType;
using matmul::CFG_MDL;
using matmul::CFG_NORM;
}  // namespace AscendC

// The two templates' configurations are spelled unqualified in the API reference's Matmul
// prototype (`const auto& MM_CFG = CFG_NORM`), and kernels name them so at file scope with no
// using-directive (Ascend/samples 6_group_matmul: `MatmulImpl<..., CFG_MDL>`).
using matmul::CFG_MDL;
using matmul::CFG_NORM;
