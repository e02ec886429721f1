// Synchronisation, block identity, workspace and core-type helpers. Blocks run one at a time
// and every API completes before it returns, so flags and barriers have nothing to order; only
// SyncAll has an effect (it hands control to the other blocks).
#pragma once

#include "device.h"

#define KERNEL_TASK_TYPE_DEFAULT(type) (::kernelgen::block().is_aic = ((type) == ::KERNEL_TYPE_AIC_ONLY))
#define KERNEL_TASK_TYPE(key, type) KERNEL_TASK_TYPE_DEFAULT(type)
#define ASCEND_IS_AIV (!::kernelgen::block().is_aic)
#define ASCEND_IS_AIC (::kernelgen::block().is_aic)
#define ASCEND_IS_NOT_AIV (::kernelgen::block().is_aic)
#define ASCEND_IS_NOT_AIC (!::kernelgen::block().is_aic)
#define TRACE_START(id)
#define TRACE_STOP(id)

// CCE intrinsics some kernels call directly; nothing to order on the CPU.
inline void pipe_barrier(pipe_t) {}
inline void set_flag(pipe_t, pipe_t, event_t) {}
inline void wait_flag(pipe_t, pipe_t, event_t) {}

namespace AscendC {

using ::printf;
template <class... A>
inline void PRINTF(const char* fmt, A... args) {
    std::printf(fmt, args...);
}

template <HardEvent evt>
inline void SetFlag(int32_t) {}
template <HardEvent evt>
inline void WaitFlag(int32_t) {}
inline void SetFlag(HardEvent, int32_t) {}
inline void WaitFlag(HardEvent, int32_t) {}
template <pipe_t pipe>
inline void PipeBarrier() {}
template <pipe_t src, pipe_t dst>
inline void CrossCoreSetFlag(int32_t) {}
template <uint8_t mode, pipe_t pipe>
inline void CrossCoreSetFlag(int32_t) {}
template <uint8_t mode = 0, pipe_t pipe = PIPE_S>
inline void CrossCoreWaitFlag(int32_t) {}

// Pipe-to-pipe flag pair of one event id (TQueSync<PIPE_MTE2, PIPE_V>).
template <pipe_t src, pipe_t dst>
class TQueSync {
  public:
    void SetFlag(TEventID) {}
    void WaitFlag(TEventID) {}
};

template <class A, class B>
struct IsSameType {
    static constexpr bool value = std::is_same_v<A, B>;
};

template <bool isAIVOnly = true>
inline void SyncAll(KG_LOC) {
    kernelgen::scheduler().sync_all(file, line);
}
template <bool isAIVOnly = true, class G, class L>
inline void SyncAll(const G&, const L&, int32_t = 0, KG_LOC) {
    kernelgen::scheduler().sync_all(file, line);
}

inline int64_t GetBlockIdx() { return kernelgen::current_block() < 0 ? 0 : kernelgen::current_block(); }
inline int64_t GetBlockNum() { return kernelgen::block_num(); }
inline int64_t GetSubBlockIdx() { return 0; }
inline int64_t GetSubBlockNum() { return 1; }
inline int64_t GetTaskRation() { return 1; }
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

}  // namespace AscendC
