// kernelgen emulator runtime core: chip parameters, GM allocation registry, failure records,
// per-block counters, the run report, and the cooperative block scheduler.
//
// Written from documented AscendC behaviour (docs/ASCENDC_SPEC.md), not from vendor headers.
// Device-side headers (kernel_operator.h) and the harness (harness/harness_main.cpp) both build
// on this file; it is the one place that knows how a run is recorded.
#pragma once

#include <memory>

#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace kernelgen {

// ---------------------------------------------------------------- environment switches
// A switch is set when its variable is non-empty and does not start with '0'
// (KERNELGEN_NO_GM_RACE=1 turns the GM race model off; unset, "" or "0" leave it on).
inline bool env_switch(const char* name) {
    const char* v = std::getenv(name);
    return v && *v && *v != '0';
}
// Whether the variable `name` holds exactly `value`.
inline bool env_equals(const char* name, const char* value) {
    const char* v = std::getenv(name);
    return v && std::strcmp(v, value) == 0;
}

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
    // A buffer TPipe places past an on-chip memory's end is addressed modulo its size (chips.json).
    bool local_address_wrap = false;
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
    uint64_t sync_alls = 0;                          // SyncAll barriers this core passed
    // Cube work (Matmul API and Mmad): multiply-accumulates with 16-bit (or 8-bit) and with
    // float inputs, operand bytes read from GM into L1 (each base block's A and B panels; DataCopy
    // GM -> A1/B1), moved from L1 into L0A/L0B (LoadData, MTE1), and result bytes written from
    // L0C to GM (Fixpipe).
    uint64_t cube_macs = 0;
    uint64_t cube_macs_fp32 = 0;
    uint64_t gm_to_l1_bytes = 0;
    uint64_t l1_to_l0_bytes = 0;
    uint64_t l0c_to_gm_bytes = 0;
    std::map<std::string, uint64_t> vector_repeats;  // by API name

    std::string to_json(int block) const {
        std::ostringstream o;
        o << "{\"block\":" << block << ",\"gm_to_ub_bytes\":" << gm_to_ub_bytes
          << ",\"ub_to_gm_bytes\":" << ub_to_gm_bytes << ",\"ub_to_ub_bytes\":" << ub_to_ub_bytes
          << ",\"scalar_accesses\":" << scalar_accesses << ",\"sync_alls\":" << sync_alls
          << ",\"cube_macs\":" << cube_macs << ",\"cube_macs_fp32\":" << cube_macs_fp32
          << ",\"gm_to_l1_bytes\":" << gm_to_l1_bytes << ",\"l1_to_l0_bytes\":" << l1_to_l0_bytes
          << ",\"l0c_to_gm_bytes\":" << l0c_to_gm_bytes
          << ",\"vector_repeats\":{";
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
    std::vector<ErrorRecord> warnings;                // findings that do not stop the run
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
    for (const auto* list : {&s.errors, &s.warnings}) {
        o << (list == &s.errors ? ",\"errors\":[" : "],\"warnings\":[");
        for (size_t i = 0; i < list->size(); ++i) {
            const auto& e = (*list)[i];
            o << (i ? "," : "") << "{\"code\":\"" << json_escape(e.code) << "\",\"message\":\""
              << json_escape(e.message) << "\",\"file\":\"" << json_escape(e.file)
              << "\",\"line\":" << e.line << ",\"block\":" << e.block << "}";
        }
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
        total.sync_alls += c.sync_alls;
        total.cube_macs += c.cube_macs;
        total.cube_macs_fp32 += c.cube_macs_fp32;
        total.gm_to_l1_bytes += c.gm_to_l1_bytes;
        total.l1_to_l0_bytes += c.l1_to_l0_bytes;
        total.l0c_to_gm_bytes += c.l0c_to_gm_bytes;
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

// Records a finding that does not stop the run (the report's `warnings`), once per rule and
// call site: a loop repeating it adds nothing. file "" for run-level warnings (the harness).
inline void warn(const char* code, const std::string& message, const char* file, int line) {
    auto& s = state();
    std::string where = file ? file : "";
    for (const auto& w : s.warnings)
        if (w.code == code && w.file == where && w.line == line && (!where.empty() || w.message == message)) return;
    s.warnings.push_back(ErrorRecord{code, message, where, line, t_block_idx});
    if (where.empty())
        std::fprintf(stderr, "[WARNING] %s [%s]\n", message.c_str(), code);
    else
        std::fprintf(stderr, "[WARNING][Block_%d][%s:%d] %s [%s]\n", t_block_idx, where.c_str(), line,
                     message.c_str(), code);
}

// ---------------------------------------------------------------- GM allocation registry
// A tensor of `bytes` in an allocation of `block` bytes (the framework's allocator rounds sizes
// up: chips.json gm_allocation), carved out of a `segment` of device memory the allocator holds
// (torch_npu's caching allocator packs small blocks into 2 MiB segments and mid-sized ones into
// 20 MiB: chips.json gm_allocation.segment). Past `bytes` but inside `block` is memory the kernel
// was given, so an access there runs on the device (a `gm-extent` warning). A read past `block`
// but inside `segment` lands on mapped memory that holds whatever is there (another tensor, or
// nothing): it does not fault, so it is a `gm-read-past-allocation` warning, and the harness
// fills those bytes with poison. A write there corrupts what lives there: `gm-out-of-bounds`, as
// is any access past `segment`.
struct GmAllocation {
    const uint8_t* base;
    uint64_t bytes;
    std::string name;
    uint64_t block;
    uint64_t segment;
};

inline std::vector<GmAllocation>& gm_allocations() {
    static std::vector<GmAllocation> v;
    return v;
}

// `block` 0: no padding known (a test's own buffer); reads may still touch the tensor's last
// 32-byte block (gm_readable). `segment` 0: nothing readable past the block. The caller owns
// `segment` bytes (at least `block`) from `base`.
inline void gm_register(const void* base, uint64_t bytes, std::string name, uint64_t block = 0, uint64_t segment = 0) {
    block = std::max<uint64_t>(block, bytes);
    segment = std::max<uint64_t>(segment, block);
    gm_allocations().push_back({static_cast<const uint8_t*>(base), bytes, std::move(name), block, segment});
}

inline void gm_clear() { gm_allocations().clear(); }

// Bytes from the allocation's base that an access may reach without a fault: for writes its
// block; for reads its segment, and at least the tensor's last whole 32-byte block (DataCopy
// moves whole blocks; the NPU allocator pads).
inline uint64_t gm_readable(const GmAllocation& a, bool write) {
    return write ? a.block : std::max<uint64_t>(a.segment, (a.bytes + 31) / 32 * 32);
}

// The registered allocation whose segment contains `p`, or nullptr (pointer not from the
// harness: host tests, or a kernel computing a wild address). Each allocation is backed by its
// own memory up to its segment, so segments never overlap.
inline const GmAllocation* gm_find(const void* p) {
    auto q = static_cast<const uint8_t*>(p);
    for (const auto& a : gm_allocations()) {
        if (q >= a.base && q < a.base + std::max<uint64_t>(a.segment, 1)) return &a;
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

// ---------------------------------------------------------------- core layout of a launch
//
// blockDim counts cores for vector-only and cube-only kernels and AI Core clusters (one AIC
// with one or two AIVs) for mix kernels. Core index c: [0, n) the AICs (or the only kind),
// then the AIVs; AIV k = c - n has GetBlockIdx() = k, GetSubBlockIdx() = k % ratio and belongs
// to cluster k / ratio.
enum class CoreLayout : uint8_t { AIV_ONLY, AIC_ONLY, MIX_1_1, MIX_1_2 };

inline const char* layout_name(CoreLayout l) {
    static const char* const names[] = {"vector-only", "cube-only", "mix 1:1", "mix 1:2"};
    return names[static_cast<int>(l)];
}
inline uint32_t aiv_ratio(CoreLayout l) {
    return l == CoreLayout::MIX_1_2 ? 2 : l == CoreLayout::MIX_1_1 ? 1 : 0;
}
inline bool is_mix(CoreLayout l) { return aiv_ratio(l) > 0; }
inline uint32_t core_count(CoreLayout l, uint32_t block_dim) { return block_dim * (1 + aiv_ratio(l)); }

struct CoreId {
    bool is_aic = false;
    uint32_t block_idx = 0;  // GetBlockIdx()
    uint32_t sub_idx = 0;    // GetSubBlockIdx()
    uint32_t cluster = 0;    // the AIC this core pairs with (mix kernels)
};

inline CoreId core_id(CoreLayout l, uint32_t n, uint32_t c) {
    if (l == CoreLayout::AIV_ONLY) return {false, c, 0, c};
    if (l == CoreLayout::AIC_ONLY || c < n) return {true, c, 0, c};
    uint32_t k = c - n, r = aiv_ratio(l);
    return {false, k, k % r, k / r};
}

inline thread_local CoreId t_core;

// What lives until the block returns (static_alloc.h's hidden pipe behind LocalTensors made at
// an address); each block runs on its own thread.
inline std::shared_ptr<void>& block_keep_alive() {
    static thread_local std::shared_ptr<void> keep;
    return keep;
}

// The layout a binary declares with __mix__(1, 2) / __mix__(1, 1) / __cube__ on its entry
// (types.h puts such functions in named sections; the linker defines their bounds).
extern "C" const char __start_kernelgen_mix_1_2[] __attribute__((weak));
extern "C" const char __start_kernelgen_mix_1_1[] __attribute__((weak));
extern "C" const char __start_kernelgen_cube[] __attribute__((weak));
// The layout of a kernel that declares none in its source but raises CrossCoreSetFlag in mode 2
// (between the AIC and the AIVs of one group): only a mix kernel has both, and the device
// compiler builds it as one, AIC:AIV 1:2 (Ascend/samples 6_group_matmul runs its own Matmul on
// the AIC and dequantises on the AIVs). The toolchain sets it (emulator.py wrapper_source).
inline CoreLayout& implicit_layout() {
    static CoreLayout l = CoreLayout::AIV_ONLY;
    return l;
}
inline CoreLayout declared_layout() {
    if (__start_kernelgen_mix_1_2) return CoreLayout::MIX_1_2;
    if (__start_kernelgen_mix_1_1) return CoreLayout::MIX_1_1;
    if (__start_kernelgen_cube) return CoreLayout::AIC_ONLY;
    return chip().split_cores ? implicit_layout() : CoreLayout::AIV_ONLY;
}

// Cores of the chip a layout runs on: mix and cube kernels need one AIC per block.
inline uint32_t cores_for(CoreLayout l) {
    return l == CoreLayout::AIV_ONLY ? chip().vector_cores : chip().cube_cores;
}

// ---------------------------------------------------------------- cross-core order of GM accesses
//
// Blocks run one at a time here, so a block that reads what another block writes always sees
// it; on the NPU they run concurrently. The model gives each core a vector clock: its tick
// advances at every SyncAll and CrossCoreSetFlag, a SyncAll joins the clocks of all cores at
// the barrier, a CrossCoreWaitFlag joins what the setters of that flag id knew (leniently: every
// setter of the id). Each GM write is kept as an interval with its writers (core and tick); a
// read or a write of bytes another core wrote that this core's clock does not cover is
// `gm-race`, unless both are atomic writes (SetAtomicAdd/Max/Min accumulate in any order), or
// the write stores exactly the bytes already there (every block zeroing one shared workspace,
// DrivingSDK pixel_group): whichever of two identical stores lands last, memory holds the same
// bytes, so that is a warning and the bytes keep both writers. A later write of other bytes by
// either, or a read by a third core ordered after neither, still races with the other.
// SetAtomicAdd / Max / Min: how a GM store combines with what is there (NONE: it replaces it).
enum class AtomicMode : uint8_t { NONE, ADD, MAX, MIN };

// GM bytes [lo, hi) a read takes that another core writes unordered with it (GmModel::access),
// and the accumulation those writers make there (NONE: a plain store). The read gets poison
// that cannot pass for a value the bytes may hold: below every value where the writers only
// raise it with AtomicMax (so a later AtomicMax of what was read leaves what the timing-
// independent maximum is, as on the NPU whichever value the read sees), above every value where
// they only lower it with AtomicMin, huge values of either sign otherwise.
struct RacingRead {
    uintptr_t lo, hi;
    AtomicMode writers;
};
using RacingReads = std::vector<RacingRead>;

class GmModel {
  public:
    void reset() {
        writes_.clear();
        clock_.clear();
        barrier_.clear();
        flags_.clear();
    }

    // `incoming`: the bytes a plain (non-atomic) store is about to write, when the caller has
    // them in one piece (or, with `period` > 0, `period` bytes repeated: a fill); it lets a store
    // of identical bytes pass as unobservable. `racing_reads`: where a read's caller takes the byte
    // ranges another core writes unordered with it (it hands the kernel poison there: on the NPU
    // the read may see the old bytes or the new, so a result that uses them is timing-dependent
    // and fails the comparison, while a kernel that drops them, reading whole 32-byte blocks
    // across its neighbour's part, passes), with a warning instead of the error.
    void access(int core, const void* p, uint64_t bytes, bool write, AtomicMode atomic, const char* api, const char* file,
                int line, const void* incoming = nullptr, uint64_t period = 0,
                RacingReads* racing_reads = nullptr) {
        if (core < 0 || bytes == 0 || !enabled()) return;
        auto lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
        std::vector<uint64_t>& known = clock(core);
        auto ordered = [&](const Writer& w) {
            return w.core == core ||
                   (static_cast<size_t>(w.core) < known.size() && known[static_cast<size_t>(w.core)] >= w.tick);
        };
        std::vector<uintptr_t> same;  // starts of the intervals this store rewrites with identical bytes
        const Writer* first_same = nullptr;
        auto it = writes_.upper_bound(lo);
        if (it != writes_.begin()) --it;
        for (; it != writes_.end() && it->first < hi; ++it) {
            const Write& w = it->second;
            if (w.end <= lo) continue;
            const Writer* racing = nullptr;
            bool any_ordered = false;
            for (const Writer& x : w.writers) {
                if (ordered(x)) any_ordered = true;
                else if (!racing) racing = &x;
            }
            if (!racing) continue;
            if (!write && any_ordered) continue;  // it sees an ordered writer's bytes, which all writers share
            if (write && atomic != AtomicMode::NONE && w.atomic != AtomicMode::NONE) continue;
            uintptr_t a = std::max(lo, it->first), b = std::min(hi, w.end);
            if (!write && racing_reads) {
                racing_reads->push_back({a, b, w.atomic});
                warn("gm-race",
                     describe(core, a, b, false, *racing, api) +
                         (w.atomic == AtomicMode::MAX
                              ? std::string(": the read may see the bytes before or after that AtomicMax, so the emulator "
                                            "hands it poison below every value there (the lowest value): a result "
                                            "that only goes back through AtomicMax passes, as it does on the NPU "
                                            "whichever value the read sees; one that uses them otherwise fails")
                              : std::string(": the read may see the old bytes or the new, so the emulator hands it "
                                            "poison there (huge values, or the largest integer); a result that uses "
                                            "them fails the comparison, one that drops them (lanes of a 32-byte block "
                                            "past this core's part) passes")),
                     file, line);
                continue;
            }
            if (write && atomic == AtomicMode::NONE && incoming && stores_same(incoming, period, a - lo, a, b - a)) {
                same.push_back(a);
                if (!first_same) first_same = racing;
                continue;
            }
            const char* hint = !write ? "; put a SyncAll between the writing and the reading phase"
                               : (atomic != AtomicMode::NONE) != (w.atomic != AtomicMode::NONE)
                                   ? "; a plain store and an atomic accumulation of the same bytes need a SyncAll "
                                     "between them, or the store may land after the accumulation and wipe it out "
                                     "(initialise, SyncAll, then accumulate)"
                                   : "; accumulate from several blocks with SetAtomicAdd, or separate the phases "
                                     "with SyncAll";
            fail("gm-race", describe(core, a, b, write, *racing, api) + " and the result depends on their timing" + hint,
                 file, line);
        }
        if (!write) return;
        Writer me{core, known[static_cast<size_t>(core)], api, line};
        if (same.empty()) {
            put(lo, hi, Write{hi, atomic, {me}});
            return;
        }
        warn("gm-race",
             describe(core, lo, hi, true, *first_same, api) +
                 ", but it stores the very bytes already there: whichever store lands last, memory holds the same "
                 "bytes, so this is not observable (a store of other bytes there by either block, or a read by a "
                 "block ordered after neither, is still a race)",
             file, line);
        share(lo, hi, me, atomic, same);
    }

    // SyncAll: arrival (the core's state so far joins the barrier of its generation) and leave.
    void arrive(int core, uint64_t generation) {
        if (core < 0) return;
        join(barrier_[generation], tick(core));
    }
    void leave(int core, uint64_t generation) {
        if (core < 0) return;
        join(clock(core), barrier_[generation]);
    }
    void flag_set(int core, int flag) {
        if (core < 0) return;
        join(flags_[flag], tick(core));
    }
    void flag_wait(int core, int flag) {
        if (core < 0) return;
        join(clock(core), flags_[flag]);
    }

    static bool enabled() {
        static const bool on = !env_switch("KERNELGEN_NO_GM_RACE");
        return on;
    }

  private:
    struct Writer {
        int core;
        uint64_t tick;
        const char* api;
        int line;
    };
    struct Write {
        uintptr_t end;
        AtomicMode atomic;  // how its last store combined with what was there (NONE: replaced it)
        std::vector<Writer> writers;  // more than one only where they stored identical bytes
    };

    // Whether the bytes of `incoming` from offset `off` (a `period`-byte pattern when period > 0)
    // equal the n bytes memory holds at `at`.
    static bool stores_same(const void* incoming, uint64_t period, uint64_t off, uintptr_t at, uint64_t n) {
        const auto* in = static_cast<const uint8_t*>(incoming);
        const auto* mem = reinterpret_cast<const uint8_t*>(at);
        if (period == 0) return std::memcmp(in + off, mem, n) == 0;
        for (uint64_t i = 0; i < n; ++i)
            if (mem[i] != in[(off + i) % period]) return false;
        return true;
    }

    std::string describe(int core, uintptr_t a, uintptr_t b, bool write, const Writer& w, const char* api) const {
        const GmAllocation* g = gm_find(reinterpret_cast<const void*>(a));
        uintptr_t base = g ? reinterpret_cast<uintptr_t>(g->base) : a;
        std::ostringstream msg;
        msg << api << " on block " << core << (write ? " writes" : " reads") << " bytes [" << (a - base) << ", "
            << (b - base) << ") of GM buffer '" << (g ? g->name : std::string("?")) << "' that block " << w.core
            << " wrote with " << w.api << " at line " << w.line
            << ", with no SyncAll (or cross-core flag) between: on the NPU the blocks run concurrently";
        return msg.str();
    }

    std::vector<uint64_t>& clock(int core) {
        auto c = static_cast<size_t>(core);
        if (clock_.size() <= c) clock_.resize(c + 1);
        if (clock_[c].size() <= c) clock_[c].resize(c + 1, 0);
        if (clock_[c][c] == 0) clock_[c][c] = 1;  // ticks start at 1: a zero entry knows nothing
        return clock_[c];
    }
    // The core's clock as it leaves through a sync point (its writes so far included), then a
    // new tick for what follows.
    std::vector<uint64_t> tick(int core) {
        std::vector<uint64_t>& c = clock(core);
        std::vector<uint64_t> snap = c;
        ++c[static_cast<size_t>(core)];
        return snap;
    }
    static void join(std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
        if (a.size() < b.size()) a.resize(b.size(), 0);
        for (size_t i = 0; i < b.size(); ++i) a[i] = std::max(a[i], b[i]);
    }
    // Cuts the stored intervals at lo and hi; returns the pieces inside [lo, hi) (erased from
    // the map) with the gaps between them as pieces with no writers.
    std::vector<std::pair<uintptr_t, Write>> take(uintptr_t lo, uintptr_t hi, AtomicMode atomic) {
        auto it = writes_.upper_bound(lo);
        if (it != writes_.begin()) --it;
        std::vector<std::pair<uintptr_t, Write>> keep, inside;
        uintptr_t cursor = lo;
        while (it != writes_.end() && it->first < hi) {
            if (it->second.end <= lo) {
                ++it;
                continue;
            }
            Write old = it->second;
            uintptr_t start = it->first, a = std::max(lo, start), b = std::min(hi, old.end);
            if (start < lo) keep.push_back({start, Write{lo, old.atomic, old.writers}});
            if (old.end > hi) keep.push_back({hi, old});
            if (cursor < a) inside.push_back({cursor, Write{a, atomic, {}}});
            inside.push_back({a, Write{b, old.atomic, old.writers}});
            cursor = b;
            it = writes_.erase(it);
        }
        if (cursor < hi) inside.push_back({cursor, Write{hi, atomic, {}}});
        for (auto& k : keep) writes_[k.first] = k.second;
        return inside;
    }
    // Stores [lo, hi) as written by `w` alone; merges with an adjacent interval of the same sole
    // writer, tick and call site (a core's tiles stay one entry).
    void put(uintptr_t lo, uintptr_t hi, Write w) {
        take(lo, hi, w.atomic);
        auto prev = writes_.lower_bound(lo);
        if (prev != writes_.begin()) {
            --prev;
            const Write& q = prev->second;
            const Writer &x = q.writers.front(), &y = w.writers.front();
            if (q.end == lo && q.writers.size() == 1 && x.core == y.core && x.tick == y.tick &&
                q.atomic == w.atomic && x.line == y.line && x.api == y.api) {
                prev->second.end = hi;
                return;
            }
        }
        writes_[lo] = std::move(w);
    }
    // A store of identical bytes over the pieces of [lo, hi) starting at `same`: they keep their writers
    // and gain `me`; the rest of [lo, hi) is `me`'s alone.
    void share(uintptr_t lo, uintptr_t hi, const Writer& me, AtomicMode atomic, const std::vector<uintptr_t>& same) {
        for (auto& [start, w] : take(lo, hi, atomic)) {
            bool shared = !w.writers.empty() && std::find(same.begin(), same.end(), start) != same.end();
            if (shared) w.writers.push_back(me);
            else w = Write{w.end, atomic, {me}};
            writes_[start] = w;
        }
    }

    std::map<uintptr_t, Write> writes_;
    std::vector<std::vector<uint64_t>> clock_;
    std::map<uint64_t, std::vector<uint64_t>> barrier_;
    std::map<int, std::vector<uint64_t>> flags_;
};

inline GmModel& gm_model() {
    static GmModel m;
    return m;
}

// ---------------------------------------------------------------- cooperative block scheduler
//
// Each core runs on its own thread, but only one thread runs at a time, in core order, and
// control passes only when a core returns or waits (SyncAll, CrossCoreWaitFlag). Runs are
// therefore deterministic and free of data races inside the emulator, and cross-core waits
// work. A wait that no core can ever satisfy is reported as a `timeout` (the NPU would hang).
class Scheduler {
  public:
    void run(uint32_t block_dim, CoreLayout layout, const std::function<void()>& body) {
        body_ = &body;
        n_ = block_dim;
        layout_ = layout;
        declared_ = layout != CoreLayout::AIV_ONLY;
        cores_ = 0;
        token_ = 0;
        arrived_ = 0;
        generation_ = 0;
        epoch_ = 0;
        pending_.clear();
        ib_sets_.clear();
        ib_seen_.clear();
        threads_.clear();
        gm_model().reset();
        if (is_mix(layout)) check_core_limit(layout, "", 0);
        {
            std::unique_lock<std::mutex> lk(m_);
            grow(core_count(layout, block_dim));
        }
        for (size_t i = 0;; ++i) {
            std::thread* t = nullptr;
            {
                std::unique_lock<std::mutex> lk(m_);
                if (i >= threads_.size()) break;
                t = &threads_[i];
            }
            t->join();
        }
        t_block_idx = -1;
        t_core = CoreId{};
    }

    CoreLayout layout() const { return layout_; }
    uint32_t block_dim() const { return n_; }

    // KERNEL_TASK_TYPE_DEFAULT executed by a core: the first core to run it, before any other
    // core started, sets the launch's layout (a mix kernel gets its AIV cores here).
    // `implicit`: the layout the toolchain gives a kernel that declares none (a Matmul API kernel
    // on a chip with separate AIC/AIV cores is built as mix 1:2); a declared type wins.
    void declare_layout(CoreLayout l, const char* what, const char* file, int line, bool implicit = false) {
        std::unique_lock<std::mutex> lk(m_);
        if (t_block_idx < 0) return;
        if (implicit && (declared_ || !chip().split_cores)) return;
        declared_ = true;
        if (l == layout_) return;
        uint32_t started = 0;
        for (uint32_t c = 0; c < cores_; ++c) started += started_[c] ? 1 : 0;
        if (t_block_idx != 0 || started > 1) {
            std::ostringstream msg;
            msg << what << " declares a " << layout_name(l) << " kernel after cores started as " << layout_name(layout_)
                << "; declare the kernel type first in the kernel function";
            fail("param-range", msg.str(), file, line);
        }
        if (is_mix(l)) check_core_limit(l, file, line);
        layout_ = l;
        t_core = core_id(l, n_, 0);
        grow(core_count(l, n_));
    }

    // All cores of the launch (with isAIVOnly in a mix kernel: all cores of the caller's type)
    // meet here (AscendC SyncAll).
    void sync_all(bool aiv_only, const char* file, int line) {
        std::unique_lock<std::mutex> lk(m_);
        if (t_block_idx < 0) return;  // outside a launch: nothing to wait for
        ++counters().sync_alls;
        if (n_ > cores_for(layout_)) {
            std::ostringstream msg;
            msg << "SyncAll needs all " << n_ << " blocks resident at once, but " << chip().name << " has "
                << cores_for(layout_) << (layout_ == CoreLayout::AIV_ONLY ? " vector" : " cube")
                << " cores: the kernel deadlocks on the NPU (lower blockDim)";
            fail("block-dim", msg.str(), file, line);
        }
        if (arrived_ == 0) {
            barrier_same_type_ = aiv_only && is_mix(layout_);
            barrier_aic_ = t_core.is_aic;
        }
        uint64_t gen = generation_;
        gm_model().arrive(t_block_idx, gen);
        ++arrived_;
        ++epoch_;
        sync_file_ = file;
        sync_line_ = line;
        check_barrier_participants();
        uint32_t live = 0;
        for (uint32_t c = 0; c < cores_; ++c) live += in_barrier(c) && !finished_[c] ? 1 : 0;
        if (arrived_ == live) {
            arrived_ = 0;
            ++generation_;
        }
        wait_until(lk, [&] { return generation_ != gen; }, "SyncAll", file, line);
        gm_model().leave(t_block_idx, gen);
    }

    // CrossCoreSetFlag<mode>(flag): raises `flag` on the cores the mode addresses. Mode 0: every
    // core of the setter's type; mode 1: the AIVs of the setter's cluster; mode 2: from an AIC
    // its AIVs, from an AIV its AIC.
    void cross_set(int mode, int flag, const char* file, int line) {
        std::unique_lock<std::mutex> lk(m_);
        check_flag("CrossCoreSetFlag", mode, flag, file, line);
        if (t_block_idx < 0) return;
        for (uint32_t c = 0; c < cores_; ++c) {
            CoreId id = core_id(layout_, n_, c);
            bool same_cluster = id.cluster == t_core.cluster;
            bool to = mode == 0   ? id.is_aic == t_core.is_aic
                      : mode == 1 ? !id.is_aic && !t_core.is_aic && same_cluster
                                  : id.is_aic != t_core.is_aic && same_cluster;
            if (!to) continue;
            // The counter behind a flag id holds at most 15 unconsumed rounds on the NPU.
            uint64_t& pending = pending_[key(mode, flag, c)];
            uint64_t round = sets_needed(mode, id);
            if (round > 0 && (pending + 1 + round - 1) / round > kMaxPendingRounds) {
                std::ostringstream msg;
                msg << "CrossCoreSetFlag mode " << mode << " flag " << flag << " raised more than " << kMaxPendingRounds
                    << " times on " << (id.is_aic ? "AIC" : "AIV") << " core " << c
                    << " without a CrossCoreWaitFlag there: the flag counter overflows on the NPU";
                fail("param-range", msg.str(), file, line);
            }
            ++pending;
        }
        gm_model().flag_set(t_block_idx, flag);
        ++epoch_;
    }

    // CrossCoreWaitFlag(flag): waits until the flag was raised on this core by every core the
    // setter's mode synchronises (mode 0: all cores of this type; mode 1: both AIVs of the
    // cluster; mode 2: the AIC, or on an AIC all its AIVs), then consumes those sets.
    void cross_wait(int mode, int flag, const char* file, int line) {
        std::unique_lock<std::mutex> lk(m_);
        check_flag("CrossCoreWaitFlag", mode, flag, file, line);
        if (t_block_idx < 0) return;
        uint32_t me = static_cast<uint32_t>(t_block_idx);
        int hit = -1;
        wait_until(lk, [&] {
            for (int m : {2, 1, 0}) {
                uint64_t n = sets_needed(m);
                if (n > 0 && pending_[key(m, flag, me)] >= n) {
                    hit = m;
                    return true;
                }
            }
            return false;
        }, "CrossCoreWaitFlag", file, line);
        pending_[key(hit, flag, me)] -= sets_needed(hit);
        gm_model().flag_wait(t_block_idx, flag);
    }

    // IBSet(gm, ub, block, event) / IBWait (API reference, "IBSet", "IBWait": software flags in a
    // GM workspace, paired): IBSet raises (block, event); IBWait waits until (block, event) was
    // raised more often than this core has waited on it, so a set seen once is not seen twice.
    void ib_set(int32_t block, int32_t event) {
        std::unique_lock<std::mutex> lk(m_);
        if (t_block_idx < 0) return;
        ++ib_sets_[{block, event}];
        gm_model().flag_set(t_block_idx, ib_flag(block, event));
        ++epoch_;
    }
    void ib_wait(int32_t block, int32_t event, const char* file, int line) {
        std::unique_lock<std::mutex> lk(m_);
        if (t_block_idx < 0) return;
        uint64_t& seen = ib_seen_[{block, event, static_cast<uint32_t>(t_block_idx)}];
        wait_until(lk, [&] { return ib_sets_[{block, event}] > seen; }, "IBWait", file, line);
        ++seen;
        gm_model().flag_wait(t_block_idx, ib_flag(block, event));
    }

  private:
    // The GM model's flag id of an IB flag, past the cross-core flag ids 0-10.
    static int ib_flag(int32_t block, int32_t event) { return 1 << 20 | (block << 8) | (event & 0xFF); }
    using FlagKey = std::tuple<int, int, uint32_t>;
    static FlagKey key(int mode, int flag, uint32_t core) { return {mode, flag, core}; }

    // Raises of a flag that make one round (one wait's worth) on the core `who`.
    uint64_t sets_needed(int mode, const CoreId& who) const {
        if (mode == 1) return aiv_ratio(layout_);
        if (mode == 2) return who.is_aic ? aiv_ratio(layout_) : 1;
        uint64_t n = 0;
        for (uint32_t c = 0; c < cores_; ++c) n += core_id(layout_, n_, c).is_aic == who.is_aic ? 1 : 0;
        return n;
    }
    uint64_t sets_needed(int mode) const { return sets_needed(mode, t_core); }

    static void check_flag(const char* api, int mode, int flag, const char* file, int line) {
        // Flag ids 0-10 on the split-core chips (Atlas A2/A3 documentation).
        if (mode < 0 || mode > 2 || flag < 0 || flag > 10) {
            std::ostringstream msg;
            msg << api << ": mode " << mode << " / flag id " << flag << " outside mode [0, 2], flag id [0, 10]";
            fail("param-range", msg.str(), file, line);
        }
    }

    // A mix kernel needs all its clusters resident (ASCENDC_SPEC rule 10); vector- and cube-only
    // kernels above the core count run in waves.
    void check_core_limit(CoreLayout l, const char* file, int line) const {
        if (n_ <= cores_for(l)) return;
        std::ostringstream msg;
        msg << "blockDim " << n_ << " of a " << layout_name(l) << " kernel exceeds the " << cores_for(l)
            << " cube cores of " << chip().name << ": every block needs its AI Core resident, the NPU deadlocks";
        fail("block-dim", msg.str(), file, line);
    }

    // Adds cores [cores_, count) with their threads; they start when the token reaches them.
    void grow(uint32_t count) {
        started_.resize(count, false);
        finished_.resize(count, false);
        stalled_.resize(count, kNotStalled);
        state().counters.resize(count);
        for (uint32_t c = cores_; c < count; ++c) {
            threads_.emplace_back([this, c] {
                t_block_idx = static_cast<int>(c);
                {
                    std::unique_lock<std::mutex> lk(m_);
                    cv_.wait(lk, [&] { return token_ == c; });
                    t_core = core_id(layout_, n_, c);
                    started_[c] = true;
                }
                (*body_)();
                block_keep_alive().reset();
                std::unique_lock<std::mutex> lk(m_);
                finished_[c] = true;
                ++epoch_;
                if (arrived_ > 0 && in_barrier(c)) check_barrier_participants();
                pass_token(c);
            });
        }
        cores_ = count;
        set_order();
    }

    bool in_barrier(uint32_t c) const {
        return !barrier_same_type_ || core_id(layout_, n_, c).is_aic == barrier_aic_;
    }

    // A core that returned never reaches the barrier: on the NPU the others hang forever.
    void check_barrier_participants() const {
        for (uint32_t c = 0; c < cores_; ++c) {
            if (finished_[c] && in_barrier(c)) {
                std::ostringstream msg;
                msg << "SyncAll waits for all " << n_ << " blocks, but block " << c
                    << " returned without reaching it: the kernel would hang on the NPU";
                fail("timeout", msg.str(), sync_file_, sync_line_);
            }
        }
    }

    // Yields until `ready()`; every other live core stalled since the last progress means no
    // core can make it true: the NPU would hang.
    template <class Ready>
    void wait_until(std::unique_lock<std::mutex>& lk, Ready ready, const char* api, const char* file, int line) {
        uint32_t b = static_cast<uint32_t>(t_block_idx);
        while (!ready()) {
            stalled_[b] = epoch_;
            bool stuck = true;
            for (uint32_t c = 0; c < cores_ && stuck; ++c) stuck = finished_[c] || (started_[c] && stalled_[c] == epoch_);
            if (stuck) {
                std::ostringstream msg;
                CoreId id = core_id(layout_, n_, b);
                msg << api << " on " << (id.is_aic ? "AIC" : "AIV") << " core " << b << " (GetBlockIdx " << id.block_idx
                    << ") waits for something no core will do (every other core has returned or waits too): "
                    << "the kernel would hang on the NPU";
                fail("timeout", msg.str(), file, line);
            }
            pass_token(b);
            cv_.wait(lk, [&] { return token_ == b; });
        }
        stalled_[b] = kNotStalled;
    }

    // The order cores take turns in: core order, or with KERNELGEN_BLOCK_ORDER=reverse core 0
    // and then the others from the last down (core 0 still starts first: it may declare the
    // kernel's layout). A second order is a cheap check for kernels that depend on one.
    void set_order() {
        static const bool reverse = env_equals("KERNELGEN_BLOCK_ORDER", "reverse");
        order_.resize(cores_);
        rank_.resize(cores_);
        for (uint32_t i = 0; i < cores_; ++i) order_[i] = reverse && i > 0 ? cores_ - i : i;
        for (uint32_t i = 0; i < cores_; ++i) rank_[order_[i]] = i;
    }

    // Hands control to the next unfinished core after `b` in the turn order (cyclically).
    void pass_token(uint32_t b) {
        for (uint32_t k = 1; k <= cores_; ++k) {
            uint32_t nb = order_[(rank_[b] + k) % cores_];
            if (!finished_[nb]) {
                token_ = nb;
                cv_.notify_all();
                return;
            }
        }
        token_ = cores_;  // everyone finished
        cv_.notify_all();
    }

    static constexpr uint64_t kNotStalled = ~uint64_t(0);
    static constexpr uint64_t kMaxPendingRounds = 15;
    std::mutex m_;
    std::condition_variable cv_;
    const std::function<void()>* body_ = nullptr;
    std::deque<std::thread> threads_;
    uint32_t n_ = 0;
    uint32_t cores_ = 0;
    CoreLayout layout_ = CoreLayout::AIV_ONLY;
    bool declared_ = false;  // a kernel type was declared (entry attribute or KERNEL_TASK_TYPE)
    uint32_t token_ = 0;
    uint32_t arrived_ = 0;
    uint64_t generation_ = 0;
    uint64_t epoch_ = 0;  // counts progress: flag sets, barrier arrivals, finished cores
    bool barrier_same_type_ = false;
    bool barrier_aic_ = false;
    std::vector<bool> started_;
    std::vector<bool> finished_;
    std::vector<uint32_t> order_;  // turn order of the cores (set_order)
    std::vector<uint32_t> rank_;   // position of each core in order_
    std::vector<uint64_t> stalled_;  // epoch at which each core last found its wait unmet
    std::map<FlagKey, uint64_t> pending_;  // raised, not yet consumed: (mode, flag, core)
    std::map<std::pair<int32_t, int32_t>, uint64_t> ib_sets_;  // IBSet count per (block, event)
    std::map<FlagKey, uint64_t> ib_seen_;  // IBWaits done per (block, event, waiting core)
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

// Runs `body` once per core: blockDim cores, or blockDim clusters of one AIC and its AIVs for
// a mix kernel (declared on the entry, or by KERNEL_TASK_TYPE_DEFAULT as the kernel starts).
inline void launch(uint32_t block_dim, const std::function<void()>& body) {
    auto& s = state();
    s.block_dim = block_dim;
    s.counters.clear();
    std::function<void()> core_body = [&body] {
        body();
        for (auto& hook : block_end_hooks()) hook();
    };
    scheduler().run(block_dim, declared_layout(), core_body);
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
