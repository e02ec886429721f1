// TPipe (on-chip arenas: UB, L1, L0A/B/C per pipe per block), queues (TQue, TQueBind) with the
// queue protocol checks, TBuf, and the single-TPipe and leak rules.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "tensor.h"

namespace kernelgen {

enum class SlotState : uint8_t { FREE, ALLOCATED, ENQUEUED, DEQUEUED };

inline const char* slot_state_name(SlotState s) {
    static const char* const names[] = {"free", "allocated", "enqueued", "dequeued"};
    return names[static_cast<int>(s)];
}

struct Arena {
    uint8_t* base = nullptr;
    uint64_t bytes = 0;
    uint64_t used = 0;
    const char* name = "";
    const char* overflow_code = "ub-overflow";  // the rule an InitBuffer past `bytes` breaks
    uint64_t claimed = 0;  // the end of the highest static-address tensor (static_alloc.h)
};

// One InitBuffer call, remembered for overflow messages.
struct BufferRecord {
    std::string what;  // "TQue<VECIN>" / "TBuf<VECCALC>"
    uint32_t num;
    uint64_t bytes_each;
    int line;
    const char* arena;
    bool api = false;  // space an API object (a Matmul) took for itself, not a user InitBuffer
};

// A buffer InitBuffer placed past the end of UB: the NPU's TPipe only hands out addresses, so the
// kernel runs on while it never uses the buffer (Ascend/samples UnalignAdd sizes three queues to
// the whole UB and initialises two int8-only TBufs after them); its first AllocTensor/Get is the
// error, reported at the InitBuffer.
struct PastEnd {
    std::string message;  // empty: the buffer is inside its memory
    const char* file = "";
    int line = 0;
    [[noreturn]] void fail_use(const std::string& use, const char* use_file, int use_line) const {
        failf("ub-overflow", file, line, "%s; %s at %s:%d uses it", message.c_str(), use.c_str(), use_file, use_line);
    }
};

struct LeakRecord {
    std::string message;
    const char* file;
    int line;
};

inline std::vector<LeakRecord>& pending_leaks() {
    static thread_local std::vector<LeakRecord> v;
    return v;
}

// State shared by every queue type: slots (buffers), their states, the FIFO of enqueued slots.
class QueueCore {
  public:
    QueueCore(AscendC::TPosition pos, int32_t depth, AscendC::TPosition dst)
        : pos_(pos), dst_(dst), depth_(depth) {}
    QueueCore(const QueueCore&) = delete;
    QueueCore& operator=(const QueueCore&) = delete;
    ~QueueCore() { record_leaks(); }

    struct Slot {
        uint8_t* data;
        SlotState state = SlotState::FREE;
        const char* file = "";
        int line = 0;  // AllocTensor call of the current use
        int free_line = 0;
        PipeModel::Clock enqueued{};  // pipe model: what the EnQue follows
    };

    void init(uint8_t* base, uint32_t num, uint64_t bytes_each, const uint8_t* arena, int* pos_counter,
              PastEnd past_end = {}) {
        past_end_ = std::move(past_end);
        slots_.clear();
        for (uint32_t i = 0; i < num; ++i) slots_.push_back(Slot{base + i * bytes_each});
        bytes_each_ = bytes_each;
        arena_ = arena;
        pos_counter_ = pos_counter;
        fifo_.clear();
    }

    std::string label() const {
        return std::string("TQue<") + AscendC::position_name(pos_) + ", " + std::to_string(depth_) + ">";
    }

    template <class T>
    AscendC::LocalTensor<T> alloc(const char* file, int line) {
        if (slots_.empty())
            failf("queue-protocol", file, line, "AllocTensor on %s before pipe.InitBuffer gave it buffers", label().c_str());
        if (!past_end_.message.empty()) past_end_.fail_use("AllocTensor on " + label(), file, line);
        for (size_t i = 0; i < slots_.size(); ++i) {
            if (slots_[i].state != SlotState::FREE) continue;
            int limit = static_cast<int>(chip().max_tensors_per_position);
            if (pos_counter_ && *pos_counter_ + 1 > limit) {
                // The limit is the pool of synchronisation events a queue's buffers hold between
                // pipes (FreeAllEvent's reference). A VECCALC queue hands its buffers from the
                // vector pipe back to itself, so whether it draws on that pool is not proved:
                // a warning there, a fault everywhere else.
                std::string msg = label() + ": " + std::to_string(*pos_counter_ + 1) + " tensors of position " +
                                  AscendC::position_name(pos_) + " would be allocated at once, the chip allows " +
                                  std::to_string(limit);
                if (pos_ != AscendC::TPosition::VECCALC)
                    failf("buffer-count", file, line, "AllocTensor on %s", msg.c_str());
                warn("buffer-count", "AllocTensor on " + msg +
                     " (the reference states the limit per position; a VECCALC queue crosses no pipe, "
                     "so the NPU may not hit it)", file, line);
            }
            if (pos_counter_) ++*pos_counter_;
            slots_[i].state = SlotState::ALLOCATED;
            slots_[i].file = file;
            slots_[i].line = line;
            pipe_model().forget(slots_[i].data, bytes_each_);
            return AscendC::LocalTensor<T>(reinterpret_cast<T*>(slots_[i].data),
                                           static_cast<uint32_t>(elems_in<T>(bytes_each_)), pos_, arena_, this,
                                           static_cast<int32_t>(i));
        }
        failf("queue-protocol", file, line,
              "AllocTensor on %s: all %zu buffers are in use (allocated at line %d%s); a FreeTensor is missing and "
              "the NPU would hang here",
              label().c_str(), slots_.size(), slots_[0].line, slots_.size() > 1 ? ", ..." : "");
    }

    template <class T>
    Slot& own_slot(const char* api, const AscendC::LocalTensor<T>& t, const char* file, int line) {
        const QueueCore* other = t.owner();
        if (other != nullptr && other != this && !t.is_view()) {
            // A whole buffer of another queue (FreeTensor takes that path in free_foreign): EnQue
            // would put another queue's block in this queue's FIFO, where this queue's consumer
            // DeQues it and the owner's state never sees it enqueued.
            int at = other->slot_line(t.slot());
            failf("queue-protocol", file, line,
                  "%s on %s with a buffer of another queue (%s, from its AllocTensor at line %d); a queue "
                  "enqueues only tensors its own AllocTensor gave",
                  api, label().c_str(), other->label().c_str(), at);
        }
        if (other != this || t.slot() < 0 || static_cast<size_t>(t.slot()) >= slots_.size())
            failf("queue-protocol", file, line, "%s on %s with a tensor that is not a whole buffer of this queue%s", api,
                  label().c_str(),
                  other == nullptr ? (t.is_view() ? " (a view t[offset])" : " (a TBuf tensor or a view)")
                  : other == this  ? " (a view t[offset] of one of its buffers)"
                                   : " (a view t[offset] of another queue's buffer)");
        return slots_[static_cast<size_t>(t.slot())];
    }

    // The AllocTensor line of buffer `slot`'s current use (0 when out of range).
    int slot_line(int32_t slot) const {
        return slot >= 0 && static_cast<size_t>(slot) < slots_.size() ? slots_[static_cast<size_t>(slot)].line : 0;
    }

    template <class T>
    void free(const AscendC::LocalTensor<T>& t, const char* file, int line) {
        QueueCore* other = t.owner();
        if (other != nullptr && other != this && !t.is_view()) return free_foreign(*other, t, file, line);
        Slot& s = own_slot("FreeTensor", t, file, line);
        if (s.state == SlotState::FREE)
            failf("queue-protocol", file, line, "FreeTensor on %s of a buffer that is already free", label().c_str());
        if (s.state == SlotState::ENQUEUED)
            failf("queue-protocol", file, line, "FreeTensor on %s of a tensor still enqueued (EnQue without DeQue)",
                  label().c_str());
        s.state = SlotState::FREE;
        s.free_line = line;
        if (pos_counter_) --*pos_counter_;
    }

    // FreeTensor through this queue of a whole buffer of `owner` (DrivingSDK points_in_box frees
    // its two VECIN tensors through each other's queue). FreeTensor takes only the tensor, which
    // carries its buffer; each queue hands out only the blocks InitBuffer gave it (the reference's
    // InitStartBufHandle: a queue's start block, count and size; sharing blocks between queues
    // needs a custom TBufPool), so the released block goes back to its owner, whatever its size.
    // What the freeing queue contributes is the release's synchronisation, which its positions
    // decide: the same positions make the swap unobservable (a warning), other positions leave the
    // owner's next AllocTensor guarded by the wrong pipe pair (an error). A block that is already
    // free or still enqueued fails as it would through its own queue.
    template <class T>
    void free_foreign(QueueCore& owner, const AscendC::LocalTensor<T>& t, const char* file, int line) {
        int at = owner.slot_line(t.slot());
        if (owner.pos_ != pos_ || owner.dst_ != dst_)
            failf("queue-protocol", file, line,
                  "FreeTensor on %s with a buffer of another queue (%s, from its AllocTensor at line %d) of "
                  "another position: the release signals the free event of a %s queue, while the owner's next "
                  "AllocTensor of that buffer waits on the one of a %s queue; free it with its own queue",
                  label().c_str(), owner.label().c_str(), at, AscendC::position_name(pos_),
                  AscendC::position_name(owner.pos_));
        warn("queue-protocol",
             "FreeTensor on " + label() + " with a buffer of another queue (" + owner.label() +
                 ", from its AllocTensor at line " + std::to_string(at) +
                 "): a queue allocates only its own blocks, so the buffer returns to its owner, and both queues "
                 "have the same position, so the release synchronises as the owner's would; harmless, but free "
                 "it with its own queue",
             file, line);
        owner.free(t, file, line);
    }

    bool slot_free(int32_t slot, int* free_line) const {
        if (slot < 0 || static_cast<size_t>(slot) >= slots_.size()) return false;
        const Slot& s = slots_[static_cast<size_t>(slot)];
        if (free_line) *free_line = s.free_line;
        return s.state == SlotState::FREE;
    }

    template <class T>
    bool enque(const AscendC::LocalTensor<T>& t, const char* file, int line) {
        Slot& s = own_slot("EnQue", t, file, line);
        if (s.state != SlotState::ALLOCATED && s.state != SlotState::DEQUEUED)
            failf("queue-protocol", file, line, "EnQue on %s of a tensor that is %s", label().c_str(),
                  slot_state_name(s.state));
        if (depth_ > 0 && fifo_.size() + 1 > static_cast<size_t>(depth_))
            failf("queue-depth", file, line, "EnQue on %s: %zu tensors would be in flight, depth is %d", label().c_str(),
                  fifo_.size() + 1, depth_);
        s.state = SlotState::ENQUEUED;
        s.enqueued = pipe_model().snapshot();
        fifo_.push_back(t.slot());
        return true;
    }

    template <class T>
    AscendC::LocalTensor<T> deque(const char* file, int line) {
        if (fifo_.empty())
            failf("queue-protocol", file, line, "DeQue on %s with nothing enqueued (EnQue missing or DeQue twice)",
                  label().c_str());
        int32_t i = fifo_.front();
        fifo_.erase(fifo_.begin());
        Slot& s = slots_[static_cast<size_t>(i)];
        s.state = SlotState::DEQUEUED;
        pipe_model().order_after(s.enqueued);
        return AscendC::LocalTensor<T>(reinterpret_cast<T*>(s.data), static_cast<uint32_t>(elems_in<T>(bytes_each_)),
                                       pos_, arena_, this, i);
    }

    size_t in_queue() const { return fifo_.size(); }
    bool has_idle() const {
        for (const auto& s : slots_)
            if (s.state == SlotState::FREE) return true;
        return false;
    }
    int32_t depth() const { return depth_; }

    // Tensors still allocated or enqueued when the queue goes away: AllocTensor and FreeTensor
    // come in pairs (API reference), but at the block's end nothing waits on the buffer, so the
    // NPU runs on (a kernel that holds its inputs for the whole block works there). A warning;
    // the fault a missing FreeTensor causes, an AllocTensor finding every buffer in use (the NPU
    // hangs), stays an error in alloc.
    void record_leaks() {
        for (const auto& s : slots_) {
            if (s.state == SlotState::FREE) continue;
            pending_leaks().push_back(LeakRecord{
                label() + ": the tensor from this AllocTensor is still " + slot_state_name(s.state) +
                    " when the block ends (FreeTensor missing; harmless at the end of the block on the NPU, "
                    "but the same code in a loop would hang at the next AllocTensor)",
                s.file, s.line});
        }
        slots_.clear();
        fifo_.clear();
    }

  private:
    AscendC::TPosition pos_;
    AscendC::TPosition dst_;  // a TQueBind's destination (pos_ for a TQue)
    int32_t depth_;
    std::vector<Slot> slots_;
    std::vector<int32_t> fifo_;
    uint64_t bytes_each_ = 0;
    const uint8_t* arena_ = nullptr;
    int* pos_counter_ = nullptr;
    PastEnd past_end_;
};

inline bool slot_is_free(const QueueCore* q, int32_t slot, int* free_line) { return q->slot_free(slot, free_line); }

inline bool register_leak_hook() {
    block_end_hooks().push_back([] {
        auto& leaks = pending_leaks();
        for (const auto& leak : leaks) warn("queue-protocol", leak.message, leak.file, leak.line);
        leaks.clear();
    });
    return true;
}
inline const bool kLeakHookRegistered = register_leak_hook();

}  // namespace kernelgen

namespace AscendC {

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind {
  public:
    TQueBind() : core_(std::make_shared<kernelgen::QueueCore>(src, depth, dst)) {}
    // A copy is the same queue: CANN's TQueBind holds plain handles into its TPipe's buffer
    // table, so a copy (fbgemm-ascend split_embedding's helper object takes `this->queIn =
    // queIn`) allocates, enqueues and frees the same buffers. Here copies share one state.
    TQueBind(const TQueBind&) = default;
    TQueBind& operator=(const TQueBind&) = default;

    template <class T>
    LocalTensor<T> AllocTensor(KG_LOC) {
        return core_->template alloc<T>(file, line);
    }
    template <class T>
    void FreeTensor(const LocalTensor<T>& t, KG_LOC) {
        core_->free(t, file, line);
    }
    template <class T>
    bool EnQue(const LocalTensor<T>& t, KG_LOC) {
        return core_->enque(t, file, line);
    }
    template <class T>
    LocalTensor<T> DeQue(KG_LOC) {
        return core_->template deque<T>(file, line);
    }
    bool VacantInQue() const { return depth <= 0 || core_->in_queue() < static_cast<size_t>(depth); }
    bool HasTensorInQue() const { return core_->in_queue() > 0; }
    int32_t GetTensorCountInQue() const { return static_cast<int32_t>(core_->in_queue()); }
    bool HasIdleBuffer() const { return core_->has_idle(); }
    void FreeAllEvent() {}

    kernelgen::QueueCore& core() { return *core_; }
    static constexpr TPosition position = src;

  private:
    std::shared_ptr<kernelgen::QueueCore> core_;
};

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue : public TQueBind<pos, pos, depth, mask> {};

// CANN derives TBuf from TQueBind (API reference, "Introduction to TBuf"), so real kernels call
// the queue members on it. The same page says what they can mean for a TBuf: "TPipe allocates one
// buffer to TBuf", "Tensors obtained by TBuf do not need to be released", and its buffer "cannot
// be enqueued or dequeued". So AllocTensor hands out that one buffer whole, as Get<T>() does, every
// time (a second AllocTensor before FreeTensor is the same buffer again, not a wait: DrivingSDK
// roiaware_maxpool3d_grad allocates its TBufs once per loop trip and never frees them);
// FreeTensor releases nothing and only checks the tensor is this TBuf's; EnQue/DeQue fail.
template <TPosition pos = TPosition::VECCALC>
class TBuf {
  public:
    template <class T>
    LocalTensor<T> AllocTensor(KG_LOC) const {
        return Get<T>(file, line);
    }
    template <class T>
    void FreeTensor(const LocalTensor<T>& t, KG_LOC) const {
        need_init(file, line);
        const auto* p = reinterpret_cast<const uint8_t*>(t.data());
        if (t.owner() != nullptr || p < data_ || p >= data_ + bytes_)
            kernelgen::failf("queue-protocol", file, line,
                             "FreeTensor on TBuf<%s> with a tensor that is not in this TBuf's buffer%s",
                             position_name(pos), t.owner() != nullptr ? " (a queue's buffer: free it with its queue)" : "");
    }
    template <class T>
    bool EnQue(const LocalTensor<T>&, KG_LOC) const {
        kernelgen::failf("queue-protocol", file, line,
                         "EnQue on TBuf<%s>: a TBuf's buffer cannot be enqueued or dequeued (API reference, "
                         "Introduction to TBuf); hand the data on through a TQue",
                         position_name(pos));
    }
    template <class T>
    LocalTensor<T> DeQue(KG_LOC) const {
        kernelgen::failf("queue-protocol", file, line,
                         "DeQue on TBuf<%s>: a TBuf's buffer cannot be enqueued or dequeued (API reference, "
                         "Introduction to TBuf); hand the data on through a TQue",
                         position_name(pos));
    }
    template <class T>
    LocalTensor<T> Get(KG_LOC) const {
        need_init(file, line);
        return LocalTensor<T>(reinterpret_cast<T*>(data_), static_cast<uint32_t>(kernelgen::elems_in<T>(bytes_)), pos,
                              arena_, nullptr, -1);
    }
    template <class T>
    LocalTensor<T> Get(uint32_t lenElems, KG_LOC) const {
        need_init(file, line);
        if (kernelgen::bytes_of<T>(lenElems) > bytes_)
            kernelgen::failf("count-exceeds-tensor", file, line, "TBuf::Get<%s>(%u) needs %llu bytes, the TBuf has %llu",
                             kernelgen::type_name<T>(), lenElems, (unsigned long long)kernelgen::bytes_of<T>(lenElems),
                             (unsigned long long)bytes_);
        // GetWithOffset at 0: the tensor's room is the whole TBuf (DrivingSDK's
        // assign_score_withk_grad takes 21 elements and BroadCasts 24 into them, all its own).
        LocalTensor<T> t(reinterpret_cast<T*>(data_), lenElems, pos, arena_, nullptr, -1);
        t.set_room(static_cast<uint32_t>(kernelgen::elems_in<T>(bytes_)));
        return t;
    }
    template <class T>
    LocalTensor<T> GetWithOffset(uint32_t lenElems, uint32_t offsetBytes, KG_LOC) const {
        need_init(file, line);
        if (offsetBytes + kernelgen::bytes_of<T>(lenElems) > bytes_)
            kernelgen::failf("count-exceeds-tensor", file, line, "TBuf::GetWithOffset: %u bytes + %u elements exceed the TBuf's %llu bytes",
                             offsetBytes, lenElems, (unsigned long long)bytes_);
        // The kernel lays its tensors out in the TBuf itself (generated kernels give a scalar's
        // slot one element and copy a whole block into it): the tensor's room is the TBuf's rest.
        LocalTensor<T> t(reinterpret_cast<T*>(data_ + offsetBytes), lenElems, pos, arena_, nullptr, -1);
        t.set_room(static_cast<uint32_t>(kernelgen::elems_in<T>(bytes_ - offsetBytes)));
        return t;
    }
    void init(uint8_t* data, uint64_t bytes, const uint8_t* arena, kernelgen::PastEnd past_end = {}) {
        data_ = data;
        bytes_ = bytes;
        arena_ = arena;
        past_end_ = std::move(past_end);
    }
    static constexpr TPosition position = pos;

  private:
    void need_init(const char* file, int line) const {
        if (!data_) kernelgen::failf("queue-protocol", file, line, "TBuf::Get before pipe.InitBuffer gave the TBuf memory");
        if (!past_end_.message.empty())
            past_end_.fail_use(std::string("a tensor of TBuf<") + position_name(pos) + ">", file, line);
    }
    kernelgen::PastEnd past_end_;
    uint8_t* data_ = nullptr;
    uint64_t bytes_ = 0;
    const uint8_t* arena_ = nullptr;
};

class TPipe {
  public:
    TPipe(KG_LOC) {  // NOLINT: real code writes `TPipe pipe;`
        auto& b = kernelgen::block();
        if (b.live_pipe)
            kernelgen::failf("single-tpipe", file, line,
                             "a second TPipe is constructed while the TPipe from %s:%d is alive in this block",
                             b.live_pipe_file, b.live_pipe_line);
        b.live_pipe = this;
        b.live_pipe_file = file;
        b.live_pipe_line = line;
        const auto& c = kernelgen::chip();
        ub_ = kernelgen::Arena{nullptr, c.ub_bytes, 0, "UB", "ub-overflow"};
        l1_ = kernelgen::Arena{nullptr, c.l1_bytes, 0, "L1", "l1-overflow"};
        l0a_ = kernelgen::Arena{nullptr, c.l0a_bytes, 0, "L0A", "l0-overflow"};
        l0b_ = kernelgen::Arena{nullptr, c.l0b_bytes, 0, "L0B", "l0-overflow"};
        l0c_ = kernelgen::Arena{nullptr, c.l0c_bytes, 0, "L0C", "l0-overflow"};
        bt_ = kernelgen::Arena{nullptr, 1024, 0, "BT", "l0-overflow"};
    }
    TPipe(const TPipe&) = delete;
    TPipe& operator=(const TPipe&) = delete;
    ~TPipe() { Destroy(); }

    template <TPosition src, TPosition dst, int32_t depth, auto mask>
    bool InitBuffer(TQueBind<src, dst, depth, mask>& que, uint8_t num, uint32_t len, KG_LOC) {
        kernelgen::Arena& a = arena_for(src);
        uint64_t each = kernelgen::align_up(len, 32);
        std::string what = que.core().label();
        kernelgen::PastEnd past;
        uint8_t* p = take(a, what, num, each, file, line, false, &past);
        que.core().init(p, num, each, a.base, &pos_counts_[static_cast<size_t>(src)], std::move(past));
        return true;
    }
    template <TPosition pos>
    bool InitBuffer(TBuf<pos>& buf, uint32_t len, KG_LOC) {
        if constexpr (pos == TPosition::GM) {
            // A TBuf on GM is workspace in global memory, not on-chip: it takes nothing from UB.
            // Reserved lazily (untouched pages cost nothing), as real code asks for up to 4 GiB.
            uint64_t each = kernelgen::align_up(len, 32);
            uint8_t* p = reserve_gm(each, file, line);  // may lower `each`
            buf.init(p, each, p);  // `each` is now what could be reserved
            return true;
        }
        kernelgen::Arena& a = arena_for(pos);
        uint64_t each = kernelgen::align_up(len, 32);
        std::string what = std::string("TBuf<") + position_name(pos) + ">";
        kernelgen::PastEnd past;
        uint8_t* p = wraps_to_start(a, each) ? alias_from_start(a, what, each, file, line)
                                             : take(a, what, 1, each, file, line, false, &past);
        buf.init(p, each, a.base, std::move(past));
        return true;
    }

    // A TBufPool of `len` bytes of the pool's memory, or sharing `share`'s (buf_pool.h).
    template <class P>
    bool InitBufPool(P& pool, uint32_t len, KG_LOC);
    template <class P, class S>
    bool InitBufPool(P& pool, uint32_t len, S& share, KG_LOC);
    // The per-position queue count a queue carved from a TBufPool counts against.
    int* position_counter(TPosition p) { return &pos_counts_[static_cast<size_t>(p)]; }

    TEventID FetchEventID(HardEvent) { return next_event_++ & 7; }
    template <HardEvent evt>
    TEventID FetchEventID() {
        return next_event_++ & 7;
    }
    template <HardEvent evt>
    TEventID AllocEventID() {
        return next_event_++ & 7;
    }
    template <HardEvent evt>
    void ReleaseEventID(TEventID) {}

    // Frees every buffer (InitBuffer starts from the bottom of each arena again).
    void Reset() {
        for (auto* a : {&ub_, &l1_, &l0a_, &l0b_, &l0c_, &bt_}) a->used = a->claimed = 0;
        records_.clear();
        shared_api_.clear();
        buffers_ = 0;
    }
    void Destroy() {
        for (auto* a : {&ub_, &l1_, &l0a_, &l0b_, &l0c_, &bt_})
            if (a->base) kernelgen::pipe_model().remove_region(a->base);
        auto& b = kernelgen::block();
        if (b.live_pipe == this) b.live_pipe = nullptr;
    }
    void Init() {}

    // Bytes [addr, addr + bytes) of the memory behind `pos`, addressed directly (a LocalTensor
    // made at an address in the static-tensor style): they must lie inside that memory.
    uint8_t* at_address(TPosition pos, uint64_t addr, uint64_t bytes, const char* file, int line) {
        kernelgen::Arena& a = arena_for(pos);
        if (!a.base) make_arena(a);
        if (addr + bytes > a.bytes)
            kernelgen::failf(a.overflow_code, file, line,
                             "a LocalTensor at %s address %llu of %llu B runs past the %llu B of %s", position_name(pos),
                             (unsigned long long)addr, (unsigned long long)bytes, (unsigned long long)a.bytes, a.name);
        a.claimed = std::max(a.claimed, addr + bytes);
        return a.base + addr;
    }
    uint64_t ub_used() const { return ub_.used; }
    // Where the UB this TPipe's buffers and static-address tensors own ends: no buffer of the
    // kernel holds a byte past it.
    uint64_t ub_owned_end() const { return std::max(ub_.used, ub_.claimed); }
    // Where this TPipe's UB starts (null before its first UB InitBuffer).
    uint8_t* ub_base() const { return ub_.base; }
    // The first InitBuffer since construction or Reset (REGIST_MATMUL_OBJ must precede it on split-core chips).
    const kernelgen::BufferRecord* first_buffer() const {
        for (const auto& r : records_)
            if (!r.api) return &r;
        return nullptr;
    }
    // The first user buffer in a memory of the cube core (L1, L0A/L0B/L0C, the bias table).
    const kernelgen::BufferRecord* first_cube_buffer() const {
        for (const auto& r : records_)
            if (!r.api && std::string(r.arena) != "UB") return &r;
        return nullptr;
    }
    // `bytes` of the memory behind `pos` taken by an API object for its own buffers (the Matmul
    // API's A1/B1/L0 share from its TCubeTiling): they count against the memory as InitBuffer
    // does, so user buffers and the API's share overflow it together, with both in the message.
    void reserve_for_api(TPosition pos, const std::string& what, uint64_t bytes, const char* file, int line) {
        if (bytes == 0) return;
        take(arena_for(pos), what, 1, kernelgen::align_up(bytes, 32), file, line, true);
    }
    // The same for memory the API objects of this TPipe take in turns (the L0A/L0B/L0C of one
    // Mmad, which each Matmul object fills and drains within its Iterate): they share one
    // reservation, as large as the largest; only what a larger one needs beyond it is taken.
    // Inferred: RecSDK disentangle_attention registers four Matmul objects with 128 x 128 float
    // base blocks (64 KB of L0C each, 256 KB in all against a 128 KB L0C) and runs on the NPU.
    void reserve_shared_for_api(TPosition pos, const std::string& what, uint64_t bytes, const char* file, int line) {
        uint64_t& held = shared_api_[static_cast<int>(pos)];
        bytes = kernelgen::align_up(bytes, 32);
        if (bytes <= held) return;
        take(arena_for(pos), what, 1, bytes - held, file, line, true);
        held = bytes;
    }

  private:
    struct Free {
        void operator()(uint8_t* p) const { std::free(p); }
    };
    struct Unmap {
        uint64_t bytes;
        void operator()(uint8_t* p) const { munmap(p, bytes); }
    };

    // Reserves `bytes` of zeroed host memory, or, where the run's address-space limit refuses
    // that (a 4 GiB workspace), the largest power-of-two part of at least 64 MiB; `bytes` becomes
    // what was reserved, so access past it fails on the TBuf's bounds checks.
    uint8_t* reserve_gm(uint64_t& bytes, const char* file, int line) {
        constexpr uint64_t kFloor = 64ull << 20;
        for (uint64_t n = bytes;; n = kernelgen::align_up(n / 2, 32)) {
            void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (p != MAP_FAILED) {
                gm_owned_.emplace_back(static_cast<uint8_t*>(p), Unmap{n});
                bytes = n;
                return static_cast<uint8_t*>(p);
            }
            if (n <= kFloor)
                kernelgen::failf("crash", file, line, "out of host address space for a TBuf<GM> of %llu B",
                                 (unsigned long long)bytes);
        }
    }

    // Arenas are allocated on first use: most vector kernels never touch L1 or L0.
    void make_arena(kernelgen::Arena& a) {
        // UB is backed twice over: a buffer InitBuffer places across its end gets its real
        // address, and the pipe model stops any access past the end (take).
        const uint64_t slack = &a == &ub_ ? a.bytes : 0;
        uint64_t n = kernelgen::align_up((a.bytes ? a.bytes : 32) + slack, 4096);
        auto* p = static_cast<uint8_t*>(std::aligned_alloc(4096, n));
        if (!p) kernelgen::fail("crash", "out of host memory for the on-chip arenas", __FILE__, __LINE__);
        std::memset(p, 0xFF, n);  // uninitialised on-chip memory reads as NaN / -1, as garbage would
        owned_.emplace_back(p);
        a.base = p;
        kernelgen::pipe_model().add_region(p, a.bytes, slack);  // the pipe model tracks every on-chip arena
    }

    kernelgen::Arena& arena_for(TPosition p) {
        switch (p) {
            case TPosition::A1:
            case TPosition::B1:
            case TPosition::C1:
            case TPosition::TSCM: return l1_;
            case TPosition::A2: return l0a_;
            case TPosition::B2: return l0b_;
            case TPosition::CO1: return l0c_;
            case TPosition::C2: return bt_;
            default: return ub_;
        }
    }

    // A TBuf that would start at a whole multiple of its memory's size and fit inside one: on a
    // chip whose on-chip addresses wrap (chips.json local_address_wrap) the NPU addresses it from
    // the memory's start, so it is the whole memory again under another position, not an overflow.
    bool wraps_to_start(const kernelgen::Arena& a, uint64_t each) const {
        return kernelgen::chip().local_address_wrap && a.bytes > 0 && a.used + each > a.bytes &&
               a.used % a.bytes == 0 && each <= a.bytes;
    }

    uint8_t* alias_from_start(kernelgen::Arena& a, const std::string& what, uint64_t each, const char* file,
                              int line) {
        if (++buffers_ > MAX_BUFFERS_PER_PIPE)
            kernelgen::failf("buffer-count", file, line,
                             "InitBuffer of %s brings this TPipe to %u buffers; at most %d are allowed", what.c_str(),
                             buffers_, MAX_BUFFERS_PER_PIPE);
        std::string shares;
        for (const auto& r : records_)
            if (r.arena == a.name) shares += (shares.empty() ? "" : ", ") + r.what + " (line " + std::to_string(r.line) + ")";
        kernelgen::warn(a.overflow_code,
                        "InitBuffer of " + what + " (" + std::to_string(each) + " B) starts at " +
                            std::to_string(a.used) + " B, past the " + std::to_string(a.bytes) + " B of " + a.name +
                            "; on " + kernelgen::chip().name + " addresses wrap at the memory's size, so it is " +
                            a.name + " from address 0 again and shares its bytes with " + shares,
                        file, line);
        if (!a.base) make_arena(a);
        a.used += each;
        records_.push_back(kernelgen::BufferRecord{what, 1, each, line, a.name, false});
        return a.base;
    }

    // `past`: where a user buffer that does not fit in UB may be placed past its end (PastEnd);
    // without it (L1/L0, an API object's share) the overflow is the error at once.
    uint8_t* take(kernelgen::Arena& a, const std::string& what, uint32_t num, uint64_t each, const char* file,
                  int line, bool api = false, kernelgen::PastEnd* past = nullptr) {
        if (!api) buffers_ += num;
        if (buffers_ > MAX_BUFFERS_PER_PIPE)
            kernelgen::failf("buffer-count", file, line,
                             "InitBuffer of %s with %u buffers brings this TPipe to %u buffers; at most %d are allowed",
                             what.c_str(), num, buffers_, MAX_BUFFERS_PER_PIPE);
        uint64_t need = uint64_t(num) * each;
        std::string straddle;  // a UB buffer across the end (pipe_model().note_straddle)
        if (a.used + need > a.bytes) {
            std::string used;
            for (const auto& r : records_) {
                if (r.arena != a.name) continue;
                used += "; " + r.what + " " + std::to_string(r.num) + " x " + std::to_string(r.bytes_each) +
                        " B (line " + std::to_string(r.line) + ")";
            }
            const uint64_t left = a.used < a.bytes ? a.bytes - a.used : 0;
            const std::string msg = kernelgen::format(
                "%s %s needs %u x %llu = %llu B but %s has %llu B of %llu B left (%llu B in use%s)",
                api ? "the share of" : "InitBuffer of", what.c_str(), num, (unsigned long long)each,
                (unsigned long long)need, a.name, (unsigned long long)left, (unsigned long long)a.bytes,
                (unsigned long long)a.used, used.c_str());
            if (past == nullptr || &a != &ub_)
                kernelgen::fail(a.overflow_code, msg, file, line);
            if (a.used < a.bytes && a.used + need <= 2 * a.bytes) {
                // Across the end: its real address; a use inside UB runs on the NPU
                // (xllm-ops index_group_matmul sizes a TBuf to the whole UB after 51 KB of
                // queues and uses 64 KB of it), a touch past the end is the error.
                kernelgen::warn(a.overflow_code,
                                msg + ": its last " + std::to_string(a.used + need - a.bytes) +
                                    " B lie past the end of UB; the NPU's TPipe only hands out addresses, so this "
                                    "runs there while the kernel touches no byte past UB (an access there is the "
                                    "error)",
                                file, line);
                straddle = "the " + what + " that InitBuffer at " + file + ":" + std::to_string(line) +
                           " placed at UB byte " + std::to_string(a.used) + " reaches " +
                           std::to_string(a.used + need - a.bytes) + " B past the end of UB (" + msg + ")";
            } else {
                kernelgen::warn(a.overflow_code,
                                msg + ": it lies past the end of UB; the NPU's TPipe only hands out addresses, so "
                                      "this runs there while the kernel never uses the buffer (an AllocTensor/Get on "
                                      "it is the error)",
                                file, line);
                *past = kernelgen::PastEnd{msg + ": it lies past the end of UB", file, line};
            }
        }
        if (!a.base) make_arena(a);
        if (!straddle.empty()) kernelgen::pipe_model().note_straddle(a.base, straddle);
        // Wholly past the end: never handed out, every use stops at PastEnd.
        uint8_t* p = past != nullptr && !past->message.empty() ? a.base : a.base + a.used;
        a.used += need;
        records_.push_back(kernelgen::BufferRecord{what, num, each, line, a.name, api});
        return p;
    }

    kernelgen::Arena ub_, l1_, l0a_, l0b_, l0c_, bt_;
    std::vector<std::unique_ptr<uint8_t, Free>> owned_;
    std::vector<std::unique_ptr<uint8_t, Unmap>> gm_owned_;
    std::vector<kernelgen::BufferRecord> records_;
    std::map<int, uint64_t> shared_api_;  // TPosition -> bytes of the shared API reservation there
    uint32_t buffers_ = 0;
    int pos_counts_[static_cast<size_t>(TPosition::MAX) + 1] = {};
    int next_event_ = 0;
};

inline TPipe* GetTPipePtr() { return static_cast<TPipe*>(kernelgen::block().live_pipe); }

}  // namespace AscendC

// Called unqualified, inside templates too, by kernels without `using namespace AscendC`
// (sgl-kernel-npu cache_loc_assign), as the system-variable functions are (sync.h).
using AscendC::GetTPipePtr;

namespace kernelgen {

// Where the UB that some buffer of the live TPipe owns ends, for a tensor in `arena` (all of UB
// when the tensor is not in that TPipe's UB).
inline uint64_t ub_owned_end(const uint8_t* arena) {
    const AscendC::TPipe* pipe = AscendC::GetTPipePtr();
    return pipe && pipe->ub_base() == arena ? pipe->ub_owned_end() : chip().ub_bytes;
}

}  // namespace kernelgen

namespace AscendC {

// LocalTensor<int4b_t>'s members that reach the queue state and the UB layout (tensor.h).
inline void LocalTensor<int4b_t>::check_live(const char* api, const char* file, int line) const {
    bytes_.check_live(api, file, line);
}
inline uint64_t LocalTensor<int4b_t>::check_index(const char* api, uint64_t i, bool write, const char* file,
                                                  int line) const {
    if (!bytes_.valid()) kernelgen::failf("queue-protocol", file, line, "%s on a LocalTensor that holds no buffer", api);
    bytes_.check_live(api, file, line);
    const uint64_t at = nibble_ + i;
    if (i >= size_)
        kernelgen::past_tensor(bytes_, at / 2 + 1, write, file, line, "%s(%llu) on a LocalTensor<int4b_t> of %u elements",
                               api, (unsigned long long)i, size_);
    return at;
}
inline int4b_t LocalTensor<int4b_t>::GetValue(uint32_t i, const char* file, int line) const {
    const uint64_t at = check_index("GetValue", i, false, file, line);
    kernelgen::counters().scalar_accesses++;
    kernelgen::pipe_model().access(kernelgen::Pipe::S, "GetValue", bytes_.data() + at / 2, 1, false, file, line);
    return kernelgen::int4_load(bytes_.data(), at);
}

}  // namespace AscendC

namespace kernelgen {

// `(__ubuf__ T*)v` in device code (the source rewrite in toolchain/compat.py turns the cast into
// this call): an integer below the UB's size is a UB byte address, the scalar unit's view of the
// UB that TPipe lays its buffers out in from 0, so it lands in this block's UB arena. A pointer,
// or an integer at or above that size (LocalTensor::GetPhyAddr() here gives the host address of
// the arena byte), already is one.
template <class T, class V>
T* ub_ptr(V v, KG_LOC) {
    if constexpr (std::is_pointer_v<V>) {
        return reinterpret_cast<T*>(v);
    } else {
        static_assert(std::is_integral_v<V>, "(__ubuf__ T*) of something that is neither an address nor a pointer");
        const uint64_t at = static_cast<uint64_t>(v);
        if (at >= chip().ub_bytes) return reinterpret_cast<T*>(static_cast<uintptr_t>(at));
        AscendC::TPipe* pipe = AscendC::GetTPipePtr();
        if (pipe == nullptr || pipe->ub_base() == nullptr)
            failf("crash", file, line, "a raw __ubuf__ address %llu is used with no UB buffer set up by a TPipe",
                  (unsigned long long)at);
        if (at + sizeof(T) > chip().ub_bytes)
            failf("ub-overflow", file, line, "a raw __ubuf__ address %llu (%zu B) runs past the %llu B of UB",
                  (unsigned long long)at, sizeof(T), (unsigned long long)chip().ub_bytes);
        return reinterpret_cast<T*>(pipe->ub_base() + at);
    }
}

}  // namespace kernelgen
