// LocalMemAllocator: the static-tensor programming style's memory manager (API reference,
// "LocalMemAllocator", CANN 8.3+): no TPipe or TQue in the kernel; each Alloc hands out the next
// tile of one on-chip memory (UB, L1, L0A, L0B, L0C, BIAS, FIXBUF), and the kernel orders the
// pipes itself with SetFlag/WaitFlag. The emulator backs it with a TPipe of its own, shared by
// the block's allocators, so the tiles sit in the same arenas, with the same capacity checks
// (ub-overflow, l1-overflow, l0-overflow) and pipe-order model as TPipe buffers. The reference
// says it cannot be mixed with TPipe: an allocator made while a kernel's TPipe is alive is an
// error.
#pragma once

#include <deque>
#include <memory>

#include "pipe.h"

namespace AscendC {

enum class Hardware : uint8_t { GM, UB, L1, L0A, L0B, L0C, BIAS, FIXBUF, MAX };

namespace detail {
// The position a tile of each memory gets when Alloc names none.
constexpr TPosition hardware_position(Hardware h) {
    switch (h) {
        case Hardware::L1: return TPosition::A1;
        case Hardware::L0A: return TPosition::A2;
        case Hardware::L0B: return TPosition::B2;
        case Hardware::L0C: return TPosition::CO1;
        case Hardware::BIAS: return TPosition::C2;
        case Hardware::FIXBUF: return TPosition::C2PIPE2GM;
        default: return TPosition::VECCALC;
    }
}

// The block's allocator pipe: made by the first allocator, kept while any allocator lives.
inline std::shared_ptr<TPipe> static_pipe(const char* file, int line) {
    static thread_local std::weak_ptr<TPipe> current;
    if (auto p = current.lock()) return p;
    if (kernelgen::block().live_pipe != nullptr)
        kernelgen::failf("single-tpipe", file, line,
                         "LocalMemAllocator made while a TPipe is alive (created at %s:%d): the static-tensor "
                         "style cannot be mixed with TPipe (API reference, LocalMemAllocator)",
                         kernelgen::block().live_pipe_file, kernelgen::block().live_pipe_line);
    auto p = std::make_shared<TPipe>(file, line);
    current = p;
    return p;
}
}  // namespace detail

// The static-tensor style's other way to a tile (API reference, LocalTensor constructor
// `LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize)`): the bytes at `addr` of the
// memory behind `pos`, in the kernel's TPipe where one is alive, else in the block's hidden
// allocator pipe, kept until the block returns.
template <class T>
LocalTensor<T>::LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize, const char* file, int line) {
    TPipe* pipe = GetTPipePtr();
    if (pipe == nullptr) {
        auto shared = detail::static_pipe(file, line);
        pipe = shared.get();
        kernelgen::block_keep_alive() = shared;
    }
    const uint64_t bytes = uint64_t(tileSize) * sizeof(T);
    uint8_t* at = pipe->at_address(pos, addr, bytes, file, line);
    *this = LocalTensor(reinterpret_cast<T*>(at), tileSize, pos, at - addr, nullptr, -1);
}

// The same for packed int4b_t: tileSize elements span tileSize / 2 bytes at `addr`.
inline LocalTensor<int4b_t>::LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize, const char* file, int line) {
    *this = from_bytes(LocalTensor<int8_t>(pos, addr, static_cast<uint32_t>(kernelgen::bytes_of<int4b_t>(tileSize)),
                                           file, line));
    size_ = cap_ = tileSize;
}

template <Hardware hard = Hardware::UB>
class LocalMemAllocator {
    static_assert(hard != Hardware::GM && hard != Hardware::MAX, "LocalMemAllocator takes an on-chip memory");

  public:
    explicit LocalMemAllocator(KG_LOC) : pipe_(detail::static_pipe(file, line)) {}

    // The byte address in its memory where the next tile starts.
    uint32_t GetCurAddr() const { return cur_; }

    template <class T, uint32_t tileSize>
    LocalTensor<T> Alloc(KG_LOC) {
        return take<detail::hardware_position(hard), T>(tileSize, file, line);
    }
    template <TPosition pos, class T, uint32_t tileSize>
    LocalTensor<T> Alloc(KG_LOC) {
        return take<pos, T>(tileSize, file, line);
    }
    template <class T>
    LocalTensor<T> Alloc(uint32_t tileSize, KG_LOC) {
        return take<detail::hardware_position(hard), T>(tileSize, file, line);
    }
    template <TPosition pos, class T>
    LocalTensor<T> Alloc(uint32_t tileSize, KG_LOC) {
        return take<pos, T>(tileSize, file, line);
    }

  private:
    template <TPosition pos, class T>
    LocalTensor<T> take(uint32_t n, const char* file, int line) {
        auto buf = std::make_shared<TBuf<pos>>();
        const uint32_t bytes = static_cast<uint32_t>(kernelgen::align_up(kernelgen::bytes_of<T>(n), 32));
        pipe_->InitBuffer(*buf, bytes, file, line);
        bufs_.push_back(buf);
        cur_ += bytes;
        return buf->template Get<T>(n, file, line);
    }

    std::shared_ptr<TPipe> pipe_;
    std::deque<std::shared_ptr<void>> bufs_;  // the tiles' TBufs, alive as long as the allocator
    uint32_t cur_ = 0;
};

}  // namespace AscendC
