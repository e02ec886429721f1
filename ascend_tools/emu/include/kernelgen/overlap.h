// Source/destination overlap of one vector instruction (`operand-overlap`), checked where every
// vector API already passes its operands: `check_vec_operand` (tensor.h) hands each operand's UB
// byte range here, so an API is covered as soon as it checks its operands, with no per-API code.
//
// The rule (general constraints of the basic API, docs/ASCENDC_SPEC.md "Address overlap"): a
// source may share UB with a destination of the same instruction only completely, which for
// operands of different lengths (a reduction's one-element result, Brcb's eight sources per 256
// bytes) is read as "starting at the same address" (an in-place call); any other overlap reads
// elements the instruction already overwrote, in an order the hardware does not define.
//
// One call is the run of operands a single API call checks: a new call starts when the API or
// the call site changes, or when a role comes round again (a loop calling the same API at one
// line checks `dst` once per call). An operand whose range is unknown when it is checked (length
// 0) is not recorded. The elementwise engines' mask/repeat forms check the exact 32-byte blocks
// each repeat touches (vec_core.h `check_mask_overlap`) and hold an `OverlapCheckedByEngine`
// while they check their operands, since their strided extents here would be hulls.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "device.h"

namespace kernelgen {

class OperandFrame {
  public:
    // Operand `role` of `api` at file:line covers UB bytes [p, p + bytes) (`ub` is its offset in
    // the arena, for the message); `write` for destinations and scratch buffers.
    void add(const char* api, const char* role, const void* p, uint64_t bytes, bool write, uint64_t ub,
             const char* file, int line) {
        if (engine_checked_ > 0 || !enabled()) return;
        if (!same_call(api, role, file, line)) {
            ops_.clear();
            api_ = api;
            file_ = file;
            line_ = line;
        }
        const auto lo = reinterpret_cast<uintptr_t>(p);
        Use u{role, lo, lo + bytes, ub, write};
        if (bytes != 0)
            for (const Use& e : ops_) {
                if (e.write == write || e.hi <= u.lo || u.hi <= e.lo || e.lo == u.lo) continue;
                const Use& d = write ? u : e;
                const Use& s = write ? e : u;
                failf("operand-overlap", file, line,
                      "%s: %s (UB bytes [%llu, %llu)) and %s (UB bytes [%llu, %llu)) overlap partially; a source may "
                      "share UB with a destination only completely (the same start: an in-place call)",
                      api, d.role, (unsigned long long)d.ub, (unsigned long long)(d.ub + (d.hi - d.lo)), s.role,
                      (unsigned long long)s.ub, (unsigned long long)(s.ub + (s.hi - s.lo)));
            }
        ops_.push_back(u);
    }

    void engine_enter() { ++engine_checked_; }
    void engine_leave() { --engine_checked_; }

    // KERNELGEN_NO_OPERAND_OVERLAP=1 turns this check off (the engines' own checks stay).
    static bool enabled() {
        static const bool on = !env_switch("KERNELGEN_NO_OPERAND_OVERLAP");
        return on;
    }

  private:
    struct Use {
        const char* role;
        uintptr_t lo, hi;
        uint64_t ub;
        bool write;
    };
    bool same_call(const char* api, const char* role, const char* file, int line) const {
        if (ops_.empty() || line != line_ || std::strcmp(api, api_) != 0 || std::strcmp(file, file_) != 0) return false;
        for (const Use& e : ops_)
            if (std::strcmp(e.role, role) == 0) return false;
        return true;
    }

    std::vector<Use> ops_;
    const char* api_ = "";
    const char* file_ = "";
    int line_ = 0;
    int engine_checked_ = 0;
};

inline OperandFrame& operand_frame() {
    static thread_local OperandFrame f;
    return f;
}

// Held by an engine that checks overlap itself, exactly, for the operands it checks meanwhile.
struct OverlapCheckedByEngine {
    OverlapCheckedByEngine() { operand_frame().engine_enter(); }
    ~OverlapCheckedByEngine() { operand_frame().engine_leave(); }
    OverlapCheckedByEngine(const OverlapCheckedByEngine&) = delete;
    OverlapCheckedByEngine& operator=(const OverlapCheckedByEngine&) = delete;
};

}  // namespace kernelgen
