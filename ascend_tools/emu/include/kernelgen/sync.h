// Synchronisation, block identity, workspace and core-type helpers. Blocks run one at a time
// and every API completes before it returns; flags and barriers feed the pipe model
// (pipe_model.h), which reports reads that nothing orders after their write on another pipe.
// SyncAll also hands control to the other blocks.
#pragma once

#include "device.h"
#include "pipe_model.h"
#include "tensor.h"

namespace kernelgen {

// KernelType -> the core layout a launch of that kernel gets (runtime.h).
inline CoreLayout layout_of(KernelType t) {
    static const CoreLayout table[] = {
        CoreLayout::AIV_ONLY,  // KERNEL_TYPE_AIV_ONLY
        CoreLayout::AIC_ONLY,  // KERNEL_TYPE_AIC_ONLY
        CoreLayout::AIV_ONLY,  // KERNEL_TYPE_MIX_AIV_1_0
        CoreLayout::AIC_ONLY,  // KERNEL_TYPE_MIX_AIC_1_0
        CoreLayout::MIX_1_1,   // KERNEL_TYPE_MIX_AIC_1_1
        CoreLayout::MIX_1_2,   // KERNEL_TYPE_MIX_AIC_1_2
        CoreLayout::AIV_ONLY,  // KERNEL_TYPE_MIX_AIV_HARD_SYNC
        CoreLayout::MIX_1_2,   // KERNEL_TYPE_MIX_AIC_HARD_SYNC
        // The 310P types: there a block is one core with cube and vector units (the chip's
        // split_cores is false), which the vector-only layout runs; on a chip with separate
        // cores (xllm-ops onerec_final_beam_select declares MIX_VECTOR_CORE for ascend910b) the
        // blocks are vector cores, whatever the AI Cores they would add on a 310P.
        CoreLayout::AIV_ONLY,  // KERNEL_TYPE_AICORE
        CoreLayout::AIV_ONLY,  // KERNEL_TYPE_VECTORCORE
        CoreLayout::AIV_ONLY,  // KERNEL_TYPE_MIX_AICORE
        CoreLayout::AIV_ONLY,  // KERNEL_TYPE_MIX_VECTOR_CORE
    };
    return table[static_cast<int>(t)];
}

inline void declare_kernel_type(KernelType t, const char* file, int line) {
    scheduler().declare_layout(layout_of(t), "KERNEL_TASK_TYPE_DEFAULT", file, line);
}

}  // namespace kernelgen

#define KERNEL_TASK_TYPE_DEFAULT(type) ::kernelgen::declare_kernel_type((type), __FILE__, __LINE__)
#define KERNEL_TASK_TYPE(key, type) \
    ((::kernelgen::tiling_key() == static_cast<uint64_t>(key)) ? KERNEL_TASK_TYPE_DEFAULT(type) : void())
#define ASCEND_IS_AIV (!::kernelgen::t_core.is_aic)
#define ASCEND_IS_AIC (::kernelgen::t_core.is_aic)
#define ASCEND_IS_NOT_AIV (::kernelgen::t_core.is_aic)
#define ASCEND_IS_NOT_AIC (!::kernelgen::t_core.is_aic)
#define TRACE_START(id)
#define TRACE_STOP(id)

// ASSERT(expr) and ASSERT(expr, fmt, args...): a false expression stops the kernel (the NPU traps
// and prints the message) as an `assert-failed` rule failure at the ASSERT line.
namespace kernelgen {
inline std::string assert_detail() { return ""; }
template <class... A>
inline std::string assert_detail(const char* fmt, A... args) {
    char buf[512];
    std::snprintf(buf, sizeof buf, fmt, args...);
    return std::string(": ") + buf;
}
[[noreturn]] inline void assert_failed(const char* api, const char* expr, const std::string& detail,
                                       const char* file, int line) {
    fail("assert-failed", std::string(api) + "(" + expr + ") failed" + detail, file, line);
}
}  // namespace kernelgen
#ifndef ASSERT
#define ASSERT(expr, ...)                                                                                  \
    ((expr) ? (void)0                                                                                      \
            : ::kernelgen::assert_failed("ASSERT", #expr, ::kernelgen::assert_detail(__VA_ARGS__), __FILE__, \
                                         __LINE__))
#endif
// The kernel debug API `assert(expr)` / `assert(expr, fmt, args...)` (API reference, assert): the
// same check under the C name, which it takes over from <cassert> in device code (a kernel calls
// it with a message, as RecSDK's embedding lookups and Ascend/samples' 3_assert matmul do).
#undef assert
#define assert(expr, ...)                                                                                  \
    ((expr) ? (void)0                                                                                      \
            : ::kernelgen::assert_failed("assert", #expr, ::kernelgen::assert_detail(__VA_ARGS__), __FILE__, \
                                         __LINE__))

// CCE intrinsics some kernels call directly.
inline void pipe_barrier(pipe_t p) {
    if (p == PIPE_ALL) kernelgen::pipe_model().barrier_all();
}
inline void set_flag(pipe_t src, pipe_t dst, event_t id) {
    kernelgen::pipe_model().set_flag(kernelgen::pipe_of(src), kernelgen::pipe_of(dst), id);
}
inline void wait_flag(pipe_t src, pipe_t dst, event_t id) {
    kernelgen::pipe_model().wait_flag(kernelgen::pipe_of(src), kernelgen::pipe_of(dst), id);
}
// The intrinsics also take the event id as an integer (CCE intrinsic API, set_flag & wait_flag:
// `set_flag(pipe_t, pipe_t, uint64_t pipeID)`, a 3-bit id, 0-7): set_flag(PIPE_MTE3, PIPE_V, 0)
// or a uint64_t variable. An id past 3 bits names no flag.
namespace kernelgen {
inline event_t event_id_bits(uint64_t id, const char* api, const char* file, int line) {
    if (id > EVENT_ID7)
        failf("param-range", file, line, "%s: event id %llu is not a 3-bit id (0-7)", api,
              static_cast<unsigned long long>(id));
    return static_cast<event_t>(id);
}
}  // namespace kernelgen
inline void set_flag(pipe_t src, pipe_t dst, uint64_t id, KG_LOC) {
    set_flag(src, dst, kernelgen::event_id_bits(id, "set_flag", file, line));
}
inline void wait_flag(pipe_t src, pipe_t dst, uint64_t id, KG_LOC) {
    wait_flag(src, dst, kernelgen::event_id_bits(id, "wait_flag", file, line));
}

namespace AscendC {

using ::printf;
template <class... A>
inline void PRINTF(const char* fmt, A... args) {
    std::printf(fmt, args...);
}

inline void SetFlag(HardEvent evt, int32_t id) {
    auto e = kernelgen::event_pipes(evt);
    kernelgen::pipe_model().set_flag(e.src, e.dst, id);
}
inline void WaitFlag(HardEvent evt, int32_t id) {
    auto e = kernelgen::event_pipes(evt);
    kernelgen::pipe_model().wait_flag(e.src, e.dst, id);
}
template <HardEvent evt>
inline void SetFlag(int32_t id) {
    SetFlag(evt, id);
}
template <HardEvent evt>
inline void WaitFlag(int32_t id) {
    WaitFlag(evt, id);
}
// Only PIPE_ALL orders across pipes; a barrier on one pipe keeps that pipe in order, which
// the model already assumes.
template <pipe_t pipe>
inline void PipeBarrier() {
    ::pipe_barrier(pipe);
}
// Flags between cores (runtime.h Scheduler::cross_wait): mode 0 all cores of one type, mode 1
// the two AIVs of a cluster, mode 2 an AIC and its AIVs. A waiting core yields to the others.
template <uint8_t mode, pipe_t pipe>
inline void CrossCoreSetFlag(int32_t flagId, KG_LOC) {
    kernelgen::scheduler().cross_set(mode, flagId, file, line);
}
template <uint8_t mode = 0, pipe_t pipe = PIPE_S>
inline void CrossCoreWaitFlag(int32_t flagId, KG_LOC) {
    kernelgen::scheduler().cross_wait(mode, flagId, file, line);
}

// IBSet / IBWait: flags between cores through a GM workspace (runtime.h Scheduler::ib_wait). The
// workspace slot of (blockIdx, eventID) must lie inside it (API reference: at least
// cores * 32 B * eventID_max + blockIdx_max * 32 B + 32 B, cores = GetBlockNum(), twice that in
// a mix kernel) and ubWorkspace must hold 32 bytes.
namespace detail {
template <bool isAIVOnly>
inline void check_ib(const char* api, const GlobalTensor<int32_t>& gm, const LocalTensor<int32_t>& ub, int32_t blockIdx,
                     int32_t eventID, const char* file, int line) {
    const int64_t cores = kernelgen::block_num() * (isAIVOnly ? 1 : 2);
    if (blockIdx < 0 || blockIdx >= cores || eventID < 0)
        kernelgen::failf("param-range", file, line, "%s: blockIdx %d / eventID %d outside [0, %lld) / [0, ...)", api, blockIdx,
                         eventID, (long long)cores);
    const uint64_t end = (uint64_t(cores) * 32 * eventID + uint64_t(blockIdx) * 32 + 32) / sizeof(int32_t);
    if (gm.GetSize() > 0 && gm.GetSize() < end)
        kernelgen::failf("param-range", file, line,
                         "%s: gmWorkspace holds %llu int32, the slot of block %d, event %d ends at %llu (it needs cores * 32 B "
                         "* eventID_max + blockIdx_max * 32 B + 32 B)",
                         api, (unsigned long long)gm.GetSize(), blockIdx, eventID, (unsigned long long)end);
    if (ub.GetSize() < 8)
        kernelgen::failf("count-exceeds-tensor", file, line, "%s: ubWorkspace holds %u int32; it needs 32 bytes", api,
                         ub.GetSize());
}
}  // namespace detail
template <bool isAIVOnly = true>
inline void IBSet(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx,
                  int32_t eventID, KG_LOC) {
    detail::check_ib<isAIVOnly>("IBSet", gmWorkspace, ubWorkspace, blockIdx, eventID, file, line);
    kernelgen::pipe_model().barrier_all();  // the flag is raised after the core's earlier work
    kernelgen::scheduler().ib_set(blockIdx, eventID);
}
template <bool isAIVOnly = true>
inline void IBWait(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx,
                   int32_t eventID, KG_LOC) {
    detail::check_ib<isAIVOnly>("IBWait", gmWorkspace, ubWorkspace, blockIdx, eventID, file, line);
    kernelgen::scheduler().ib_wait(blockIdx, eventID, file, line);
    kernelgen::pipe_model().barrier_all();
}

// Pipe-to-pipe flag pair of one event id (TQueSync<PIPE_MTE2, PIPE_V>).
template <pipe_t src, pipe_t dst>
class TQueSync {
  public:
    void SetFlag(TEventID id) { ::set_flag(src, dst, static_cast<event_t>(id)); }
    void WaitFlag(TEventID id) { ::wait_flag(src, dst, static_cast<event_t>(id)); }
};

template <class A, class B>
struct IsSameType {
    static constexpr bool value = std::is_same_v<A, B>;
};

template <bool isAIVOnly = true>
inline void SyncAll(KG_LOC) {
    kernelgen::pipe_model().barrier_all();
    kernelgen::scheduler().sync_all(isAIVOnly, file, line);
}
template <bool isAIVOnly = true, class G, class L>
inline void SyncAll(const G&, const L&, int32_t = 0, KG_LOC) {
    kernelgen::pipe_model().barrier_all();
    kernelgen::scheduler().sync_all(isAIVOnly, file, line);
}

// Mix kernels: AIV cores see GetBlockIdx() in [0, ratio * blockDim), GetSubBlockIdx() in
// [0, ratio); GetBlockNum() is blockDim (the clusters) for both core types.
inline int64_t GetBlockIdx() { return kernelgen::t_core.block_idx; }
inline int64_t GetBlockNum() { return kernelgen::block_num(); }
// Bytes in one data block (API reference, GetDataBlockSizeInBytes): 32 on every chip modelled.
inline constexpr int16_t GetDataBlockSizeInBytes() { return ONE_BLK_SIZE; }
inline int64_t GetSubBlockIdx() { return kernelgen::t_core.sub_idx; }
inline int64_t GetSubBlockNum() {
    uint32_t r = kernelgen::aiv_ratio(kernelgen::scheduler().layout());
    return r ? r : 1;
}
inline int64_t GetTaskRation() { return GetSubBlockNum(); }
// Its name from CANN 8.3 on (API reference, GetTaskRatio).
inline int64_t GetTaskRatio() { return GetSubBlockNum(); }
inline int64_t GetSystemCycle() { return 0; }

inline void SetSysWorkspace(GM_ADDR workspace) { kernelgen::sys_workspace() = workspace; }
inline GM_ADDR GetSysWorkSpacePtr() { return kernelgen::sys_workspace(); }
inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) {
    return workspace ? workspace + kernelgen::kSysWorkspaceBytes : nullptr;
}

// Atomic accumulation of UB -> GM copies (DataCopy, DataCopyPad) until SetAtomicNone.
template <class T>
inline void SetAtomicAdd() {
    kernelgen::block().atomic = kernelgen::AtomicMode::ADD;
}
template <class T>
inline void SetAtomicMax() {
    kernelgen::block().atomic = kernelgen::AtomicMode::MAX;
}
template <class T>
inline void SetAtomicMin() {
    kernelgen::block().atomic = kernelgen::AtomicMode::MIN;
}
inline void SetAtomicNone() { kernelgen::block().atomic = kernelgen::AtomicMode::NONE; }

// ---------------------------------------------------------------- vector mask control
inline void SetMaskCount() { kernelgen::block().mask_counter = true; }
inline void SetMaskNorm() { kernelgen::block().mask_counter = false; }
template <class T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(uint64_t maskHigh, uint64_t maskLow) {
    auto& b = kernelgen::block();
    b.mask_hi = maskHigh;
    b.mask_lo = maskLow;
    if (mode == MaskMode::COUNTER) b.mask_counter = true;
}
// One-number form: normal mode, the first `len` elements; counter mode, the element count.
template <class T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(int32_t len) {
    auto& b = kernelgen::block();
    if (mode == MaskMode::COUNTER || b.mask_counter) {
        b.mask_hi = 0;
        b.mask_lo = static_cast<uint64_t>(len);
        b.mask_counter = true;
        return;
    }
    uint32_t n = static_cast<uint32_t>(len);
    b.mask_lo = n >= 64 ? ~uint64_t(0) : ((uint64_t(1) << n) - 1);
    b.mask_hi = n >= 128 ? ~uint64_t(0) : n <= 64 ? 0 : ((uint64_t(1) << (n - 64)) - 1);
}
inline void ResetMask() {
    auto& b = kernelgen::block();
    b.mask_hi = b.mask_lo = ~uint64_t(0);
}

// The core's global state to its defaults (API reference, InitSocState: the static-tensor
// style calls it at the kernel entry, where a TPipe would): no atomic accumulation, a full
// normal-mode mask.
inline void InitSocState() {
    SetAtomicNone();
    kernelgen::block().mask_counter = false;
    ResetMask();
}

}  // namespace AscendC

// Real kernels call the system-variable functions unqualified without `using namespace AscendC`
// (sample matmul kernels have only `using namespace matmul;`, also inside templates, where g++
// would not defer the lookup), and build with the vendor toolchain: visible at global scope too.
using AscendC::GetBlockIdx;
using AscendC::GetBlockNum;
using AscendC::GetSubBlockIdx;
using AscendC::GetSubBlockNum;
using AscendC::GetSysWorkSpacePtr;
using AscendC::GetTaskRatio;
using AscendC::GetTaskRation;
using AscendC::GetUserWorkspace;

// The CCE built-ins under the API (bisheng kernels read them directly): the block index and count
// as functions and as variables. The variables are read-only objects that convert to the calling
// core's value, so `int32_t i = block_idx;` sees the right core; a kernel's own variable of the
// same name (`auto block_num = get_block_num();`) simply shadows them.
inline int64_t get_block_idx() { return AscendC::GetBlockIdx(); }
inline int64_t get_block_num() { return AscendC::GetBlockNum(); }
namespace kernelgen {
struct core_value {
    int64_t (*read)();
    operator int64_t() const { return read(); }
};
}  // namespace kernelgen
inline constexpr kernelgen::core_value block_idx{&get_block_idx};
inline constexpr kernelgen::core_value block_num{&get_block_num};
