// kernelgen emulator runtime core: chip parameters, GM allocation registry, failure records,
// per-block counters, the run report, and the cooperative block scheduler.
//
// Written from documented AscendC behaviour (ASCENDC_SPEC.md), not from vendor headers.
// Device-side headers (kernel_operator.h) and the harness (harness/harness_main.cpp) both build
// on this file; it is the one place that knows how a run is recorded.
#pragma once

#include <unistd.h>

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace kernelgen {

// ---------------------------------------------------------------- chip
struct ChipInfo {
    std::string name = "ascend910b2";
    uint32_t soc_version = 2201;
    uint32_t cce_aicore = 220;
    uint64_t ub_bytes = 196608;
    uint64_t ub_safe_bytes = 188416;
    uint64_t l1_bytes = 524288;
    uint64_t l0a_bytes = 65536;
    uint64_t l0b_bytes = 65536;
    uint64_t l0c_bytes = 131072;
    uint32_t cube_cores = 24;
    uint32_t vector_cores = 48;
    bool split_cores = true;
    uint32_t max_tensors_per_position = 8;
    bool has_datacopypad = true;
    bool has_bf16 = true;
};

inline ChipInfo& chip() {
    static ChipInfo c;
    return c;
}

// ---------------------------------------------------------------- JSON text helpers
inline std::string json_escape(const std::string& s) {
    std::string out;
    out.reserve(s.size() + 2);
    for (char ch : s) {
        switch (ch) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            case '\r': out += "\\r"; break;
            default:
                if (static_cast<unsigned char>(ch) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", ch);
                    out += buf;
                } else {
                    out += ch;
                }
        }
    }
    return out;
}

// ---------------------------------------------------------------- counters
struct CoreCounters {
    uint64_t gm_to_ub_bytes = 0;
    uint64_t ub_to_gm_bytes = 0;
    uint64_t ub_to_ub_bytes = 0;
    uint64_t scalar_accesses = 0;
    std::map<std::string, uint64_t> vector_repeats;  // by API name

    std::string to_json(int block) const {
        std::ostringstream o;
        o << "{\"block\":" << block << ",\"gm_to_ub_bytes\":" << gm_to_ub_bytes
          << ",\"ub_to_gm_bytes\":" << ub_to_gm_bytes << ",\"ub_to_ub_bytes\":" << ub_to_ub_bytes
          << ",\"scalar_accesses\":" << scalar_accesses << ",\"vector_repeats\":{";
        bool first = true;
        for (const auto& [api, n] : vector_repeats) {
            o << (first ? "" : ",") << "\"" << json_escape(api) << "\":" << n;
            first = false;
        }
        o << "}}";
        return o.str();
    }
};

// ---------------------------------------------------------------- run state
struct ErrorRecord {
    std::string code;
    std::string message;
    std::string file;
    int line = 0;
    int block = -1;
};

struct RunState {
    std::string report_path;
    std::vector<CoreCounters> counters;               // one per block of the current launch
    std::vector<ErrorRecord> errors;
    std::vector<std::pair<std::string, std::string>> fields;  // extra report fields: name, raw JSON
    uint32_t block_dim = 0;
};

inline RunState& state() {
    static RunState s;
    return s;
}

inline thread_local int t_block_idx = -1;

inline int current_block() { return t_block_idx; }

inline CoreCounters& counters() {
    static CoreCounters outside;  // calls made outside any launch (host code, tests)
    auto& s = state();
    int b = t_block_idx;
    if (b < 0 || static_cast<size_t>(b) >= s.counters.size()) return outside;
    return s.counters[static_cast<size_t>(b)];
}

inline void report_set_field(const std::string& name, const std::string& raw_json) {
    for (auto& f : state().fields) {
        if (f.first == name) {
            f.second = raw_json;
            return;
        }
    }
    state().fields.emplace_back(name, raw_json);
}

inline std::string report_json(const char* status) {
    const auto& s = state();
    std::ostringstream o;
    o << "{\"status\":\"" << status << "\",\"block_dim\":" << s.block_dim << ",\"chip\":\""
      << json_escape(chip().name) << "\"";
    for (const auto& [name, raw] : s.fields) o << ",\"" << json_escape(name) << "\":" << raw;
    o << ",\"errors\":[";
    for (size_t i = 0; i < s.errors.size(); ++i) {
        const auto& e = s.errors[i];
        o << (i ? "," : "") << "{\"code\":\"" << json_escape(e.code) << "\",\"message\":\""
          << json_escape(e.message) << "\",\"file\":\"" << json_escape(e.file)
          << "\",\"line\":" << e.line << ",\"block\":" << e.block << "}";
    }
    o << "],\"counters\":{\"per_block\":[";
    CoreCounters total;
    for (size_t b = 0; b < s.counters.size(); ++b) {
        const auto& c = s.counters[b];
        o << (b ? "," : "") << c.to_json(static_cast<int>(b));
        total.gm_to_ub_bytes += c.gm_to_ub_bytes;
        total.ub_to_gm_bytes += c.ub_to_gm_bytes;
        total.ub_to_ub_bytes += c.ub_to_ub_bytes;
        total.scalar_accesses += c.scalar_accesses;
        for (const auto& [api, n] : c.vector_repeats) total.vector_repeats[api] += n;
    }
    o << "],\"total\":" << total.to_json(-1) << "}}";
    return o.str();
}

// Writes the report atomically enough for the runner: a complete file or none.
inline void write_report(const char* status) {
    const auto& path = state().report_path;
    if (path.empty()) return;
    std::string tmp = path + ".tmp";
    FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) return;
    std::string text = report_json(status);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    std::rename(tmp.c_str(), path.c_str());
}

// Exit code of a run stopped by a rule failure (the runner maps it to the report's errors).
constexpr int kRuleFailureExit = 3;

// Stops the run with a record: rule code, message, source location of the offending call,
// block index. Only one block runs at a time (see launch), so this is race-free.
[[noreturn]] inline void fail(const char* code, const std::string& message, const char* file,
                              int line) {
    auto& s = state();
    s.errors.push_back(ErrorRecord{code, message, file ? file : "", line, t_block_idx});
    std::fprintf(stderr, "[ERROR][Block_%d][%s:%d] %s [%s]\n", t_block_idx, file ? file : "?", line,
                 message.c_str(), code);
    std::fflush(stderr);
    write_report("error");
    std::fflush(nullptr);
    _exit(kRuleFailureExit);
}

// ---------------------------------------------------------------- GM allocation registry
struct GmAllocation {
    const uint8_t* base;
    uint64_t bytes;
    std::string name;
};

inline std::vector<GmAllocation>& gm_allocations() {
    static std::vector<GmAllocation> v;
    return v;
}

inline void gm_register(const void* base, uint64_t bytes, std::string name) {
    gm_allocations().push_back({static_cast<const uint8_t*>(base), bytes, std::move(name)});
}

inline void gm_clear() { gm_allocations().clear(); }

// The registered allocation containing `p`, or nullptr (pointer not from the harness: host
// tests, or a kernel computing a wild address).
inline const GmAllocation* gm_find(const void* p) {
    auto q = static_cast<const uint8_t*>(p);
    for (const auto& a : gm_allocations()) {
        if (q >= a.base && q < a.base + (a.bytes ? a.bytes : 1)) return &a;
    }
    return nullptr;
}

// ---------------------------------------------------------------- kernel registry
using KernelEntry = void (*)(uint8_t** args);

struct KernelInfo {
    std::string name;
    KernelEntry entry = nullptr;
    int arity = 0;
};

inline std::vector<KernelInfo>& kernels() {
    static std::vector<KernelInfo> v;
    return v;
}

// Called from the wrapper translation unit that the toolchain generates around op_kernel/<op>.cpp.
inline bool register_kernel(const char* name, KernelEntry entry, int arity) {
    kernels().push_back({name, entry, arity});
    return true;
}

// ---------------------------------------------------------------- cooperative block scheduler
//
// Each block runs on its own thread, but only one thread runs at a time, in block order, and
// control passes only when a block returns or waits in SyncAll. Runs are therefore
// deterministic and free of data races inside the emulator, and cross-core barriers work.
class Scheduler {
  public:
    void run(uint32_t block_dim, const std::function<void()>& body) {
        n_ = block_dim;
        token_ = 0;
        arrived_ = 0;
        generation_ = 0;
        finished_.assign(n_, false);
        waiting_.assign(n_, false);
        std::vector<std::thread> threads;
        threads.reserve(n_);
        for (uint32_t b = 0; b < n_; ++b) {
            threads.emplace_back([this, b, &body] {
                t_block_idx = static_cast<int>(b);
                {
                    std::unique_lock<std::mutex> lk(m_);
                    cv_.wait(lk, [&] { return token_ == b; });
                }
                body();
                std::unique_lock<std::mutex> lk(m_);
                finished_[b] = true;
                check_barrier_deadlock(lk);
                pass_token(b);
            });
        }
        for (auto& t : threads) t.join();
        t_block_idx = -1;
    }

    // All blocks of the launch meet here (AscendC SyncAll).
    void sync_all(const char* file, int line) {
        std::unique_lock<std::mutex> lk(m_);
        uint32_t b = static_cast<uint32_t>(t_block_idx);
        if (t_block_idx < 0 || b >= n_) return;  // outside a launch: nothing to wait for
        uint64_t gen = generation_;
        waiting_[b] = true;
        ++arrived_;
        sync_file_ = file;
        sync_line_ = line;
        if (arrived_ == live()) {
            release_barrier();
        } else {
            check_barrier_deadlock(lk);
        }
        pass_token(b);
        cv_.wait(lk, [&] { return token_ == b && generation_ != gen; });
    }

  private:
    uint32_t live() const {
        uint32_t k = 0;
        for (uint32_t i = 0; i < n_; ++i) k += finished_[i] ? 0 : 1;
        return k;
    }
    void release_barrier() {
        arrived_ = 0;
        ++generation_;
        waiting_.assign(n_, false);
    }
    // A block that returned never reaches the barrier: on the NPU the others hang forever.
    void check_barrier_deadlock(std::unique_lock<std::mutex>&) {
        if (arrived_ == 0) return;
        for (uint32_t i = 0; i < n_; ++i) {
            if (finished_[i]) {
                std::ostringstream msg;
                msg << "SyncAll waits for all " << n_ << " blocks, but block " << i
                    << " returned without reaching it: the kernel would hang on the NPU";
                fail("timeout", msg.str(), sync_file_, sync_line_);
            }
        }
    }
    // Hands control to the next unfinished block after `b` (cyclically).
    void pass_token(uint32_t b) {
        for (uint32_t k = 1; k <= n_; ++k) {
            uint32_t nb = (b + k) % n_;
            if (!finished_[nb]) {
                token_ = nb;
                cv_.notify_all();
                return;
            }
        }
        token_ = n_;  // everyone finished
        cv_.notify_all();
    }

    std::mutex m_;
    std::condition_variable cv_;
    uint32_t n_ = 0;
    uint32_t token_ = 0;
    uint32_t arrived_ = 0;
    uint64_t generation_ = 0;
    std::vector<bool> finished_;
    std::vector<bool> waiting_;
    const char* sync_file_ = "";
    int sync_line_ = 0;
};

inline Scheduler& scheduler() {
    static Scheduler s;
    return s;
}

// Hooks the device side registers to run at the start and end of every block (e.g. leak
// checks of queues and the single-TPipe rule); called on the block's own thread.
inline std::vector<std::function<void()>>& block_end_hooks() {
    static std::vector<std::function<void()>> v;
    return v;
}

// Runs `body` once per block (GetBlockIdx() in [0, block_dim)), blocks in order.
inline void launch(uint32_t block_dim, const std::function<void()>& body) {
    auto& s = state();
    s.block_dim = block_dim;
    s.counters.assign(block_dim, CoreCounters{});
    scheduler().run(block_dim, [&body] {
        body();
        for (auto& hook : block_end_hooks()) hook();
    });
}

inline uint32_t block_num() { return state().block_dim ? state().block_dim : 1; }

// Tiling key the host TilingFunc chose (TILING_KEY_IS); set by the harness before launch.
inline uint64_t& tiling_key() {
    static uint64_t k = 0;
    return k;
}

// ---------------------------------------------------------------- workspace
// Size of the system part of the workspace: GetUserWorkspace(w) is w + this. The host side's
// GetLibApiWorkSpaceSize returns the same number, so the harness allocates
// kSysWorkspaceBytes + the user sizes the TilingFunc asked for.
constexpr uint64_t kSysWorkspaceBytes = 16u * 1024u * 1024u;

// Base of the workspace of the current launch (GetSysWorkSpacePtr); the harness sets it, and
// AscendC::SetSysWorkspace does too.
inline uint8_t*& sys_workspace() {
    static uint8_t* p = nullptr;
    return p;
}

}  // namespace kernelgen
