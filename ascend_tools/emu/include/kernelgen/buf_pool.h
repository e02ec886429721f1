// TBufPool: a sub-pool of a TPipe's memory that queues and TBufs are carved from (API reference,
// "TBufPool", TPipe::InitBufPool). TPipe::InitBufPool(pool, len) takes len bytes of the pool's
// memory; TBufPool::InitBufPool(sub, len) splits a pool further; InitBufPool(pool, len, share)
// gives `pool` the start and length of `share` instead, so two phases that never overlap in time
// reuse one region. Reset() ends a pool's phase: the pipes are ordered across it (the reference's
// "automatic synchronisation" when switching pools), and its buffers stay allocated.
#pragma once

#include <string>

#include "pipe.h"

namespace AscendC {

template <TPosition pos, uint32_t bufIDSize = 4>
class TBufPool {
    static_assert(bufIDSize >= 1 && bufIDSize <= 16, "TBufPool holds 1 to 16 buffers (API reference)");

  public:
    static constexpr TPosition position = pos;

    TBufPool() = default;
    TBufPool(const TBufPool&) = delete;
    TBufPool& operator=(const TBufPool&) = delete;

    template <TPosition src, TPosition dst, int32_t depth, auto mask>
    bool InitBuffer(TQueBind<src, dst, depth, mask>& que, uint8_t num, uint32_t len, KG_LOC) {
        const uint64_t each = kernelgen::align_up(len, 32);
        uint8_t* p = take(que.core().label(), num, each, file, line);
        que.core().init(p, num, each, arena_, pipe_->position_counter(src));
        return true;
    }
    template <TPosition bpos>
    bool InitBuffer(TBuf<bpos>& buf, uint32_t len, KG_LOC) {
        const uint64_t each = kernelgen::align_up(len, 32);
        buf.init(take(std::string("TBuf<") + position_name(bpos) + ">", 1, each, file, line), each, arena_);
        return true;
    }
    template <class P>
    bool InitBufPool(P& sub, uint32_t len, KG_LOC) {
        const uint64_t bytes = kernelgen::align_up(len, 32);
        sub.attach(pipe_, take("TBufPool", 1, bytes, file, line), bytes, arena_, file, line);
        return true;
    }
    template <class P, class S>
    bool InitBufPool(P& sub, uint32_t len, S& share, KG_LOC) {
        sub.share(pipe_, share, kernelgen::align_up(len, 32), file, line);
        return true;
    }
    void Reset() { kernelgen::pipe_model().barrier_all(); }

    // The pool's memory (TPipe::InitBufPool and the sharing overload set it).
    void attach(TPipe* pipe, uint8_t* base, uint64_t bytes, const uint8_t* arena, const char* file, int line) {
        if (base_ != nullptr)
            kernelgen::failf("param-range", file, line, "InitBufPool on a TBufPool that already has its memory");
        pipe_ = pipe;
        base_ = base;
        bytes_ = bytes;
        arena_ = arena;
        used_ = 0;
        buffers_ = 0;
    }
    template <class S>
    void share(TPipe* pipe, const S& other, uint64_t bytes, const char* file, int line) {
        if (other.base() == nullptr)
            kernelgen::failf("param-range", file, line, "InitBufPool shares a TBufPool that has no memory yet");
        if (bytes > other.bytes())
            kernelgen::failf("ub-overflow", file, line,
                             "InitBufPool: %llu B shared from a TBufPool of %llu B (the length must not exceed it)",
                             (unsigned long long)bytes, (unsigned long long)other.bytes());
        attach(pipe, other.base(), bytes, other.arena(), file, line);
    }
    uint8_t* base() const { return base_; }
    uint64_t bytes() const { return bytes_; }
    const uint8_t* arena() const { return arena_; }

  private:
    uint8_t* take(const std::string& what, uint32_t num, uint64_t each, const char* file, int line) {
        if (base_ == nullptr)
            kernelgen::failf("param-range", file, line, "%s from a TBufPool that InitBufPool gave no memory", what.c_str());
        buffers_ += num;
        if (buffers_ > bufIDSize)
            kernelgen::failf("buffer-count", file, line, "%s brings a TBufPool<%s, %u> to %u buffers", what.c_str(),
                             position_name(pos), bufIDSize, buffers_);
        const uint64_t need = uint64_t(num) * each;
        if (used_ + need > bytes_)
            kernelgen::failf("ub-overflow", file, line,
                             "%s needs %u x %llu = %llu B but its TBufPool has %llu B of %llu B left", what.c_str(), num,
                             (unsigned long long)each, (unsigned long long)need, (unsigned long long)(bytes_ - used_),
                             (unsigned long long)bytes_);
        uint8_t* p = base_ + used_;
        used_ += need;
        return p;
    }

    TPipe* pipe_ = nullptr;
    uint8_t* base_ = nullptr;
    uint64_t bytes_ = 0;
    uint64_t used_ = 0;
    uint32_t buffers_ = 0;
    const uint8_t* arena_ = nullptr;
};

// TPipe::InitBufPool (declared in pipe.h, defined here where TBufPool is complete).
template <class P>
bool TPipe::InitBufPool(P& pool, uint32_t len, const char* file, int line) {
    kernelgen::Arena& a = arena_for(P::position);
    const uint64_t bytes = kernelgen::align_up(len, 32);
    uint8_t* p = take(a, std::string("TBufPool<") + position_name(P::position) + ">", 1, bytes, file, line, true);
    pool.attach(this, p, bytes, a.base, file, line);
    return true;
}
template <class P, class S>
bool TPipe::InitBufPool(P& pool, uint32_t len, S& share, const char* file, int line) {
    pool.share(this, share, kernelgen::align_up(len, 32), file, line);
    return true;
}

}  // namespace AscendC
