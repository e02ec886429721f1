// The pipe model: on the NPU the scalar unit issues instructions in program order into
// independent pipes (S, V, M, MTE1, MTE2, MTE3, FIX) that run concurrently; only instructions
// of one pipe complete in order. Here every API completes before it returns, so a kernel that
// forgets a SetFlag/WaitFlag computes the right numbers. This model records, per on-chip byte,
// which instruction (pipe, sequence number, call site) wrote it last, and per pipe a vector
// clock of what is known to have completed before its next instruction. A read of a byte whose
// last writer ran on another pipe with no ordering between is `pipe-hazard` (read after write),
// and so is a write of a byte whose last reader ran on another pipe that nothing orders before
// the writer (write after read: MTE2 refilling a buffer V still reads, V rewriting a buffer
// MTE3 still copies out). A write is checked against every read since the bytes' last ordering
// point: per pipe the last read of each byte is kept (a pipe completes in order, so ordering its
// last read orders its earlier ones). Scalar reads (GetValue) complete before the scalar unit
// issues anything else, so they never have a write-after-read hazard.
//
// Every on-chip arena is tracked: UB (V, MTE2 in, MTE3 out, S), and the cube path's L1 (MTE2
// writes from GM, LoadData reads on MTE1), L0A/L0B (LoadData writes on MTE1, or MTE2 from GM;
// Mmad reads on M), L0C (Mmad writes, and reads when it accumulates, on M; Fixpipe reads on FIX).
//
// What orders two pipes (AscendC docs, SetFlag/WaitFlag and the TQue programming model):
// - SetFlag<SRC_DST>(id) then WaitFlag<SRC_DST>(id): everything SRC issued before the set is
//   complete before DST's instructions after the wait ("PIPE_DST waits for PIPE_SRC"); a wait
//   on PIPE_S stalls the issue of every later instruction, so it orders every pipe.
// - PipeBarrier<PIPE_ALL>() (and SyncAll) orders everything before it before everything after.
//   PipeBarrier<PIPE_X> only orders PIPE_X against itself (already in order here).
// - EnQue then DeQue of a queue tensor: the queue's flag pair. Modelled leniently: everything
//   issued before the EnQue is ordered before every pipe after the DeQue (the NPU orders the
//   queue's producer pipe before its consumer pipe only).
// - The compiler's automatic synchronization (BiSheng `--cce-auto-sync`, on by default in
//   kernel-launch and custom operator projects): it inserts the flags between MTE2 and S, MTE3
//   and S, V and S (both directions) and within V. A hazard between two such pipes is ordered
//   here as if that flag pair stood just before the second call (so every earlier instruction
//   of the first pipe completes first, as a SetFlag waits for); MTE2 <-> V, V <-> MTE3, MTE2 <-> MTE3
//   and the cube pipes stay the kernel's (or the queues') job. KERNELGEN_AUTO_SYNC=0 (a project
//   compiled without the option: `auto_sync = false` in kernelgen.toml) keeps every pair strict.
//   Source: https://www.hiascend.com/document/detail/en/CANNCommunityEdition/900/compiler/BishengCompiler/atlas_bisheng_10_0008.html
#pragma once

#include <array>
#include <deque>
#include <map>
#include <tuple>
#include <vector>

#include "clobber.h"
#include "device.h"

namespace kernelgen {

enum class Pipe : uint8_t { S, V, M, MTE1, MTE2, MTE3, FIX, COUNT };
constexpr size_t kPipes = static_cast<size_t>(Pipe::COUNT);

inline const char* pipe_name(Pipe p) {
    static const char* const names[] = {"PIPE_S", "PIPE_V", "PIPE_M", "PIPE_MTE1", "PIPE_MTE2", "PIPE_MTE3", "PIPE_FIX"};
    return names[static_cast<size_t>(p)];
}
// The HardEvent spelling of a pipe (S, V, M, MTE1, ...).
inline const char* pipe_short(Pipe p) { return pipe_name(p) + 5; }

// pipe_t -> Pipe; PIPE_ALL and the pipes AscendC kernels do not address map to COUNT.
inline Pipe pipe_of(pipe_t p) {
    switch (p) {
        case PIPE_S: return Pipe::S;
        case PIPE_V: case PIPE_V2: return Pipe::V;
        case PIPE_M: return Pipe::M;
        case PIPE_MTE1: return Pipe::MTE1;
        case PIPE_MTE2: return Pipe::MTE2;
        case PIPE_MTE3: return Pipe::MTE3;
        case PIPE_FIX: return Pipe::FIX;
        default: return Pipe::COUNT;
    }
}

// HardEvent names are SRC_DST ("MTE2_V: PIPE_V waits for PIPE_MTE2"); this table follows the
// enum's order in types.h.
struct EventPipes {
    Pipe src, dst;
};
inline EventPipes event_pipes(AscendC::HardEvent e) {
    using P = Pipe;
    static const EventPipes table[] = {
        {P::MTE2, P::MTE1}, {P::MTE1, P::MTE2}, {P::MTE1, P::M},   {P::M, P::MTE1},    {P::MTE2, P::V},
        {P::V, P::MTE2},    {P::MTE3, P::V},    {P::V, P::MTE3},   {P::M, P::V},       {P::V, P::M},
        {P::V, P::V},       {P::MTE3, P::MTE1}, {P::MTE1, P::MTE3}, {P::MTE1, P::V},   {P::MTE2, P::M},
        {P::M, P::MTE2},    {P::V, P::MTE1},    {P::M, P::FIX},    {P::FIX, P::M},     {P::MTE3, P::MTE2},
        {P::MTE2, P::MTE3}, {P::S, P::V},       {P::V, P::S},      {P::S, P::MTE2},    {P::MTE2, P::S},
        {P::S, P::MTE3},    {P::MTE3, P::S},    {P::MTE2, P::FIX}, {P::FIX, P::MTE2},  {P::FIX, P::S},
        {P::M, P::S},       {P::FIX, P::MTE3},  {P::MTE1, P::FIX}, {P::FIX, P::MTE1},  {P::FIX, P::FIX},
    };
    static_assert(sizeof(table) / sizeof(table[0]) == static_cast<size_t>(AscendC::HardEvent::MAX));
    size_t i = static_cast<size_t>(e);
    return i < static_cast<size_t>(AscendC::HardEvent::MAX) ? table[i] : EventPipes{Pipe::COUNT, Pipe::COUNT};
}

class PipeModel {
  public:
    using Clock = std::array<uint64_t, kPipes>;

    // An on-chip arena (one per TPipe memory kind) whose bytes are tracked.
    // `slack`: bytes backed behind it for a buffer InitBuffer placed across its end, which no
    // access may touch (note_straddle).
    void add_region(const uint8_t* base, uint64_t bytes, uint64_t slack = 0) {
        flush();  // pending writes point into regions_
        regions_.push_back(Region{base, bytes, std::vector<uint64_t>(bytes, 0), std::vector<uint16_t>(bytes, 0), {}, {},
                                  slack, {}});
    }
    // A buffer of the arena at `base` reaches past its end (`what` says which): the NPU's TPipe
    // only hands out addresses, so the kernel runs there while it touches no byte past the end.
    void note_straddle(const uint8_t* base, const std::string& what) {
        for (auto& r : regions_)
            if (r.base == base) r.straddle = what;
        any_straddle_ = true;
    }
    void remove_region(const uint8_t* base) {
        flush();
        for (size_t i = 0; i < regions_.size(); ++i)
            if (regions_[i].base == base) {
                clobbers().forget(base, regions_[i].bytes);
                regions_.erase(regions_.begin() + static_cast<long>(i));
                return;
            }
    }

    // An instruction on `pipe` at a call site reads or writes `bytes` bytes at `p`. Consecutive
    // accesses from one call site are one instruction (its operands): its writes land when the
    // next instruction starts, so its reads (checked in any order) see what came before it.
    void access(Pipe pipe, const char* api, const void* p, uint64_t bytes, bool write, const char* file, int line) {
        if (bytes == 0) return;
        if (any_straddle_) check_inside(p, bytes, api, file, line);
        clobbers().access(p, bytes, write, api, file, line);
        if (!enabled()) return;
        Region* r = region_of(p);
        if (!r) return;
        uint16_t site = site_of(pipe, api, file, line);
        if (site != cur_site_) {
            flush();
            cur_site_ = site;
            cur_seq_ = ++seq_;
        }
        uint64_t off = static_cast<uint64_t>(static_cast<const uint8_t*>(p) - r->base);
        uint64_t end = off + bytes > r->bytes ? r->bytes : off + bytes;
        const Clock& known = clock_[static_cast<size_t>(pipe)];
        if (write) {
            // Every reader since the bytes' last ordering point: one per pipe suffices, since a
            // pipe completes in order (ordering its last read orders its earlier ones).
            if (war_enabled())
                for (size_t rp = 0; rp < kPipes; ++rp) {
                    if (rp == static_cast<size_t>(pipe) || r->rseq[rp].empty()) continue;
                    uint64_t last = 0;
                    for (uint64_t i = off; i < end; ++i) {
                        uint64_t s = r->rseq[rp][i];
                        if (s == last || s == 0 || s == cur_seq_) continue;
                        last = s;
                        if (known[rp] >= s) continue;
                        if (auto_synced(static_cast<Pipe>(rp), pipe)) {
                            compiler_flag(static_cast<Pipe>(rp), s, pipe);
                            continue;
                        }
                        war_hazard(pipe, api, sites_[r->rsite[rp][i]], r, rp, i, file, line);
                    }
                }
            pending_writes_.push_back(Write{r, off, end, cur_seq_, site});
            return;
        }
        uint64_t last = 0;
        for (uint64_t i = off; i < end; ++i) {
            uint64_t s = r->seq[i];
            if (s == last || s == 0 || s == cur_seq_) continue;
            last = s;
            const Site& w = sites_[r->site[i]];
            if (w.pipe == pipe || known[static_cast<size_t>(w.pipe)] >= s) continue;
            if (auto_synced(w.pipe, pipe)) {
                compiler_flag(w.pipe, s, pipe);
                continue;
            }
            hazard(pipe, api, w, r, i, file, line);
        }
        if (pipe != Pipe::S) {  // the read stays in flight until something orders it
            const size_t rp = static_cast<size_t>(pipe);
            if (r->rseq[rp].empty()) {  // the pipe's first read of this arena
                r->rseq[rp].assign(r->bytes, 0);
                r->rsite[rp].assign(r->bytes, 0);
            }
            std::fill(r->rseq[rp].begin() + static_cast<long>(off), r->rseq[rp].begin() + static_cast<long>(end), cur_seq_);
            std::fill(r->rsite[rp].begin() + static_cast<long>(off), r->rsite[rp].begin() + static_cast<long>(end), site);
        }
    }

    // Whether the byte at `p` was written since its buffer was last handed out (true where the
    // model does not track it: it is off, or `p` is in no arena).
    bool written(const uint8_t* p) {
        if (!enabled()) return true;
        Region* r = region_of(p);
        return r == nullptr || r->seq[static_cast<size_t>(p - r->base)] != 0;
    }

    // The bytes of a buffer handed out again (AllocTensor): its old contents are garbage to
    // the new owner, so nothing orders against them.
    void forget(const void* p, uint64_t bytes) {
        clobbers().forget(p, bytes);
        flush();
        Region* r = region_of(p);
        if (!r) return;
        uint64_t off = static_cast<uint64_t>(static_cast<const uint8_t*>(p) - r->base);
        uint64_t end = off + bytes > r->bytes ? r->bytes : off + bytes;
        std::fill(r->seq.begin() + static_cast<long>(off), r->seq.begin() + static_cast<long>(end), 0);
        for (auto& rs : r->rseq)
            if (!rs.empty()) std::fill(rs.begin() + static_cast<long>(off), rs.begin() + static_cast<long>(end), 0);
    }

    void set_flag(Pipe src, Pipe dst, int32_t id) {
        if (src == Pipe::COUNT || dst == Pipe::COUNT) return;
        Clock snap = clock_[static_cast<size_t>(src)];
        snap[static_cast<size_t>(src)] = seq_;
        pending_[{static_cast<int>(src), static_cast<int>(dst), id}].push_back(snap);
        boundary();
    }
    void wait_flag(Pipe src, Pipe dst, int32_t id) {
        if (src == Pipe::COUNT || dst == Pipe::COUNT) return;
        auto it = pending_.find({static_cast<int>(src), static_cast<int>(dst), id});
        if (it != pending_.end() && !it->second.empty()) {
            Clock snap = it->second.front();
            it->second.pop_front();
            if (dst == Pipe::S) {
                for (auto& c : clock_) join(c, snap);
            } else {
                join(clock_[static_cast<size_t>(dst)], snap);
            }
        }
        boundary();
    }
    // PipeBarrier<PIPE_ALL>, SyncAll: everything issued so far completes first.
    void barrier_all() {
        for (auto& c : clock_) c.fill(seq_);
        boundary();
    }
    // EnQue: what is issued so far; DeQue: ordered after that on every pipe (see above).
    Clock snapshot() {
        Clock c;
        c.fill(seq_);
        boundary();
        return c;
    }
    void order_after(const Clock& snap) {
        for (auto& c : clock_) join(c, snap);
        boundary();
    }

    // KERNELGEN_NO_PIPE_MODEL=1 turns the model off (a kernel known to be synchronised some
    // way the model does not see).
    static bool enabled() {
        static const bool on = !env_switch("KERNELGEN_NO_PIPE_MODEL");
        return on;
    }
    // KERNELGEN_AUTO_SYNC=0: the kernel is compiled without --cce-auto-sync, so every pipe
    // pair needs its own flag (default: on, as in the projects the compiler builds).
    static bool auto_sync() {
        static const bool on = !env_equals("KERNELGEN_AUTO_SYNC", "0");
        return on;
    }
    // The pipe pairs the compiler synchronises under --cce-auto-sync (its documented list: MTE2,
    // MTE3 and V each with S, both directions; V with V is in order here anyway).
    static bool auto_synced(Pipe a, Pipe b) {
        if (!auto_sync()) return false;
        auto scalar_pair = [](Pipe s, Pipe o) { return s == Pipe::S && (o == Pipe::V || o == Pipe::MTE2 || o == Pipe::MTE3); };
        return scalar_pair(a, b) || scalar_pair(b, a);
    }

    // KERNELGEN_NO_PIPE_WAR=1 keeps the read-after-write checks only.
    static bool war_enabled() {
        static const bool on = !env_switch("KERNELGEN_NO_PIPE_WAR");
        return on;
    }

  private:
    struct Region {
        const uint8_t* base;
        uint64_t bytes;
        std::vector<uint64_t> seq;   // sequence number of the last write of each byte (0: none)
        std::vector<uint16_t> site;  // its call site
        // per pipe, the sequence number of its last read of each byte (0: none) and its call
        // site; allocated when the pipe first reads the arena (S reads are not kept)
        std::array<std::vector<uint64_t>, kPipes> rseq;
        std::array<std::vector<uint16_t>, kPipes> rsite;
        uint64_t slack = 0;     // backed bytes behind the end (add_region)
        std::string straddle;  // the buffer that reaches into them (note_straddle)
    };
    struct Write {
        Region* r;
        uint64_t off, end, seq;
        uint16_t site;
    };
    struct Site {
        Pipe pipe;
        const char* api;
        const char* file;
        int line;
    };

    // The flag pair the compiler inserts for an auto-synced pair, placed as the reference's
    // SetFlag/WaitFlag examples place theirs: set and wait together just before the consumer.
    // A SetFlag starts once every earlier instruction of its pipe has completed (API reference,
    // SetFlag/WaitFlag), so all that `src` issued before this call, not only the producer `seq`,
    // completes before `dst`'s next instruction (DrivingSDK scatter_add copies indices, then
    // values, both on MTE2, reads an index with GetValue and copies the values out on MTE3: the
    // MTE2 -> S pair before the GetValue orders both copies). A wait on S stalls every later
    // issue, so it orders every pipe.
    void compiler_flag(Pipe src, uint64_t seq, Pipe dst) {
        if (cur_seq_ > seq + 1) seq = cur_seq_ - 1;  // everything issued before this call
        const size_t i = static_cast<size_t>(src);
        if (dst == Pipe::S) {
            for (auto& c : clock_)
                if (c[i] < seq) c[i] = seq;
        } else if (clock_[static_cast<size_t>(dst)][i] < seq) {
            clock_[static_cast<size_t>(dst)][i] = seq;
        }
    }
    static void join(Clock& a, const Clock& b) {
        for (size_t i = 0; i < kPipes; ++i)
            if (b[i] > a[i]) a[i] = b[i];
    }
    void boundary() {
        flush();
        cur_site_ = kNoSite;
        ++seq_;
    }
    void flush() {
        for (const Write& w : pending_writes_) {
            std::fill(w.r->seq.begin() + static_cast<long>(w.off), w.r->seq.begin() + static_cast<long>(w.end), w.seq);
            std::fill(w.r->site.begin() + static_cast<long>(w.off), w.r->site.begin() + static_cast<long>(w.end), w.site);
        }
        pending_writes_.clear();
    }
    void check_inside(const void* p, uint64_t bytes, const char* api, const char* file, int line) {
        auto q = static_cast<const uint8_t*>(p);
        for (const auto& r : regions_) {
            if (r.straddle.empty() || q < r.base || q >= r.base + r.bytes + r.slack) continue;
            if (q + bytes <= r.base + r.bytes) return;
            failf("ub-overflow", file, line, "%s touches bytes [%llu, %llu) of an on-chip memory of %llu B, past its end: %s",
                  api, (unsigned long long)(q - r.base), (unsigned long long)(q - r.base + bytes),
                  (unsigned long long)r.bytes, r.straddle.c_str());
        }
    }
    Region* region_of(const void* p) {
        auto q = static_cast<const uint8_t*>(p);
        for (auto& r : regions_)
            if (q >= r.base && q < r.base + r.bytes) return &r;
        return nullptr;
    }
    uint16_t site_of(Pipe pipe, const char* api, const char* file, int line) {
        auto key = std::make_tuple(static_cast<int>(pipe), api, file, line);
        auto it = site_ids_.find(key);
        if (it != site_ids_.end()) return it->second;
        if (sites_.size() >= kNoSite) return static_cast<uint16_t>(kNoSite - 1);  // table full: merge sites
        sites_.push_back(Site{pipe, api, file, line});
        uint16_t id = static_cast<uint16_t>(sites_.size() - 1);
        site_ids_.emplace(key, id);
        return id;
    }

    [[noreturn]] void hazard(Pipe reader, const char* api, const Site& w, const Region* r, uint64_t at,
                             const char* file, int line) {
        uint64_t lo = at, hi = at;
        while (lo > 0 && r->seq[lo - 1] == r->seq[at]) --lo;
        while (hi < r->bytes && r->seq[hi] == r->seq[at]) ++hi;
        const char* src = pipe_short(w.pipe);
        const char* dst = pipe_short(reader);
        failf("pipe-hazard", file, line,
              "%s on %s reads on-chip bytes [%llu, %llu) that %s on %s (line %d) wrote, with nothing ordering %s "
              "before %s in between: on the NPU the pipes run concurrently, so this can read stale data; add "
              "SetFlag<HardEvent::%s_%s>(id) after line %d and WaitFlag<HardEvent::%s_%s>(id) before this call "
              "(or pass the tensor through a queue: EnQue/DeQue)",
              api, pipe_name(reader), (unsigned long long)lo, (unsigned long long)hi, w.api, pipe_name(w.pipe), w.line,
              pipe_name(w.pipe), pipe_name(reader), src, dst, w.line, src, dst);
    }

    [[noreturn]] void war_hazard(Pipe writer, const char* api, const Site& rd, const Region* r, size_t rp, uint64_t at,
                                 const char* file, int line) {
        const std::vector<uint64_t>& rs = r->rseq[rp];
        uint64_t lo = at, hi = at;
        while (lo > 0 && rs[lo - 1] == rs[at]) --lo;
        while (hi < r->bytes && rs[hi] == rs[at]) ++hi;
        const char* src = pipe_short(rd.pipe);
        const char* dst = pipe_short(writer);
        failf("pipe-hazard", file, line,
              "%s on %s overwrites on-chip bytes [%llu, %llu) that %s on %s (line %d) reads, with nothing ordering "
              "that read before this write: on the NPU the pipes run concurrently and the read can see the new data; "
              "add SetFlag<HardEvent::%s_%s>(id) after line %d and WaitFlag<HardEvent::%s_%s>(id) before this call "
              "(or use a queue: FreeTensor/AllocTensor order the buffer's reuse)",
              api, pipe_name(writer), (unsigned long long)lo, (unsigned long long)hi, rd.api, pipe_name(rd.pipe),
              rd.line, src, dst, rd.line, src, dst);
    }

    static constexpr uint16_t kNoSite = 0xFFFF;
    bool any_straddle_ = false;
    std::vector<Region> regions_;
    std::vector<Write> pending_writes_;
    std::vector<Site> sites_;
    std::map<std::tuple<int, const char*, const char*, int>, uint16_t> site_ids_;  // string literals: by address
    std::map<std::tuple<int, int, int32_t>, std::deque<Clock>> pending_;
    std::array<Clock, kPipes> clock_{};
    uint64_t seq_ = 0;
    uint64_t cur_seq_ = 0;
    uint16_t cur_site_ = kNoSite;
};

// One model per block (each block runs on its own thread).
inline PipeModel& pipe_model() {
    static thread_local PipeModel m;
    return m;
}

inline bool byte_written(const uint8_t* p) { return pipe_model().written(p); }

}  // namespace kernelgen
