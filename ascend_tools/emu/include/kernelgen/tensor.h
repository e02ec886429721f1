// LocalTensor (a view into an on-chip arena of the TPipe) and GlobalTensor (a view of GM) with
// the checks that belong to a single operand: position, UB alignment, size, GM extents.
#pragma once

#include "device.h"
#include "dtype_tables.h"
#include "overlap.h"
#include "pipe_model.h"

namespace kernelgen {

class QueueCore;  // pipe.h

// Whether the queue buffer `slot` of `q` has been freed (defined in pipe.h), and the line of the
// FreeTensor that freed it: a tensor used after FreeTensor is a protocol error.
inline bool slot_is_free(const QueueCore* q, int32_t slot, int* free_line);

struct TensorExprTag {};  // base of `a + b` style expressions (vec_binary.h)

// After a read of n elements from GM `src` into `dst`: the elements inside a `racing` range
// (bytes another core writes unordered with the read) read as poison.
template <class T>
inline void poison_racing(T* dst, const T* src, uint64_t n, const RacingReads& racing) {
    for (const auto& r : racing)
        for (uint64_t j = 0; j < n; ++j) {
            const auto at = reinterpret_cast<uintptr_t>(src + j);
            if (at + sizeof(T) > r.lo && at < r.hi) dst[j] = poison_of<T>(at / sizeof(T), r.writers);
        }
}

}  // namespace kernelgen

namespace AscendC {
template <class T>
class LocalTensor;
}

namespace kernelgen {
// A LocalTensor access past its size: a warning where the NPU runs it, an error where it is not
// (defined below).
template <class T, class... A>
inline void past_tensor(const AscendC::LocalTensor<T>& t, uint64_t elems, bool write, const char* file, int line,
                        const char* fmt, A... args);
}  // namespace kernelgen

namespace AscendC {

// SetL2CacheHint's parameters (API reference, SetL2CacheHint; CacheRwMode is reserved).
enum class CacheMode : uint8_t { CACHE_MODE_DISABLE = 0, CACHE_MODE_NORMAL = 1 };
enum CacheRwMode { READ = 1, WRITE = 2, RW = 3 };

template <class T>
class LocalTensor {
  public:
    using PrimType = T;

    LocalTensor() = default;
    // A tile at byte address `addr` of the memory behind `pos`, `tileSize` elements (the
    // static-tensor style; defined in static_alloc.h, which owns the memory it maps into).
    LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize, KG_LOC);
    LocalTensor(T* data, uint32_t size, TPosition pos, const uint8_t* arena,
                kernelgen::QueueCore* owner, int32_t slot)
        : data_(data), size_(size), cap_(size), pos_(pos), arena_(arena), owner_(owner), slot_(slot) {}

    // A view starting `offset` elements further; its size is what is left of this one.
    LocalTensor operator[](uint32_t offset) const {
        LocalTensor t = *this;
        t.data_ = data_ + offset;
        t.size_ = offset <= size_ ? size_ - offset : 0;
        t.cap_ = offset <= cap_ ? cap_ - offset : 0;
        t.view_ = true;  // keeps owner_/slot_ for use-after-free checks; not a whole buffer
        return t;
    }

    // Makes this tensor a view of `src` starting `offset` elements in (keeps this type).
    template <class U>
    void SetAddrWithOffset(const LocalTensor<U>& src, uint32_t offset, KG_LOC) {
        if constexpr (kernelgen::is_int4_v<U>) {  // a packed source: its bytes, from a whole one
            if (offset % 2 != 0 || src.nibble())
                kernelgen::failf("ub-offset-align", file, line,
                                 "SetAddrWithOffset: element %u of a LocalTensor<int4b_t> lies in the middle of a "
                                 "byte, where no LocalTensor<%s> can start",
                                 offset, kernelgen::type_name<T>());
            SetAddrWithOffset(src.bytes(), offset / 2, file, line);
        } else {
            *this = src.template ReinterpretCast<T>();
            data_ = reinterpret_cast<T*>(src.data() + offset);
            uint64_t left = src.GetSize() > offset ? uint64_t(src.GetSize() - offset) * sizeof(U) / sizeof(T) : 0;
            size_ = static_cast<uint32_t>(left);
            cap_ = size_;
            owner_ = nullptr;
            slot_ = -1;
            view_ = true;
        }
    }

    uint32_t GetSize() const { return size_; }
    // The size may shrink or grow back up to the buffer the tensor came from, never past it.
    void SetSize(uint32_t n, KG_LOC) {
        if (n > cap_)
            kernelgen::failf("count-exceeds-tensor", file, line, "SetSize(%u) on a LocalTensor<%s> whose buffer holds %u elements", n,
                             kernelgen::type_name<T>(), cap_);
        size_ = n;
    }
    uint32_t GetLength() const { return size_ * static_cast<uint32_t>(sizeof(T)); }
    TPosition GetPosition() const { return pos_; }
    uint64_t GetPhyAddr() const { return reinterpret_cast<uint64_t>(data_); }
    uint64_t GetPhyAddr(uint32_t offset) const { return reinterpret_cast<uint64_t>(data_ + offset); }

    template <class U>
    LocalTensor<U> ReinterpretCast() const {
        if constexpr (kernelgen::is_int4_v<U>) {
            return LocalTensor<U>::from_bytes(ReinterpretCast<int8_t>());  // the same bytes, two elements each
        } else {
            LocalTensor<U> t(reinterpret_cast<U*>(data_),
                             static_cast<uint32_t>(uint64_t(size_) * sizeof(T) / sizeof(U)), pos_, arena_,
                             owner_, slot_);
            t.view_ = view_;
            t.cap_ = static_cast<uint32_t>(uint64_t(cap_) * sizeof(T) / sizeof(U));
            return t;
        }
    }

    // Scalar accesses run on PIPE_S (pipe_model.h); operator() is checked as a read.
    T GetValue(uint32_t i, KG_LOC) const {
        check_index("GetValue", i, false, file, line);
        kernelgen::counters().scalar_accesses++;
        kernelgen::pipe_model().access(kernelgen::Pipe::S, "GetValue", data_ + i, sizeof(T), false, file, line);
        return data_[i];
    }
    template <class V>
    void SetValue(uint32_t i, V v, KG_LOC) const {
        check_index("SetValue", i, true, file, line);
        kernelgen::counters().scalar_accesses++;
        kernelgen::pipe_model().access(kernelgen::Pipe::S, "SetValue", data_ + i, sizeof(T), true, file, line);
        data_[i] = kernelgen::narrow<T>(v);
    }
    T& operator()(uint32_t i, KG_LOC) const {
        check_index("operator()", i, true, file, line);  // a reference: may be written
        kernelgen::counters().scalar_accesses++;
        kernelgen::pipe_model().access(kernelgen::Pipe::S, "operator()", data_ + i, sizeof(T), false, file, line);
        return data_[i];
    }

    template <class E, std::enable_if_t<std::is_base_of_v<kernelgen::TensorExprTag, E>, int> = 0>
    LocalTensor& operator=(const E& e) {
        e.assign(*this);
        return *this;
    }
    LocalTensor(const LocalTensor&) = default;
    LocalTensor& operator=(const LocalTensor&) = default;

    // ---- emulator internals (used by the API implementations)
    T* data() const { return data_; }
    const uint8_t* arena() const { return arena_; }
    uint64_t ub_offset() const {
        return static_cast<uint64_t>(reinterpret_cast<const uint8_t*>(data_) - arena_);
    }
    kernelgen::QueueCore* owner() const { return owner_; }
    int32_t slot() const { return slot_; }
    bool is_view() const { return view_; }
    uint32_t cap() const { return cap_; }
    // A tensor TBuf::Get/GetWithOffset placed: its room runs to the end of the TBuf.
    void set_room(uint32_t room) { cap_ = room; }
    // Whether `elems` elements from data_ stay inside the buffer (TBuf or queue buffer) the
    // tensor came from: the NPU checks no LocalTensor length, and the bytes are the kernel's own.
    bool within_buffer(uint64_t elems) const { return elems <= cap_; }
    bool valid() const { return data_ != nullptr; }

    void check_live(const char* api, const char* file, int line) const {
        int freed_at = 0;
        if (owner_ && kernelgen::slot_is_free(owner_, slot_, &freed_at))
            kernelgen::failf("queue-protocol", file, line, "%s uses a queue tensor after FreeTensor (freed at line %d)", api,
                             freed_at);
    }
    void check_index(const char* api, uint64_t i, bool write, const char* file, int line) const {
        if (!data_) kernelgen::failf("queue-protocol", file, line, "%s on a LocalTensor that holds no buffer", api);
        check_live(api, file, line);
        if (i >= size_)
            kernelgen::past_tensor(*this, i + 1, write, file, line, "%s(%llu) on a LocalTensor<%s> of %u elements",
                                   api, (unsigned long long)i, kernelgen::type_name<T>(), size_);
    }

    template <class U>
    friend class LocalTensor;

  private:
    T* data_ = nullptr;
    uint32_t size_ = 0;
    uint32_t cap_ = 0;  // elements from data_ to the end of the buffer it came from
    TPosition pos_ = TPosition::VECCALC;
    const uint8_t* arena_ = nullptr;
    kernelgen::QueueCore* owner_ = nullptr;
    int32_t slot_ = -1;
    bool view_ = false;
};

// LocalTensor<int4b_t>: two elements to a byte, element 2k in the low nibble (types.h). A LocalTensor
// of n of them spans n / 2 bytes (Cast reference: allocate half the int8_t space and ReinterpretCast
// it). The tensor is its bytes, a LocalTensor<int8_t> that carries the buffer, position and queue
// ownership, so the queue protocol, UB bounds and pipe-order checks are the byte tensor's; element
// indices are nibbles, and a view t[odd] starts in the high nibble of its first byte (`nibble()`),
// which the APIs refuse as an operand: no UB address names half a byte.
template <>
class LocalTensor<int4b_t> {
  public:
    using PrimType = int4b_t;

    LocalTensor() = default;
    LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize, KG_LOC);  // static_alloc.h
    LocalTensor(int4b_t* data, uint32_t size, TPosition pos, const uint8_t* arena, kernelgen::QueueCore* owner,
                int32_t slot)
        : bytes_(reinterpret_cast<int8_t*>(data), static_cast<uint32_t>(kernelgen::bytes_of<int4b_t>(size)), pos, arena,
                 owner, slot),
          size_(size),
          cap_(size) {}

    LocalTensor operator[](uint32_t offset) const {
        LocalTensor t = *this;
        const uint64_t at = uint64_t(nibble_) + offset;  // nibbles from the first byte
        t.bytes_ = bytes_[static_cast<uint32_t>(at / 2)];
        t.nibble_ = at % 2 != 0;
        t.size_ = offset <= size_ ? size_ - offset : 0;
        t.cap_ = offset <= cap_ ? cap_ - offset : 0;
        t.sync_bytes();
        return t;
    }

    template <class U>
    void SetAddrWithOffset(const LocalTensor<U>& src, uint32_t offset, KG_LOC) {
        if constexpr (kernelgen::is_int4_v<U>) {
            *this = src[offset];
            bytes_.owner_ = nullptr;
            bytes_.slot_ = -1;
            bytes_.view_ = true;
        } else {
            LocalTensor<int8_t> b;
            b.SetAddrWithOffset(src, offset, file, line);
            *this = from_bytes(b);
        }
    }

    uint32_t GetSize() const { return size_; }
    void SetSize(uint32_t n, KG_LOC) {
        if (n > cap_)
            kernelgen::failf("count-exceeds-tensor", file, line,
                             "SetSize(%u) on a LocalTensor<int4b_t> whose buffer holds %u elements", n, cap_);
        size_ = n;
        sync_bytes();
    }
    uint32_t GetLength() const { return static_cast<uint32_t>(kernelgen::bytes_of<int4b_t>(size_)); }
    TPosition GetPosition() const { return bytes_.GetPosition(); }
    uint64_t GetPhyAddr() const { return bytes_.GetPhyAddr(); }
    // The byte that holds element `offset`.
    uint64_t GetPhyAddr(uint32_t offset) const {
        return bytes_.GetPhyAddr(static_cast<uint32_t>((nibble_ + offset) / 2));
    }

    // The same bytes as another type (the byte count stays, API reference, ReinterpretCast): a
    // tensor starting mid-byte has no such view.
    template <class U>
    LocalTensor<U> ReinterpretCast(KG_LOC) const {
        if constexpr (kernelgen::is_int4_v<U>) {
            return *this;
        } else {
            if (nibble_)
                kernelgen::failf("ub-offset-align", file, line,
                                 "ReinterpretCast<%s> of a LocalTensor<int4b_t> view that starts in the middle of a "
                                 "byte (an odd offset)",
                                 kernelgen::type_name<U>());
            return bytes_.template ReinterpretCast<U>();
        }
    }

    // Scalar accesses read or rewrite the byte holding the element, on PIPE_S. (GetValue,
    // check_live and check_index reach the queue state: defined in pipe.h.)
    int4b_t GetValue(uint32_t i, KG_LOC) const;
    template <class V>
    void SetValue(uint32_t i, V v, KG_LOC) const {
        const uint64_t at = check_index("SetValue", i, true, file, line);
        kernelgen::counters().scalar_accesses++;
        kernelgen::pipe_model().access(kernelgen::Pipe::S, "SetValue", bytes_.data() + at / 2, 1, true, file, line);
        kernelgen::int4_store(bytes_.data(), at, int4b_t(v));
    }
    // operator() hands out a reference to the element, and half a byte has none.
    template <class I>
    void operator()(I, KG_LOC) const {
        static_assert(sizeof(I) == 0,
                      "LocalTensor<int4b_t>::operator(): an int4b_t element is half a byte and no reference can "
                      "name it in the emulator; use GetValue/SetValue");
    }

    LocalTensor(const LocalTensor&) = default;
    LocalTensor& operator=(const LocalTensor&) = default;

    // ---- emulator internals
    static LocalTensor from_bytes(const LocalTensor<int8_t>& b) {
        LocalTensor t;
        t.bytes_ = b;
        t.size_ = static_cast<uint32_t>(kernelgen::elems_in<int4b_t>(b.GetSize()));
        t.cap_ = static_cast<uint32_t>(kernelgen::elems_in<int4b_t>(b.cap_));
        return t;
    }
    // The bytes the elements occupy; element 0 is the low nibble of the first unless `nibble()`.
    const LocalTensor<int8_t>& bytes() const { return bytes_; }
    bool nibble() const { return nibble_; }
    int4b_t* data() const { return reinterpret_cast<int4b_t*>(bytes_.data()); }
    const uint8_t* arena() const { return bytes_.arena(); }
    uint64_t ub_offset() const { return bytes_.ub_offset(); }
    kernelgen::QueueCore* owner() const { return bytes_.owner(); }
    int32_t slot() const { return bytes_.slot(); }
    bool is_view() const { return bytes_.is_view(); }
    bool valid() const { return bytes_.valid(); }
    void set_room(uint32_t room) {
        cap_ = room;
        bytes_.set_room(static_cast<uint32_t>(kernelgen::bytes_of<int4b_t>(nibble_ + room)));
    }
    void check_live(const char* api, const char* file, int line) const;
    // Checks element `i` (as the byte tensor checks a byte past its size); returns its nibble
    // index from the first byte.
    uint64_t check_index(const char* api, uint64_t i, bool write, const char* file, int line) const;

    template <class U>
    friend class LocalTensor;

  private:
    // The byte tensor's size and room follow the element counts.
    void sync_bytes() {
        bytes_.size_ = static_cast<uint32_t>(kernelgen::bytes_of<int4b_t>(nibble_ + uint64_t(size_)));
        bytes_.cap_ = static_cast<uint32_t>(kernelgen::bytes_of<int4b_t>(nibble_ + uint64_t(cap_)));
    }

    LocalTensor<int8_t> bytes_;
    uint32_t size_ = 0;  // elements
    uint32_t cap_ = 0;   // elements to the end of the buffer the tensor came from
    bool nibble_ = false;
};

template <class T>
class GlobalTensor {
  public:
    // CANN's GlobalTensor keeps its address in a public `address_` (undocumented; kernels write
    // `*(g.address_ + i) = v`, Ascend/samples GreaterEqual): a scalar GM access, as on the NPU,
    // outside the emulator's GM checks.
    T* address_ = nullptr;

    using PrimType = T;

    void SetGlobalBuffer(__gm__ T* p, uint64_t sizeElems) {
        address_ = p;
        origin_ = p;
        size_ = sizeElems;
        sized_ = true;
    }
    void SetGlobalBuffer(__gm__ T* p) {
        address_ = p;
        origin_ = p;
        size_ = 0;
        sized_ = false;
    }
    GlobalTensor operator[](uint64_t offset) const {
        GlobalTensor g = *this;
        g.address_ = address_ + offset;
        if (sized_) g.size_ = offset <= size_ ? size_ - offset : 0;
        return g;
    }
    uint64_t GetSize() const { return size_; }
    __gm__ T* GetPhyAddr() const { return address_; }
    __gm__ T* GetPhyAddr(uint64_t offset) const { return address_ + offset; }
    // L2 caching changes timing only (API reference, SetL2CacheHint).
    template <CacheRwMode rwMode = CacheRwMode::RW>
    void SetL2CacheHint(CacheMode) {}

    T GetValue(uint64_t i, KG_LOC) const {
        kernelgen::RacingReads racing;
        check_access("GetValue", i, 1, false, file, line, nullptr, false, &racing);
        kernelgen::counters().scalar_accesses++;
        return racing.empty() ? address_[i]
                              : kernelgen::poison_of<T>(reinterpret_cast<uintptr_t>(address_ + i) / sizeof(T),
                                                        racing.front().writers);
    }
    template <class V>
    void SetValue(uint64_t i, V v, KG_LOC) const {
        T value = kernelgen::narrow<T>(v);
        check_access("SetValue", i, 1, true, file, line, &value);
        kernelgen::counters().scalar_accesses++;
        address_[i] = value;
    }
    // The reference may be written: checked as a write (the allocation's padding excluded).
    T& operator()(uint64_t i, KG_LOC) const {
        check_access("operator()", i, 1, true, file, line);
        kernelgen::counters().scalar_accesses++;
        return address_[i];
    }

    T* data() const { return address_; }

    // Elements [first, first + n) of this view must lie inside the allocation's block (the
    // tensor rounded up as the framework's allocator does, runtime.h GmAllocation). An access
    // past the SetGlobalBuffer extent but inside the block is a `gm-extent` warning: the NPU
    // does not check the extent, so such a kernel runs there (apply_rotary_pos_emb_ms reads and
    // writes every row through one-row extents); what it writes is still compared with the
    // reference, and the GM race model still sees writes into another core's part. So is an
    // access past the tensor into its block's padding (mkb_reduce_sum writes a 32-byte block to
    // a 4-byte output), except a read inside the tensor's last 32-byte block (DataCopy reads
    // whole blocks): an input's padding holds poison (huge finite values, or the largest integer), so a result
    // that uses what was read there fails the comparison. A read past the block but inside the
    // allocator's segment is a `gm-read-past-allocation` warning (mapped memory: no fault; the
    // harness poisons it too); a write past the block, or any access past the segment, is
    // `gm-out-of-bounds`.
    // `incoming`: the n elements a plain store writes, when the caller has them in one piece, or
    // with `fill` the one element it writes n times (the GM race model lets a store of the bytes
    // already there pass).
    // `racing`: a read's caller that hands the kernel poison where another core writes unordered
    // with it (kernelgen::poison_racing), instead of the gm-race error.
    void check_access(const char* api, uint64_t first, uint64_t n, bool write, const char* file, int line,
                      const T* incoming = nullptr, bool fill = false,
                      kernelgen::RacingReads* racing = nullptr) const {
        if (n == 0) return;
        if (!address_) kernelgen::failf("gm-out-of-bounds", file, line, "%s on a GlobalTensor with no buffer (SetGlobalBuffer missing)", api);
        if (sized_ && first + n > size_) {
            uint64_t base = static_cast<uint64_t>(address_ - origin_);
            std::string what = kernelgen::format("%s %s elements [%llu, %llu) of a GlobalTensor<%s> set with %llu elements",
                                                 api, write ? "writes" : "reads", (unsigned long long)(base + first),
                                                 (unsigned long long)(base + first + n), kernelgen::type_name<T>(),
                                                 (unsigned long long)(size_ + base));
            const kernelgen::GmAllocation* a = inside_allocation(first, n, write);
            if (!a) {
                const kernelgen::GmAllocation* owner = allocation_of(first);
                if (!owner) kernelgen::fail("gm-out-of-bounds", what, file, line);
                fail_outside(api, *owner, first, n, write, file, line);
            }
            // Past the block (a read into the segment): the warning below names it.
            if (reinterpret_cast<const uint8_t*>(address_ + first + n) <= a->base + std::max(a->block, kernelgen::align_up(a->bytes, 32)))
                kernelgen::warn("gm-extent",
                                what + kernelgen::format(", past the size given to SetGlobalBuffer but inside GM buffer '%s' "
                                                         "of %llu bytes (a %llu-byte block): the NPU does not check that "
                                                         "size, so this runs there, but the size the kernel declares is not "
                                                         "the one it uses",
                                                         a->name.c_str(), (unsigned long long)a->bytes,
                                                         (unsigned long long)a->block),
                                file, line);
        }
        // Cross-core order (runtime.h GmModel); operator() hands out a reference, counted as a read
        // there (it is the usual way to read a scalar), and scalar stores never accumulate.
        bool store = write && std::strcmp(api, "operator()") != 0;
        kernelgen::AtomicMode atomic = store && std::strcmp(api, "SetValue") != 0 ? kernelgen::block().atomic
                                                                                : kernelgen::AtomicMode::NONE;
        kernelgen::gm_model().access(kernelgen::current_block(), address_ + first, n * sizeof(T), store, atomic, api, file,
                                     line, store ? incoming : nullptr, fill ? sizeof(T) : 0, write ? nullptr : racing);
        if (kernelgen::gm_allocations().empty()) return;  // pointers not from a harness: nothing known
        const auto* start = reinterpret_cast<const uint8_t*>(address_ + first);
        const auto* end = reinterpret_cast<const uint8_t*>(address_ + first + n);
        const kernelgen::GmAllocation* a = kernelgen::gm_find(origin_);
        if (!a) a = kernelgen::gm_find(start);
        if (!a)
            kernelgen::failf("gm-out-of-bounds", file, line, "%s %s %llu bytes at an address outside every GM buffer", api,
                             write ? "writes" : "reads", (unsigned long long)(end - start));
        long long lo = static_cast<long long>(start - a->base);
        long long hi = static_cast<long long>(end - a->base);
        if (start < a->base || end > a->base + kernelgen::gm_readable(*a, write)) fail_outside(api, *a, first, n, write, file, line);
        if (!write && static_cast<uint64_t>(hi) > std::max(a->block, kernelgen::align_up(a->bytes, 32))) {
            // Past the block, inside the segment: mapped memory the kernel was not given.
            kernelgen::warn("gm-read-past-allocation",
                            kernelgen::format("%s reads bytes [%lld, %lld) of GM buffer '%s' of %llu bytes, %llu bytes past "
                                              "the %llu-byte block the framework's allocator gives it but inside the "
                                              "%llu-byte segment it carves that block from: this does not fault on the "
                                              "NPU, but it reads whatever lies there (another tensor, or free memory); "
                                              "the emulator fills those bytes with NaN or the largest integer, so a "
                                              "result that uses them fails the comparison",
                                              api, lo, hi, a->name.c_str(), (unsigned long long)a->bytes,
                                              (unsigned long long)(static_cast<uint64_t>(hi) - a->block),
                                              (unsigned long long)a->block, (unsigned long long)a->segment),
                            file, line);
        } else if (static_cast<uint64_t>(hi) > (write ? a->bytes : kernelgen::align_up(a->bytes, 32))) {
            // Past the tensor (for reads: past its last 32-byte block), inside the block: a warning.
            kernelgen::warn("gm-extent",
                            kernelgen::format("%s %s bytes [%lld, %lld) of GM buffer '%s' of %llu bytes: past the tensor but "
                                              "inside the %llu-byte block the framework's allocator rounds it up to, so "
                                              "this runs on the NPU, where those bytes %s",
                                              api, write ? "writes" : "reads", lo, hi, a->name.c_str(),
                                              (unsigned long long)a->bytes, (unsigned long long)a->block,
                                              write ? "belong to no tensor (what is written there is lost)"
                                                    : "hold whatever was there (the emulator fills an input's "
                                                      "padding with NaN or the largest integer, so a result that "
                                                      "uses them fails the comparison)"),
                            file, line);
        }
    }

  private:
    // The registered allocation this view belongs to (by its origin, else by the access's start).
    const kernelgen::GmAllocation* allocation_of(uint64_t first) const {
        const kernelgen::GmAllocation* a = kernelgen::gm_find(origin_);
        return a ? a : kernelgen::gm_find(address_ + first);
    }

    // The registered allocation that holds all of elements [first, first + n), or nullptr.
    const kernelgen::GmAllocation* inside_allocation(uint64_t first, uint64_t n, bool write) const {
        const auto* start = reinterpret_cast<const uint8_t*>(address_ + first);
        const auto* end = reinterpret_cast<const uint8_t*>(address_ + first + n);
        const kernelgen::GmAllocation* a = allocation_of(first);
        if (!a) return nullptr;
        return start >= a->base && end <= a->base + kernelgen::gm_readable(*a, write) ? a : nullptr;
    }

    // `gm-out-of-bounds` for an access to `a` that leaves what may be reached without a fault:
    // a write past its block, a read past its segment (or, with none known, past the tensor).
    [[noreturn]] void fail_outside(const char* api, const kernelgen::GmAllocation& a, uint64_t first, uint64_t n, bool write,
                                   const char* file, int line) const {
        long long lo = static_cast<long long>(reinterpret_cast<const uint8_t*>(address_ + first) - a.base);
        long long hi = static_cast<long long>(reinterpret_cast<const uint8_t*>(address_ + first + n) - a.base);
        const char* verb = write ? "writes" : "reads";
        if (a.segment == a.bytes)
            kernelgen::failf("gm-out-of-bounds", file, line, "%s %s bytes [%lld, %lld) of GM buffer '%s' of %llu bytes", api,
                             verb, lo, hi, a.name.c_str(), (unsigned long long)a.bytes);
        if (write || a.segment == a.block)
            kernelgen::failf("gm-out-of-bounds", file, line,
                             "%s %s bytes [%lld, %lld) of GM buffer '%s' of %llu bytes, past the %llu-byte block its "
                             "allocation is rounded up to%s",
                             api, verb, lo, hi, a.name.c_str(), (unsigned long long)a.bytes, (unsigned long long)a.block,
                             write ? ": on the NPU this overwrites whatever the framework's allocator placed there "
                                     "(another tensor, or free memory)"
                                   : "");
        kernelgen::failf("gm-out-of-bounds", file, line,
                         "%s reads bytes [%lld, %lld) of GM buffer '%s' of %llu bytes, past the %llu-byte segment of device "
                         "memory the framework's allocator carves its %llu-byte block from",
                         api, lo, hi, a.name.c_str(), (unsigned long long)a.bytes, (unsigned long long)a.segment,
                         (unsigned long long)a.block);
    }

    const T* origin_ = nullptr;
    uint64_t size_ = 0;
    bool sized_ = false;
};

// GlobalTensor<int4b_t>: GM holds the same packing as UB (a DataCopy moves bytes). The tensor is
// its bytes, a GlobalTensor<int8_t> whose extent, allocation and cross-core checks apply; offsets
// count elements, and a view g[odd] starts in the high nibble of its first byte.
template <>
class GlobalTensor<int4b_t> {
  public:
    using PrimType = int4b_t;

    void SetGlobalBuffer(__gm__ int4b_t* p, uint64_t sizeElems) {
        bytes_.SetGlobalBuffer(reinterpret_cast<int8_t*>(p), kernelgen::bytes_of<int4b_t>(sizeElems));
        size_ = sizeElems;
        sized_ = true;
        nibble_ = false;
    }
    void SetGlobalBuffer(__gm__ int4b_t* p) {
        bytes_.SetGlobalBuffer(reinterpret_cast<int8_t*>(p));
        size_ = 0;
        sized_ = false;
        nibble_ = false;
    }
    GlobalTensor operator[](uint64_t offset) const {
        GlobalTensor g = *this;
        const uint64_t at = nibble_ + offset;
        g.bytes_ = bytes_[at / 2];
        g.nibble_ = at % 2 != 0;
        if (sized_) g.size_ = offset <= size_ ? size_ - offset : 0;
        return g;
    }
    uint64_t GetSize() const { return size_; }
    __gm__ int4b_t* GetPhyAddr() const { return reinterpret_cast<int4b_t*>(bytes_.GetPhyAddr()); }
    // The byte that holds element `offset`.
    __gm__ int4b_t* GetPhyAddr(uint64_t offset) const {
        return reinterpret_cast<int4b_t*>(bytes_.GetPhyAddr((nibble_ + offset) / 2));
    }
    template <CacheRwMode rwMode = CacheRwMode::RW>
    void SetL2CacheHint(CacheMode) {}

    int4b_t GetValue(uint64_t i, KG_LOC) const {
        const uint64_t at = check_element("GetValue", i, false, nullptr, file, line);
        kernelgen::counters().scalar_accesses++;
        return kernelgen::int4_load(bytes_.data(), at);
    }
    template <class V>
    void SetValue(uint64_t i, V v, KG_LOC) const {
        const uint64_t at = nibble_ + i;
        int8_t byte = bytes_.data()[at / 2];  // a nibble store rewrites its byte
        kernelgen::int4_store(&byte, at % 2, int4b_t(v));
        check_element("SetValue", i, true, &byte, file, line);
        kernelgen::counters().scalar_accesses++;
        bytes_.data()[at / 2] = byte;
    }
    template <class I>
    void operator()(I, KG_LOC) const {
        static_assert(sizeof(I) == 0,
                      "GlobalTensor<int4b_t>::operator(): an int4b_t element is half a byte and no reference can "
                      "name it in the emulator; use GetValue/SetValue");
    }

    // ---- emulator internals
    const GlobalTensor<int8_t>& bytes() const { return bytes_; }
    bool nibble() const { return nibble_; }
    int4b_t* data() const { return reinterpret_cast<int4b_t*>(bytes_.data()); }

  private:
    // The byte of element `i` goes through the byte tensor's checks; an element past a set size
    // that shares its byte with the last one is past the extent all the same (a warning there).
    uint64_t check_element(const char* api, uint64_t i, bool write, const int8_t* incoming, const char* file,
                           int line) const {
        const uint64_t at = nibble_ + i;
        if (sized_ && i >= size_ && at / 2 < bytes_.GetSize())
            kernelgen::warn("gm-extent",
                            kernelgen::format("%s %s element %llu of a GlobalTensor<int4b_t> set with %llu elements: "
                                              "past the size given to SetGlobalBuffer, in the byte of its last element",
                                              api, write ? "writes" : "reads", (unsigned long long)i,
                                              (unsigned long long)size_),
                            file, line);
        bytes_.check_access(api, at / 2, 1, write, file, line, incoming);
        return at;
    }

    GlobalTensor<int8_t> bytes_;
    uint64_t size_ = 0;  // elements
    bool sized_ = false;
    bool nibble_ = false;
};

}  // namespace AscendC

namespace kernelgen {

// bfloat16 data only exists on chips that have it (910B class and newer).
template <class T>
inline void check_dtype_on_chip(const char* api, const char* file, int line) {
    if constexpr (std::is_same_v<T, bfloat16_t>) {
        if (!chip().has_bf16)
            failf("chip-support", file, line, "%s: bfloat16_t is not supported on %s", api, chip().name.c_str());
    }
}

inline bool has_word(const char* list, const char* word) {
    size_t n = std::strlen(word);
    for (const char* p = std::strstr(list, word); p; p = std::strstr(p + 1, word))
        if (p > list && p[-1] == ' ' && p[n] == ' ') return true;
    return false;
}

// The element types the catalog documents for `api` on this chip (dtype_tables.h, generated):
// an operand the signature types LocalTensor<T> must have one of them. APIs the table does not
// list are not checked.
template <class T>
inline void check_dtype_support(const char* api, const char* role, const char* file, int line) {
    const DtypeSupport* any = nullptr;
    const DtypeSupport* mine = nullptr;
    for (const auto& r : kDtypeSupport) {
        if (std::strcmp(r.api, api) != 0) continue;
        if (r.cce_aicore == chip().cce_aicore) mine = &r;
        if (r.cce_aicore == 0) any = &r;
    }
    const DtypeSupport* r = mine ? mine : any;
    if (!r || !has_word(r->operands, role) || has_word(r->types, type_name<T>())) return;
    // A width-only API (catalog/tables/width_only.json) computes an undocumented type exactly
    // as a documented one of its width (bitwise logic: of a width it divides): not proved wrong.
    for (unsigned w = 1; r->width_only != 0 && w <= 8; w *= 2) {
        bool fits = w == sizeof(T) || (r->width_only == 2 && w % sizeof(T) == 0);
        if (fits && has_word(r->widths, std::to_string(w).c_str())) {
            warn("dtype-support",
                 std::string(api) + " on " + type_name<T>() + " is not among the documented element types on " +
                     chip().name + " (" + r->types + "); its result depends only on the bits, so it runs as on a "
                     "documented type of that width",
                 file, line);
            return;
        }
    }
    failf("dtype-support", file, line,
          "%s has no %s form on %s: the documented element types are%s(the NPU build fails; Cast to one of them "
          "first)",
          api, type_name<T>(), chip().name.c_str(), r->types);
}

// An element type the catalog documents for some modes of an API only (dtype_tables.h
// kModeLimits, from catalog/tables/mode_limited.json): `mode` must be one of them.
template <class T>
inline void check_mode_limit(const char* api, const char* mode, const char* file, int line) {
    for (const auto& r : kModeLimits)
        if (std::strcmp(r.api, api) == 0 && r.cce_aicore == chip().cce_aicore &&
            std::strcmp(r.type, type_name<T>()) == 0 && !has_word(r.modes, mode))
            failf("dtype-support", file, line,
                  "%s on %s has a form on %s only for the modes%s(API reference); %s is not one of them: Cast to a "
                  "type every mode takes first",
                  api, type_name<T>(), chip().name.c_str(), r.modes, mode);
}

// Whether a vector operand of this role is written: destinations, outputs, and the scratch
// buffers high-level APIs fill before reading (a scratch read would be their own write).
// Scatter's `dstOffset` is an index operand it reads.
inline bool role_writes(const char* role) {
    static const char* const prefixes[] = {"dst", "output", "sharedTmpBuffer", "row statistics"};
    if (std::strcmp(role, "dstOffset") == 0) return false;
    if (std::strcmp(role, "concatLocal") == 0) return true;  // Concat's destination (Sort reads "concat")
    for (const char* p : prefixes)
        if (std::strncmp(role, p, std::strlen(p)) == 0) return true;
    return false;
}

// Whether a LocalTensor of position `p` lies in UB. CO2 does on the chips without separate cube
// and vector cores (API reference, general restrictions: CO2 is the Unified Buffer on Atlas
// training and inference series, GM on A2/A3), where a Matmul result moved CO1 -> CO2 is then a
// vector operand (mindnlp's 910A grouped_matmul Casts it in place).
inline bool in_ub(AscendC::TPosition p) {
    return AscendC::is_ub_position(p) || (p == AscendC::TPosition::CO2 && !chip().split_cores);
}

// Whether `elems` elements from `t` end inside the UB arena (the NPU faults past UB's end).
template <class T>
inline bool reads_inside_ub(const AscendC::LocalTensor<T>& t, uint64_t elems) {
    return in_ub(t.GetPosition()) && t.ub_offset() + elems * sizeof(T) <= chip().ub_bytes;
}

inline uint64_t ub_owned_end(const uint8_t* arena);  // pipe.h

// `elems` elements of `t` where it has fewer. The NPU checks no LocalTensor length: an access
// that stays inside UB reaches the bytes that follow, and only past UB's end does it fault.
// - Inside the buffer (TBuf or queue buffer) the tensor came from: the kernel lays those bytes
//   out itself (DrivingSDK assign_score_withk_grad BroadCasts 24 elements into a 21-element view
//   of a 24-element TBuf): a warning.
// - A read past it: a warning; the lanes hold the bytes that follow (another buffer's, or
//   garbage: the arena starts as 0xFF), so a result that uses them fails the comparison here as
//   there (DrivingSDK select_idx_with_mask casts a count rounded up to 64 from an 8-element
//   tensor and drops the extra lanes).
// - A write into UB that no buffer owns (past every InitBuffer and static-address tensor of the
//   TPipe) changes nothing the kernel holds: a warning (sgl-kernel-npu alloc_extend indexes its
//   queue tensor in bytes, 8x past it).
// - A write into another buffer's bytes is harmless while those bytes are dead, and the error
//   once something reads them before they are written again (clobber.h): a warning until then
//   (DrivingSDK cartesian_to_frenet1 Duplicates 16 int32 into an 8-element tensor whose
//   neighbour it fills afterwards).
template <class T, class... A>
inline void past_tensor(const AscendC::LocalTensor<T>& t, uint64_t elems, bool write, const char* file, int line,
                        const char* fmt, A... args) {
    char buf[512];
    std::snprintf(buf, sizeof buf, fmt, args...);
    if (t.within_buffer(elems)) {
        warn("count-exceeds-tensor",
             std::string(buf) + "; past the tensor but inside the buffer it came from, whose bytes the kernel lays "
                                "out itself: the NPU checks no LocalTensor length, so this runs there",
             file, line);
        return;
    }
    if (write && reads_inside_ub(t, elems)) {
        const auto* base = reinterpret_cast<const uint8_t*>(t.data());
        const uint64_t from = t.ub_offset() + uint64_t(t.cap()) * sizeof(T);  // past its own buffer
        const uint64_t to = t.ub_offset() + elems * sizeof(T);
        const uint64_t owned = ub_owned_end(t.arena());
        if (from >= owned) {
            warn("count-exceeds-tensor",
                 std::string(buf) + "; it writes UB bytes [" + std::to_string(from) + ", " + std::to_string(to) +
                     ") past its buffer, which no buffer owns (the TPipe's buffers end at " + std::to_string(owned) +
                     "): the NPU checks no LocalTensor length and nothing the kernel holds is there, so this runs "
                     "there; a buffer added later would be overwritten",
                 file, line);
            return;
        }
        warn("count-exceeds-tensor",
             std::string(buf) + "; it writes UB bytes [" + std::to_string(from) + ", " + std::to_string(to) +
                 ") past its buffer, into another buffer's: the NPU checks no LocalTensor length, so this runs "
                 "there while those bytes are dead (written again, or their buffer allocated again, before any "
                 "read); the emulator writes them too and stops at a read that comes first. Another shape or "
                 "buffer layout may make them live: size the tensor for the count",
             file, line);
        clobbers().overflow(base + uint64_t(t.cap()) * sizeof(T), base + elems * sizeof(T), buf, file, line);
        return;
    }
    if (write || !reads_inside_ub(t, elems)) fail("count-exceeds-tensor", buf, file, line);
    warn("count-exceeds-tensor",
         std::string(buf) + "; a read past the tensor that stays inside UB: the NPU checks no LocalTensor length "
                            "and reads the bytes that follow, so this runs there; the emulator reads them too, "
                            "and a result that uses them fails the comparison",
         file, line);
}

// Checks of a LocalTensor used as a vector operand: UB position, 32-byte aligned address,
// `need` elements available.
template <class T>
inline void check_vec_operand_bytes(const char* api, const char* role, const AscendC::LocalTensor<T>& t, uint64_t need,
                                    const char* file, int line, uint32_t align) {
    if (!t.valid()) failf("queue-protocol", file, line, "%s: %s is a LocalTensor that holds no buffer", api, role);
    check_dtype_on_chip<T>(api, file, line);
    check_dtype_support<T>(api, role, file, line);
    t.check_live(api, file, line);
    if (!in_ub(t.GetPosition()))
        failf("tensor-position", file, line, "%s: %s is in position %s; vector operands must be in UB (VECIN/VECOUT/VECCALC%s)",
              api, role, AscendC::position_name(t.GetPosition()), chip().split_cores ? "" : ", CO2");
    if (t.ub_offset() % align != 0)
        failf("ub-offset-align", file, line, "%s: %s starts at UB offset %llu, which is not %u-byte aligned", api, role,
              (unsigned long long)t.ub_offset(), align);
    const bool write = role_writes(role);
    uint64_t tracked = need;  // elements whose bytes the call owns: operand overlap
    if (need > t.GetSize()) {
        past_tensor(t, need, write, file, line, "%s: needs %llu elements of %s, a LocalTensor<%s> of %u elements",
                    api, (unsigned long long)need, role, type_name<T>(), t.GetSize());
        if (!t.within_buffer(need)) tracked = t.GetSize();  // past its buffer: another buffer's or free UB
    }
    operand_frame().add(api, role, t.data(), tracked * sizeof(T), write, t.ub_offset(), file, line);
    // Pipe order: a write lands on every byte it reaches (a read past the tensor reads lanes the
    // kernel drops, so they order nothing).
    pipe_model().access(Pipe::V, api, t.data(), (write ? need : tracked) * sizeof(T), write, file, line);
}

// The same checks for an operand of the API's own element type T.
template <class T>
inline void check_vec_operand(const char* api, const char* role, const AscendC::LocalTensor<T>& t, uint64_t need,
                              const char* file, int line, uint32_t align = 32) {
    if constexpr (is_int4_v<T>) {
        // Packed operands need their own element addressing: the APIs that model int4b_t check
        // their bytes (check_int4_operand); every other one stops here, not computing on bytes.
        failf("dtype-support", file, line,
              "%s on int4b_t operands is not emulated (the emulator models int4b_t in Cast, DataCopy, DataCopyPad, "
              "GetValue/SetValue and ReinterpretCast; Cast to half first)",
              api);
    } else {
        check_vec_operand_bytes(api, role, t, need, file, line, align);
    }
}

// Operands an API forbids to share any UB byte, not even an in-place call (TopK, AscendDequant:
// API reference, constraints); the general rule allows a complete overlap (overlap.h).
template <class A, class B>
inline void check_operands_disjoint(const char* api, const char* da, const AscendC::LocalTensor<A>& a, uint64_t na,
                                    const char* sb, const AscendC::LocalTensor<B>& b, uint64_t nb, const char* file,
                                    int line) {
    if (!OperandFrame::enabled()) return;  // KERNELGEN_NO_OPERAND_OVERLAP=1
    const auto lo_a = reinterpret_cast<uintptr_t>(a.data()), lo_b = reinterpret_cast<uintptr_t>(b.data());
    if (lo_a < lo_b + nb * sizeof(B) && lo_b < lo_a + na * sizeof(A))
        failf("operand-overlap", file, line,
              "%s: %s (UB offset %llu) and %s (UB offset %llu) overlap; %s allows no source and destination to "
              "share UB, not even in place",
              api, da, (unsigned long long)a.ub_offset(), sb, (unsigned long long)b.ub_offset(), api);
}

// An int4b_t vector operand of `need` elements: its bytes checked as an operand, from a whole byte.
template <class T>
inline void check_int4_operand(const char* api, const char* role, const AscendC::LocalTensor<T>& t, uint64_t need,
                               const char* file, int line) {
    static_assert(is_int4_v<T>, "check_int4_operand takes packed int4b_t operands");
    if (t.valid() && t.nibble())
        failf("ub-offset-align", file, line,
              "%s: %s is a LocalTensor<int4b_t> view that starts in the middle of a byte (an odd offset); operands "
              "start on 32-byte boundaries (64 int4b_t elements)",
              api, role);
    check_vec_operand_bytes(api, role, t.bytes(), bytes_of<AscendC::int4b_t>(need), file, line, 32);
}

}  // namespace kernelgen

// Defines what this header declares and uses inline (it includes this header first).
#include "pipe.h"
