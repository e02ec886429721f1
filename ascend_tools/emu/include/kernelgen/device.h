// Per-block device state (vector mask, atomic mode, core type, the live TPipe) and the small
// check helpers every API uses to report a broken rule with the numbers involved.
#pragma once

#include <cstdarg>
#include <cstdio>

#include "types.h"

// Trailing parameters of every device API: the user's call site, for failure records.
#define KG_LOC const char *file = __builtin_FILE(), int line = __builtin_LINE()

namespace kernelgen {

struct BlockState {
    bool mask_counter = false;       // SetMaskCount / SetMaskNorm
    uint64_t mask_hi = ~uint64_t(0);  // SetVectorMask, normal mode: bits; counter mode: lo = count
    uint64_t mask_lo = ~uint64_t(0);
    AtomicMode atomic = AtomicMode::NONE;
    void* live_pipe = nullptr;       // the TPipe alive in this block (single-tpipe rule)
    const char* live_pipe_file = "";
    int live_pipe_line = 0;
    uint8_t cmpmask[32] = {};        // CMPMASK register (Compare without dst, Select mode 0)
};

// Each block runs on its own thread (runtime.h Scheduler), so block state is thread-local.
inline BlockState& block() {
    static thread_local BlockState s;
    return s;
}

[[noreturn]] inline void failf(const char* code, const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));

[[noreturn]] inline void failf(const char* code, const char* file, int line, const char* fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fail(code, buf, file, line);
}

// printf-style formatting into a string (messages of warnings, which go on running).
inline std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
inline std::string format(const char* fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}

inline uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
inline uint64_t align_up(uint64_t a, uint64_t b) { return ceil_div(a, b) * b; }

inline void count_repeats(const char* api, uint64_t n) { counters().vector_repeats[api] += n; }

// Continuous form: one repeat per started 256 bytes.
inline void count_bytes_as_repeats(const char* api, uint64_t bytes) {
    count_repeats(api, ceil_div(bytes, 256));
}

inline void check_count_nonneg(const char* api, int64_t count, const char* file, int line) {
    if (count < 0) failf("param-range", file, line, "%s: count is %lld, must be >= 0", api, (long long)count);
}

inline void check_repeat(const char* api, int64_t repeat, const char* file, int line) {
    if (repeat < 0 || repeat > 255)
        failf("repeat-range", file, line, "%s: repeatTimes is %lld, must be in [0, 255] (uint8 wraps on the NPU)",
              api, (long long)repeat);
}

}  // namespace kernelgen
