// Bytes of a buffer that a write past another LocalTensor overwrote. The NPU checks no
// LocalTensor length, so such a write lands in whatever buffer follows; the kernel survives it
// when those bytes are dead: never written before (nothing was destroyed: DrivingSDK
// scatter_add_grad Casts 128 floats into a 104-float tensor, into mask bytes it later reads but
// never uses), or written again (or their buffer handed out again by AllocTensor) before anything
// reads them. A read first of bytes that held the kernel's data proves the overflow destroyed
// data it still uses: that is the error, reported at the overflowing write with the read named.
//
// Accesses arrive as the pipe model's (one call site's consecutive accesses are one
// instruction, whose reads see what came before it): an instruction's reads are checked as they
// come, its writes and overflows take effect in their order once the next instruction starts.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "device.h"

namespace kernelgen {

// Whether the kernel wrote the byte at `p` since its buffer was last handed out (pipe_model.h;
// true where that is not tracked).
inline bool byte_written(const uint8_t* p);

class Clobbers {
  public:
    // A write at file:line, described by `what`, overwrites [from, to) past its buffer.
    void overflow(const uint8_t* from, const uint8_t* to, const std::string& what, const char* file, int line) {
        next_instruction(file, line);
        if (writers_.empty() || !same_site(writers_.back(), file, line) || writers_.back().what != what)
            writers_.push_back(Writer{what, file, line});  // a loop's overflows share one record
        events_.push_back(Event{Range{from, to, writers_.size() - 1}, true});
    }

    // An instruction at file:line reads or writes `bytes` bytes at `p`.
    void access(const void* p, uint64_t bytes, bool write, const char* api, const char* file, int line) {
        if (live_.empty() && events_.empty()) return;
        next_instruction(file, line);
        const auto* b = static_cast<const uint8_t*>(p);
        if (write)
            events_.push_back(Event{Range{b, b + bytes, 0}, false});
        else
            check_read(b, b + bytes, api, file, line);
    }

    // A buffer handed out again (AllocTensor) or an arena torn down: its old bytes are garbage
    // to the new owner, clobbered or not.
    void forget(const void* p, uint64_t bytes) {
        retire();
        erase(live_, static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + bytes);
    }

  private:
    struct Range {
        const uint8_t* b;
        const uint8_t* e;
        size_t who;  // index into writers_
    };
    struct Event {
        Range r;
        bool overflow;  // else a write
    };
    struct Writer {
        std::string what;
        const char* file;
        int line;
    };

    static bool same_site(const Writer& w, const char* file, int line) {
        return w.line == line && std::strcmp(w.file, file) == 0;
    }
    void next_instruction(const char* file, int line) {
        if (!events_.empty() && (line != line_ || std::strcmp(file, file_) != 0)) retire();
        file_ = file;
        line_ = line;
    }
    // The finished instruction's writes and overflows, in order. An overflow's first write is
    // its own (the call that overflowed writes those bytes); every later write erases it.
    void retire() {
        std::vector<Range> fresh;  // overflows still waiting for their own write
        std::vector<Range> done;   // overflows of this instruction whose own write has been seen
        for (const Event& ev : events_) {
            if (ev.overflow) {
                fresh.push_back(ev.r);
                continue;
            }
            erase(live_, ev.r.b, ev.r.e);
            erase(done, ev.r.b, ev.r.e);
            done.insert(done.end(), fresh.begin(), fresh.end());
            fresh.clear();
        }
        for (const Range& r : done) add_written(r);
        for (const Range& r : fresh) add_written(r);
        events_.clear();
    }
    // The parts of an overflow that overwrote bytes the kernel had written (the instruction's own
    // writes are not yet recorded when it retires).
    void add_written(const Range& r) {
        const uint8_t* run = nullptr;
        for (const uint8_t* p = r.b; p < r.e; ++p) {
            const bool live = byte_written(p);
            if (live && !run) run = p;
            if (!live && run) {
                add(Range{run, p, r.who});
                run = nullptr;
            }
        }
        if (run) add(Range{run, r.e, r.who});
    }
    void add(const Range& p) {
        for (const Range& r : live_)
            if (r.b == p.b && r.e == p.e && r.who == p.who) return;  // the same bytes overflowed again (a loop)
        live_.push_back(p);
    }
    // Bytes written again: no longer the overflow's.
    static void erase(std::vector<Range>& ranges, const uint8_t* b, const uint8_t* e) {
        std::vector<Range> kept;
        for (const Range& r : ranges) {
            if (r.e <= b || r.b >= e) {
                kept.push_back(r);
                continue;
            }
            if (r.b < b) kept.push_back(Range{r.b, b, r.who});
            if (r.e > e) kept.push_back(Range{e, r.e, r.who});
        }
        ranges.swap(kept);
    }
    void check_read(const uint8_t* b, const uint8_t* e, const char* api, const char* file, int line) const {
        for (const Range& r : live_) {
            if (r.e <= b || r.b >= e) continue;
            const Writer& w = writers_[r.who];
            failf("count-exceeds-tensor", w.file, w.line,
                  "%s; the elements past its buffer overwrote bytes of another buffer that %s at %s:%d then reads "
                  "before anything writes them again: the overflow destroys data the kernel still uses (the NPU "
                  "checks no LocalTensor length)",
                  w.what.c_str(), api, file, line);
        }
    }

    std::vector<Range> live_;
    std::vector<Event> events_;  // the current instruction's
    std::vector<Writer> writers_;
    const char* file_ = "";
    int line_ = 0;
};

// One ledger per block (each block runs on its own thread and has its own UB).
inline Clobbers& clobbers() {
    static thread_local Clobbers c;
    return c;
}

}  // namespace kernelgen

// Defines what this header declares and uses inline (it includes this header first).
#include "pipe_model.h"
