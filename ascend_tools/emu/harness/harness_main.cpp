// The driver linked into every emulator run binary (protocol: ascend_tools/emu/README.md).
//
//   harness --describe OUT.json     writes the OpDefs the host objects registered
//   harness CASE.txt REPORT.json    runs one case: tiling, GM setup, launch, outputs, report
//
// Exit codes: 0 ran to the end; 3 a rule failure (kernelgen::fail wrote the report); 2 a bad
// case or harness error (message on stderr); 4 the op's host code threw (a crash).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "graph/types.h"
#include "kernelgen/host_gert.h"
#include "kernelgen/host_launch.h"
#include "kernelgen/host_opdef.h"
#include "kernelgen/host_tiling_macros.h"
#include "kernelgen/runtime.h"
#include "register/op_impl_registry.h"

namespace {

// Garbage for the kernel's uninitialised locals. On the NPU a core's stack holds what ran there
// before; a fresh thread's stack here reads zeros, which hid DrivingSDK grid_sampler2d_v2_grad's
// uninitialised class members (their reads went in as 0 and the result matched). The stack the
// entry's frame takes is filled first with 0xFE bytes: -1.7e38 as a float, -16843010 as an int,
// NaN as a half, and a pointer that faults.
constexpr size_t kPoisonedStack = 256 * 1024;

[[gnu::noinline]] void poison_stack() {
    uint8_t junk[kPoisonedStack];
    std::memset(junk, 0xFE, sizeof junk);
    asm volatile("" : : "r"(junk) : "memory");  // the fill must happen though nothing reads it
}

// What the run is doing, for a crash's message: a SIGSEGV in host code carries no location of
// its own (the InferShape of an in-place op that writes output 0 used to end as a bare
// "killed by SIGSEGV"). nullptr: the kernel's blocks, each named by its block index.
const char* volatile g_phase = "the harness";


constexpr int kExitHarnessError = 2;
constexpr int kExitHostCrash = 4;
constexpr size_t kTilingCapacityBytes = 64 * 1024;  // raw tiling buffer handed to TilingFunc
constexpr uint32_t kMaxBlockDim = 65535;

// A bad case or an unusable project: message to stderr, exit 2.
struct HarnessError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// ---------------------------------------------------------------- case file
struct CaseTensor {
    std::string name;
    const ge::DataTypeFacts* dtype = nullptr;
    std::vector<int64_t> dims;
    std::string path;
    std::string initial_path;  // outputs: the bytes it holds before the launch ("" = poison)
    std::string stem;          // its file's name without directory and `.bin` (a `params` word)
    int line = 0;

    uint64_t elements() const {
        uint64_t n = 1;
        for (int64_t d : dims) n *= static_cast<uint64_t>(d);
        return n;
    }
    // Shapes whose byte size overflows or exceeds what a GM allocation could hold.
    bool too_large() const {
        constexpr uint64_t kMaxBytes = 1ull << 40;
        uint64_t n = 1;
        for (int64_t d : dims) {
            if (d != 0 && n > kMaxBytes / static_cast<uint64_t>(d)) return true;
            n *= static_cast<uint64_t>(d);
        }
        return n > kMaxBytes / dtype->bytes;
    }
    uint64_t bytes() const { return elements() * dtype->bytes; }
};

struct CaseAttr {
    std::string name;
    std::string type;
    std::vector<std::string> values;
    int line = 0;
};

// The segments a caching allocator carves blocks from (`gm_segment <small_max> <small> <large_below>
// <large> <round>`, chips.json gm_allocation.segment, torch_npu's get_allocation_size): a block of
// at most small_max bytes lies in a segment of `small` bytes, one below large_below in a segment of
// `large` bytes, a bigger one in its own size rounded up to `round`. Without the record a block is
// its own segment (nothing readable past it).
struct GmSegments {
    uint64_t small_max = 0, small = 0, large_below = 0, large = 0, round = 0;
    uint64_t for_block(uint64_t block) const {
        if (small == 0) return block;
        if (block <= small_max) return std::max(block, small);
        if (block < large_below) return std::max(block, large);
        return (block + round - 1) / round * round;
    }
};

struct Case {
    bool has_chip = false;
    bool has_op = false;
    std::string op;  // "-" for single-file kernels
    std::string kernel;
    int64_t block_dim = -1;
    // Each input and output of n bytes lives in a block of gm_block * ceil((n + gm_pad) /
    // gm_block) bytes (`gm_block <block> <pad>`: the framework's caching allocator, chips.json
    // gm_allocation); 32-byte blocks and no pad without the record.
    uint64_t gm_block = 32;
    uint64_t gm_pad = 0;
    GmSegments gm_segments;
    std::vector<CaseTensor> inputs;
    std::vector<CaseTensor> outputs;
    std::vector<CaseAttr> attrs;
    // Single-file kernels: per pointer parameter of the entry, in order, the stem of the case
    // tensor it gets (an in-place parameter names its output) or `workspace`/`tiling`; empty:
    // inputs, outputs, then a trailing workspace and tiling as the entry's arity asks.
    std::vector<std::string> params;
    bool has_params = false;
    // `alias <output> <input>`: that output is that input's buffer under another name (a launch
    // that passes one buffer for both), updated in place like an output named as the input.
    std::vector<std::pair<std::string, std::string>> aliases;
};

class CaseParser {
  public:
    explicit CaseParser(std::string path) : path_(std::move(path)) {
        auto slash = path_.rfind('/');
        dir_ = slash == std::string::npos ? "" : path_.substr(0, slash + 1);
    }

    Case parse() {
        std::ifstream in(path_);
        if (!in) throw HarnessError("cannot read case file " + path_ + ": " + std::strerror(errno));
        Case c;
        std::string text;
        while (std::getline(in, text)) {
            ++line_;
            if (!text.empty() && text.back() == '\r') text.pop_back();
            std::vector<std::string> f = split(text);
            if (f.empty() || f[0][0] == '#') continue;
            record(c, f);
        }
        if (!c.has_chip) throw HarnessError(path_ + ": missing 'chip' line");
        if (!c.has_op) throw HarnessError(path_ + ": missing 'op' line");
        if (c.kernel.empty()) throw HarnessError(path_ + ": missing 'kernel' line");
        return c;
    }

  private:
    void record(Case& c, const std::vector<std::string>& f) {
        const std::string& kind = f[0];
        if (kind == "chip") {
            chip(f);
            c.has_chip = true;
        } else if (kind == "op") {
            want(f, 2, "op <OpType|->");
            c.op = f[1];
            c.has_op = true;
        } else if (kind == "kernel") {
            want(f, 2, "kernel <entry_name>");
            c.kernel = f[1];
        } else if (kind == "gm_block") {
            want(f, 3, "gm_block <block_bytes> <pad_bytes>");
            c.gm_block = u64(f[1], "gm_block");
            c.gm_pad = u64(f[2], "gm_block pad");
            if (c.gm_block == 0 || c.gm_block % 32 != 0) error("gm_block's block must be a positive multiple of 32");
        } else if (kind == "gm_segment") {
            want(f, 6, "gm_segment <small_max_bytes> <small_bytes> <large_below_bytes> <large_bytes> <round_bytes>");
            GmSegments& g = c.gm_segments;
            g.small_max = u64(f[1], "gm_segment small_max");
            g.small = u64(f[2], "gm_segment small");
            g.large_below = u64(f[3], "gm_segment large_below");
            g.large = u64(f[4], "gm_segment large");
            g.round = u64(f[5], "gm_segment round");
            if (g.small == 0 || g.large == 0 || g.round == 0 || g.small_max > g.small || g.large_below > g.large)
                error("gm_segment: segments must be positive and hold the blocks they serve");
        } else if (kind == "block_dim") {
            want(f, 2, "block_dim <n>");
            c.block_dim = integer(f[1], "block_dim");
        } else if (kind == "input" || kind == "output") {
            (kind == "input" ? c.inputs : c.outputs).push_back(tensor(f));
        } else if (kind == "attr") {
            c.attrs.push_back(attr(f));
        } else if (kind == "alias") {
            want(f, 3, "alias <output> <input>");
            c.aliases.emplace_back(f[1], f[2]);
        } else if (kind == "params") {
            if (c.has_params) error("a second 'params' line");
            c.params.assign(f.begin() + 1, f.end());
            c.has_params = true;
        } else {
            error("unknown record '" + kind + "' (expected chip, gm_block, gm_segment, op, kernel, block_dim, input, output, alias, attr, "
                  "params)");
        }
    }

    void chip(const std::vector<std::string>& f) {
        want(f, 17,
             "chip <name> <soc_version> <cce_aicore> <ub_bytes> <ub_safe_bytes> <l1_bytes> <l0a_bytes> "
             "<l0b_bytes> <l0c_bytes> <cube_cores> <vector_cores> <split_cores> <max_tensors_per_position> "
             "<has_datacopypad> <has_bf16> <local_address_wrap>");
        kernelgen::ChipInfo ci;
        ci.name = f[1];
        ci.soc_version = u32(f[2], "soc_version");
        ci.cce_aicore = u32(f[3], "cce_aicore");
        ci.ub_bytes = u64(f[4], "ub_bytes");
        ci.ub_safe_bytes = u64(f[5], "ub_safe_bytes");
        ci.l1_bytes = u64(f[6], "l1_bytes");
        ci.l0a_bytes = u64(f[7], "l0a_bytes");
        ci.l0b_bytes = u64(f[8], "l0b_bytes");
        ci.l0c_bytes = u64(f[9], "l0c_bytes");
        ci.cube_cores = u32(f[10], "cube_cores");
        ci.vector_cores = u32(f[11], "vector_cores");
        ci.split_cores = flag(f[12], "split_cores");
        ci.max_tensors_per_position = u32(f[13], "max_tensors_per_position");
        ci.has_datacopypad = flag(f[14], "has_datacopypad");
        ci.has_bf16 = flag(f[15], "has_bf16");
        ci.local_address_wrap = flag(f[16], "local_address_wrap");
        if (ci.cube_cores == 0 || ci.vector_cores == 0) error("chip core counts must be positive");
        kernelgen::chip() = ci;
    }

    CaseTensor tensor(const std::vector<std::string>& f) {
        const bool output = f[0] == "output";
        const char* usage = output ? "output <name> <dtype> <ndim> <d0> ... <file> [<initial_file>]"
                                   : "input <name> <dtype> <ndim> <d0> ... <file>";
        if (f.size() < 5) error(std::string("too few fields; expected ") + usage);
        CaseTensor t;
        t.line = line_;
        t.name = f[1];
        t.dtype = ge::data_type_by_name(f[2]);
        if (t.dtype == nullptr) error("unknown dtype '" + f[2] + "' (expected float32 float16 bfloat16 int8 int16 "
                                      "int32 int64 uint8 uint16 uint32 uint64 bool)");
        int64_t ndim = integer(f[3], "ndim");
        if (ndim < 0 || static_cast<size_t>(ndim) > gert::Shape::kMaxDimNum)
            error("ndim " + f[3] + " out of range [0, 25]");
        const size_t fields = static_cast<size_t>(5 + ndim);
        if (!(output && f.size() == fields + 1)) want(f, fields, usage);
        for (int64_t k = 0; k < ndim; ++k) {
            int64_t d = integer(f[4 + k], "dimension");
            if (d < 0) error("negative dimension " + f[4 + k]);
            t.dims.push_back(d);
        }
        if (t.too_large()) error("tensor " + t.name + " is too large (over 1 TiB)");
        const std::string& file = f[4 + ndim];
        t.path = !file.empty() && file[0] == '/' ? file : dir_ + file;
        t.stem = file.substr(file.rfind('/') == std::string::npos ? 0 : file.rfind('/') + 1);
        if (t.stem.size() > 4 && t.stem.compare(t.stem.size() - 4, 4, ".bin") == 0) t.stem.resize(t.stem.size() - 4);
        if (f.size() == fields + 1) {
            const std::string& init = f[fields];
            t.initial_path = init[0] == '/' ? init : dir_ + init;
        }
        return t;
    }

    CaseAttr attr(const std::vector<std::string>& f) {
        if (f.size() < 4) error("expected attr <name> <type> <value...>");
        CaseAttr a;
        a.line = line_;
        a.name = f[1];
        a.type = f[2];
        a.values.assign(f.begin() + 3, f.end());
        if (a.type == "list_int" || a.type == "list_float") {
            int64_t n = integer(a.values[0], "list length");
            if (n < 0 || static_cast<size_t>(n) != a.values.size() - 1)
                error("attr " + a.name + ": list length " + a.values[0] + " does not match the " +
                      std::to_string(a.values.size() - 1) + " values given");
            a.values.erase(a.values.begin());
        } else if (a.type == "int" || a.type == "float" || a.type == "bool" || a.type == "str") {
            if (a.values.size() != 1) error("attr " + a.name + ": " + a.type + " takes exactly one value");
        } else {
            error("attr " + a.name + ": unknown type '" + a.type +
                  "' (expected int, float, bool, str, list_int, list_float)");
        }
        return a;
    }

    static std::vector<std::string> split(const std::string& s) {
        std::vector<std::string> out;
        std::istringstream is(s);
        std::string w;
        while (is >> w) out.push_back(w);
        return out;
    }
    void want(const std::vector<std::string>& f, size_t n, const std::string& usage) const {
        if (f.size() != n)
            error("expected " + std::to_string(n) + " fields, got " + std::to_string(f.size()) + ": " + usage);
    }
    int64_t integer(const std::string& s, const char* what) const {
        errno = 0;
        char* end = nullptr;
        long long v = std::strtoll(s.c_str(), &end, 10);
        if (s.empty() || *end != '\0' || errno == ERANGE) error(std::string(what) + " '" + s + "' is not an integer");
        return v;
    }
    uint64_t u64(const std::string& s, const char* what) const {
        int64_t v = integer(s, what);
        if (v < 0) error(std::string(what) + " must not be negative");
        return static_cast<uint64_t>(v);
    }
    uint32_t u32(const std::string& s, const char* what) const {
        uint64_t v = u64(s, what);
        if (v > UINT32_MAX) error(std::string(what) + " is too large");
        return static_cast<uint32_t>(v);
    }
    bool flag(const std::string& s, const char* what) const {
        if (s != "0" && s != "1") error(std::string(what) + " must be 0 or 1, got '" + s + "'");
        return s == "1";
    }
    [[noreturn]] void error(const std::string& msg) const {
        throw HarnessError(path_ + ":" + std::to_string(line_) + ": " + msg);
    }

    std::string path_;
    std::string dir_;
    int line_ = 0;
};

// ---------------------------------------------------------------- values
int64_t parse_int(const CaseAttr& a, const std::string& s) {
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || errno == ERANGE)
        throw HarnessError("case line " + std::to_string(a.line) + ": attr " + a.name + ": '" + s + "' is not an integer");
    return v;
}

float parse_float(const CaseAttr& a, const std::string& s) {
    char* end = nullptr;
    float v = std::strtof(s.c_str(), &end);
    if (s.empty() || *end != '\0')
        throw HarnessError("case line " + std::to_string(a.line) + ": attr " + a.name + ": '" + s + "' is not a number");
    return v;
}

bool parse_bool(const CaseAttr& a, const std::string& s) {
    if (s == "1" || s == "true" || s == "True") return true;
    if (s == "0" || s == "false" || s == "False") return false;
    throw HarnessError("case line " + std::to_string(a.line) + ": attr " + a.name + ": bool must be 0 or 1, got '" + s + "'");
}

// Shortest text that reads back as the same float, always with a decimal point ("1.0").
std::string float_text(float v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[32];
    for (int prec = 1; prec <= 9; ++prec) {
        std::snprintf(buf, sizeof buf, "%.*g", prec, static_cast<double>(v));
        if (std::strtof(buf, nullptr) == v) break;
    }
    std::string s = buf;
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";
    return s;
}

// ---------------------------------------------------------------- describe
struct AttrKindName {
    ops::AttrKind kind;
    const char* name;
};
constexpr AttrKindName kAttrKindNames[] = {
    {ops::AttrKind::Int, "int"},          {ops::AttrKind::Float, "float"},
    {ops::AttrKind::Bool, "bool"},        {ops::AttrKind::Str, "str"},
    {ops::AttrKind::ListInt, "list_int"}, {ops::AttrKind::ListFloat, "list_float"},
    {ops::AttrKind::ListBool, "list_bool"}, {ops::AttrKind::ListListInt, "list_list_int"},
};

const char* attr_kind_name(ops::AttrKind k) {
    for (const auto& r : kAttrKindNames)
        if (r.kind == k) return r.name;
    return "none";
}

const char* param_type_name(ops::Option o) {
    switch (o) {
        case ops::OPTIONAL: return "optional";
        case ops::DYNAMIC: return "dynamic";
        default: return "required";
    }
}

std::string dtype_name(ge::DataType t) {
    const auto* f = ge::data_type_facts(t);
    if (f == nullptr) return "unknown";
    return *f->name ? f->name : f->serial;
}

template <class T, class F>
std::string json_list(const std::vector<T>& v, F item) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + item(v[i]);
    return s + "]";
}

std::string quoted(const std::string& s) { return "\"" + kernelgen::json_escape(s) + "\""; }

std::string attr_default_text(const ops::OpAttrDef& a) {
    auto ints = [](int64_t v) { return std::to_string(v); };
    auto floats = [](float v) { return float_text(v); };
    switch (a.attr_kind()) {
        case ops::AttrKind::Int: return std::to_string(a.int_default());
        case ops::AttrKind::Float: return float_text(a.float_default());
        case ops::AttrKind::Bool: return a.bool_default() ? "true" : "false";
        case ops::AttrKind::Str: return a.str_default();
        case ops::AttrKind::ListInt: return json_list(a.list_int_default(), ints);
        case ops::AttrKind::ListFloat: return json_list(a.list_float_default(), floats);
        case ops::AttrKind::ListBool: {
            std::vector<int64_t> v(a.list_bool_default().begin(), a.list_bool_default().end());
            return json_list(v, [](int64_t b) { return std::string(b ? "true" : "false"); });
        }
        default: return "";
    }
}

// The dtype combinations of an OpDef: the DataType() lists are columns (combination k takes
// entry k of each), and each DataTypeList combines with every other parameter's types (API
// reference, DataTypeList: RecSDK permute2d_sparse_data lists its indices as int64/int32 and its
// values as int64/int32/float32, six combinations). So there are columns x the product of the
// lists' lengths; combination k is a mixed-radix number, columns first, then the lists in
// parameter order.
size_t dtype_columns(const ops::OpDef& op) {
    size_t n = 1;
    for (const auto* list : {&op.inputs(), &op.outputs()})
        for (const auto& p : *list)
            if (!p.dtype_list()) n = std::max(n, p.dtypes().size());
    return n;
}

// The radix position of the DataTypeList parameter named `name`: the product of the columns
// and of the lists before it.
size_t list_stride(const ops::OpDef& op, const std::string& name) {
    size_t stride = dtype_columns(op);
    for (const auto* list : {&op.inputs(), &op.outputs()})
        for (const auto& p : *list) {
            if (p.name() == name) return stride;
            if (p.dtype_list() && !p.dtypes().empty()) stride *= p.dtypes().size();
        }
    return stride;
}

size_t combination_count(const ops::OpDef& op) {
    size_t n = dtype_columns(op);
    for (const auto* list : {&op.inputs(), &op.outputs()})
        for (const auto& p : *list)
            if (p.dtype_list() && !p.dtypes().empty()) n *= p.dtypes().size();
    return n;
}

const ops::OpParamDef* find_param(const ops::OpDef& op, const std::string& name) {
    for (const auto* list : {&op.inputs(), &op.outputs()})
        for (const auto& p : *list)
            if (p.name() == name) return &p;
    return nullptr;
}

// The dtypes of `p` for each combination (DataTypeList repeated, Follow resolved).
std::vector<ge::DataType> param_dtypes(const ops::OpDef& op, const ops::OpParamDef& p, size_t combos) {
    const ops::OpParamDef* src = &p;
    for (int hop = 0; hop < 8 && src->dtypes().empty() && !src->follow().empty(); ++hop) {
        const auto* next = find_param(op, src->follow());
        if (next == nullptr) break;
        src = next;
    }
    std::vector<ge::DataType> out;
    const auto& d = src->dtypes();
    if (d.empty()) return out;
    const size_t columns = dtype_columns(op);
    const size_t stride = src->dtype_list() ? list_stride(op, src->name()) : 0;
    for (size_t k = 0; k < combos; ++k)
        out.push_back(src->dtype_list() ? d[(k / stride) % d.size()] : d[std::min(k % columns, d.size() - 1)]);
    return out;
}

// Formats follow the DataType() columns (a FormatList's entries repeat across them).
std::vector<ge::Format> param_formats(const ops::OpDef& op, const ops::OpParamDef& p, size_t combos) {
    std::vector<ge::Format> out;
    const auto& f = p.formats();
    const size_t columns = dtype_columns(op);
    for (size_t k = 0; k < combos; ++k) {
        const size_t c = k % columns;
        out.push_back(f.empty() ? ge::FORMAT_ND : p.format_list() ? f[c % f.size()] : f[std::min(c, f.size() - 1)]);
    }
    return out;
}

std::string describe_param(const ops::OpDef& op, const ops::OpParamDef& p, size_t combos) {
    std::ostringstream o;
    o << "{\"name\":" << quoted(p.name()) << ",\"param_type\":\"" << param_type_name(p.param_type())
      << "\",\"dtypes\":" << json_list(param_dtypes(op, p, combos), [](ge::DataType t) { return quoted(dtype_name(t)); })
      << ",\"formats\":"
      << json_list(param_formats(op, p, combos), [](ge::Format f) { return quoted(ge::format_name(f)); })
      << ",\"init_value\":" << (p.has_init_value() ? std::to_string(p.init_value()) : std::string("null")) << "}";
    return o.str();
}

std::string describe_json() {
    std::ostringstream o;
    o << "{\"ops\":[";
    bool first = true;
    for (const auto& op : ops::op_registry()) {
        size_t combos = combination_count(*op);
        auto param = [&](const ops::OpParamDef& p) { return describe_param(*op, p, combos); };
        std::vector<ops::OpParamDef> ins(op->inputs().begin(), op->inputs().end());
        std::vector<ops::OpParamDef> outs(op->outputs().begin(), op->outputs().end());
        std::vector<ops::OpAttrDef> attrs(op->attrs().begin(), op->attrs().end());
        o << (first ? "" : ",") << "{\"name\":" << quoted(op->GetOpType()) << ",\"inputs\":" << json_list(ins, param)
          << ",\"outputs\":" << json_list(outs, param) << ",\"attrs\":"
          << json_list(attrs,
                       [](const ops::OpAttrDef& a) {
                           return "{\"name\":" + quoted(a.name()) + ",\"type\":\"" + attr_kind_name(a.attr_kind()) +
                                  "\",\"required\":" + (a.required() ? "true" : "false") + ",\"default\":" +
                                  (a.has_default() ? quoted(attr_default_text(a)) : "null") + "}";
                       })
          << ",\"configs\":" << json_list(op->aicore().configs(), quoted) << "}";
        first = false;
    }
    o << "]}";
    return o.str();
}

void write_text(const std::string& path, const std::string& text) {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) throw HarnessError("cannot write " + path + ": " + std::strerror(errno));
    bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    ok = std::fclose(f) == 0 && ok;
    if (!ok) throw HarnessError("cannot write " + path);
}

// ---------------------------------------------------------------- GM buffers
// What the padding of an input's allocation holds (memory the device leaves as whatever was
// there, in practice earlier tensors' finite values): per dtype, two element bit patterns that
// alternate. Floating types get a huge finite value and a smaller negative one (+3e38, -1e38 for
// float), so a result that adds, compares or scales what a kernel read past its tensor is far
// off (a sum of any run of them stays huge: the two never cancel) and fails the comparison, while
// a kernel that reads a whole 32-byte block and multiplies the lanes past the tensor by a zero
// weight gets 0, as on the NPU (DrivingSDK roi_align_rotated_grad; NaN would poison x * 0).
// Integers get their largest value.
struct PadPoison {
    ge::DataType type;
    uint64_t even, odd;
};
inline constexpr PadPoison kPadPoison[] = {
    {ge::DT_FLOAT, 0x7F61B1E6u, 0xFE967699u},  // +3.0e38, -1.0e38
    {ge::DT_FLOAT16, 0x7B53u, 0xF4E2u},        // +60000, -20000
    {ge::DT_BF16, 0x7F62u, 0xFE96u},           // +3.0e38, -1.0e38
    {ge::DT_DOUBLE, 0x7FE1CCF385EBC8A0u, 0xFFC55C576D815726u},  // +1e308, -3e307
    {ge::DT_COMPLEX64, 0xFE9676997F61B1E6u, 0xFE9676997F61B1E6u},
    {ge::DT_INT8, 0x7Fu, 0x7Fu},
    {ge::DT_INT16, 0x7FFFu, 0x7FFFu},
    {ge::DT_INT32, 0x7FFFFFFFu, 0x7FFFFFFFu},
    {ge::DT_INT64, 0x7FFFFFFFFFFFFFFFu, 0x7FFFFFFFFFFFFFFFu},
    {ge::DT_UINT8, 0xFFu, 0xFFu},
    {ge::DT_UINT16, 0xFFFFu, 0xFFFFu},
    {ge::DT_UINT32, 0xFFFFFFFFu, 0xFFFFFFFFu},
    {ge::DT_UINT64, ~0ull, ~0ull},
    {ge::DT_BOOL, 0xFFu, 0xFFu},
};

// A GM allocation: `bytes` of tensor in a block of `block * ceil((bytes + pad) / block)` bytes
// (block at least 32: the framework's allocator hands out padded, rounded blocks, so the
// padding is memory the kernel may touch), backed up to the end of the segment the allocator
// carves such a block from (`segments`: a read past the block lands there on the NPU and must
// not fault here), registered with all three sizes. Zero-filled memory comes from calloc (large
// blocks are fresh zero pages, touched only when used: the 16 MiB system workspace costs nothing
// unless a library API uses it); bytes from `fill_from` on are set to `fill`.
class GmBuffer {
  public:
    GmBuffer(uint64_t bytes, uint8_t fill, uint64_t fill_from = 0, uint64_t block = 32, uint64_t pad = 0,
             const GmSegments& segments = {})
        : bytes_(bytes) {
        block = std::max<uint64_t>(block, 32);
        cap_ = std::max<uint64_t>(block, ((bytes + pad + block - 1) / block) * block);
        seg_ = std::max(cap_, segments.for_block(cap_));
        mem_.reset(static_cast<uint8_t*>(std::calloc(seg_, 1)));
        if (!mem_) throw HarnessError("out of memory allocating " + std::to_string(bytes) + " bytes of GM");
        if (fill != 0 && fill_from < seg_) std::memset(mem_.get() + fill_from, fill, seg_ - fill_from);
    }
    uint8_t* data() const { return mem_.get(); }
    uint64_t bytes() const { return bytes_; }
    uint64_t block_bytes() const { return cap_; }
    uint64_t segment_bytes() const { return seg_; }
    // Fills everything past the tensor (its block's padding and the rest of the segment) with the
    // dtype's poison element (kPadPoison).
    void poison_padding(const ge::DataTypeFacts& dtype) {
        const PadPoison* p = nullptr;
        for (const auto& e : kPadPoison)
            if (e.type == dtype.type) p = &e;
        const uint64_t width = dtype.bytes;
        for (uint64_t off = bytes_, k = 0; p != nullptr && width <= 8 && off < seg_; off += width, ++k)
            std::memcpy(mem_.get() + off, k % 2 ? &p->odd : &p->even, std::min<uint64_t>(width, seg_ - off));
    }

  private:
    struct Free {
        void operator()(uint8_t* p) const { std::free(p); }
    };
    std::unique_ptr<uint8_t, Free> mem_;
    uint64_t bytes_;
    uint64_t cap_ = 0;
    uint64_t seg_ = 0;
};

// Before allocating: the file must exist and hold exactly the shape's bytes.
void check_input_size(const CaseTensor& t) {
    struct stat st {};
    if (::stat(t.path.c_str(), &st) != 0)
        throw HarnessError("input " + t.name + ": cannot read " + t.path + ": " + std::strerror(errno));
    if (static_cast<uint64_t>(st.st_size) != t.bytes())
        throw HarnessError("input " + t.name + ": " + t.path + " holds " + std::to_string(st.st_size) +
                           " bytes, the shape and dtype need " + std::to_string(t.bytes()));
}

void read_file_into(const CaseTensor& t, GmBuffer& buf) {
    FILE* f = std::fopen(t.path.c_str(), "rb");
    if (f == nullptr) throw HarnessError("input " + t.name + ": cannot read " + t.path + ": " + std::strerror(errno));
    std::fseek(f, 0, SEEK_END);
    long size = std::ftell(f);
    std::fseek(f, 0, SEEK_SET);
    if (size < 0 || static_cast<uint64_t>(size) != t.bytes()) {
        std::fclose(f);
        throw HarnessError("input " + t.name + ": " + t.path + " holds " + std::to_string(size) + " bytes, the shape and dtype need " +
                           std::to_string(t.bytes()));
    }
    size_t got = t.bytes() ? std::fread(buf.data(), 1, t.bytes(), f) : 0;
    std::fclose(f);
    if (got != t.bytes()) throw HarnessError("input " + t.name + ": short read from " + t.path);
}

// ---------------------------------------------------------------- run
class Run {
  public:
    Run(Case c, std::string report) : case_(std::move(c)), report_(std::move(report)) {}

    int execute() {
        kernelgen::state().report_path = report_;
        for (const auto& t : case_.inputs) inputs_.push_back(load_input(t));
        const bool project = case_.op != "-";
        if (project) split_read_backs();
        for (size_t i = 0; i < case_.outputs.size(); ++i) {
            outputs_.emplace_back(case_.outputs[i].bytes(), 0xFF, 0, case_.gm_block, case_.gm_pad, case_.gm_segments);
            copy_in_place_input(i, outputs_.back());
            load_initial(case_.outputs[i], outputs_.back());
        }
        std::vector<uint8_t*> args = project ? project_setup() : single_file_setup();
        launch(args);
        read_back_aliased();
        for (size_t i = 0; i < case_.outputs.size(); ++i) write_output(case_.outputs[i], outputs_[i]);
        for (const auto& [t, i] : read_backs_) write_output(t, inputs_[i]);
        kernelgen::write_report(kernelgen::state().errors.empty() ? "ok" : "error");
        return kernelgen::state().errors.empty() ? 0 : kernelgen::kRuleFailureExit;
    }

  private:
    // An output named like an input is that tensor updated in place (the GE convention
    // Input("var") ... Output("var")): on the NPU both are one buffer, so elements the kernel
    // leaves alone keep the input's value. The output starts as a copy of the input (the k-th
    // instance of a dynamic list from the k-th instance of the input list).
    void copy_in_place_input(size_t o, GmBuffer& buf) const {
        long i = in_place_input(o);
        if (i >= 0) std::memcpy(buf.data(), inputs_[i].data(), buf.bytes());
    }

    // An output the framework fills before the launch (at::zeros before SetAtomicAdd): its
    // case line names a file of those bytes; the padding past it stays poison.
    static void load_initial(const CaseTensor& t, GmBuffer& buf) {
        if (t.initial_path.empty()) return;
        CaseTensor from = t;
        from.path = t.initial_path;
        check_input_size(from);
        read_file_into(from, buf);
    }

    // The input output `o` updates in place (same name, or named by an `alias` record; same
    // size), or -1.
    long in_place_input(size_t o) const {
        const std::vector<CaseTensor>& outs = case_.outputs;
        std::string name = outs[o].name;
        for (const auto& [output, input] : case_.aliases)
            if (output == name) name = input;
        size_t k = 0;
        for (size_t j = 0; j < o; ++j) k += outs[j].name == outs[o].name;
        for (size_t i = 0; i < case_.inputs.size(); ++i) {
            if (case_.inputs[i].name != name || k-- != 0) continue;
            if (inputs_[i].bytes() == outs[o].bytes()) return static_cast<long>(i);
            if (name != outs[o].name)
                throw HarnessError("alias: output " + outs[o].name + " (" + std::to_string(outs[o].bytes()) +
                                   " bytes) is not the size of input " + name + " (" +
                                   std::to_string(inputs_[i].bytes()) + " bytes)");
            return -1;
        }
        return -1;
    }

    // An op whose OpDef declares no output for a tensor it updates in place (an Input the
    // kernel writes: a cache): the case names that result as an output the op does not have,
    // matched to its input by name or `alias`. It is not passed to the kernel; after the launch
    // it holds the input's buffer.
    void split_read_backs() {
        const ops::OpDef* op = ops::find_op(case_.op);
        if (op == nullptr) return;  // project_setup names the unregistered op
        auto declared = [&](const std::string& n) {
            for (const auto& p : op->outputs())
                if (p.name() == n) return true;
            return false;
        };
        std::vector<CaseTensor> kept;
        for (size_t o = 0; o < case_.outputs.size(); ++o) {
            long i = declared(case_.outputs[o].name) ? -1 : in_place_input(o);
            if (i >= 0)
                read_backs_.emplace_back(case_.outputs[o], static_cast<size_t>(i));
            else
                kept.push_back(case_.outputs[o]);
        }
        case_.outputs = std::move(kept);
    }

    // A kernel may update such a tensor through either parameter (its input or its output: one
    // address on the NPU), so both get the input's buffer and the output is read from it after.
    void alias_in_place_outputs(std::vector<uint8_t*>& args, size_t first_output) {
        for (size_t o = 0; o < case_.outputs.size(); ++o) {
            long i = in_place_input(o);
            if (i < 0) continue;
            for (size_t a = first_output; a < args.size(); ++a) {
                if (args[a] != outputs_[o].data()) continue;
                args[a] = inputs_[i].data();
                aliased_.emplace_back(static_cast<size_t>(i), o);
            }
        }
    }
    void read_back_aliased() {
        for (auto [i, o] : aliased_) std::memcpy(outputs_[o].data(), inputs_[i].data(), outputs_[o].bytes());
    }

    GmBuffer load_input(const CaseTensor& t) {
        check_input_size(t);
        GmBuffer b(t.bytes(), 0, 0, case_.gm_block, case_.gm_pad, case_.gm_segments);
        read_file_into(t, b);
        b.poison_padding(*t.dtype);
        return b;
    }

    // Binds case tensors to the OpDef's IR entries by name (in order when no name matches).
    std::vector<size_t> bind(const std::deque<ops::OpParamDef>& ir, const std::vector<CaseTensor>& ts, const char* kind) {
        auto index_of = [&](const std::string& n) -> long {
            for (size_t k = 0; k < ir.size(); ++k)
                if (ir[k].name() == n) return static_cast<long>(k);
            return -1;
        };
        bool any_named = false;
        for (const auto& t : ts) any_named = any_named || index_of(t.name) >= 0;
        std::vector<size_t> out;
        std::vector<int> count(ir.size(), 0);
        for (size_t i = 0; i < ts.size(); ++i) {
            long k = any_named ? index_of(ts[i].name) : static_cast<long>(i);
            if (k < 0 || static_cast<size_t>(k) >= ir.size())
                throw HarnessError(std::string("case ") + kind + " '" + ts[i].name + "' is not an " + kind + " of op " + case_.op +
                                   " (its " + kind + "s: " + names(ir) + ")");
            if (++count[k] > 1 && ir[k].param_type() != ops::DYNAMIC)
                throw HarnessError(std::string("case gives ") + kind + " '" + ir[k].name() + "' twice but it is not dynamic");
            out.push_back(static_cast<size_t>(k));
        }
        for (size_t k = 0; k < ir.size(); ++k)
            if (count[k] == 0 && ir[k].param_type() == ops::REQUIRED)
                throw HarnessError(std::string("case lacks required ") + kind + " '" + ir[k].name() + "' of op " + case_.op);
        return out;
    }

    template <class FormatOf>
    void node_slots(const std::deque<ops::OpParamDef>& ir, const std::vector<size_t>& ir_of, const std::vector<CaseTensor>& ts,
                    std::vector<GmBuffer>& bufs, const FormatOf& format_of, std::vector<gert::TensorSlot>& out) {
        for (size_t i : ir_order(ir_of)) out.push_back(slot(ts[i], ir_of[i], bufs[i], format_of(ir[ir_of[i]])));
        for (size_t k = 0; k < ir.size(); ++k) {
            if (ir[k].param_type() != ops::OPTIONAL) continue;
            if (std::find(ir_of.begin(), ir_of.end(), k) != ir_of.end()) continue;
            gert::TensorSlot absent;
            absent.ir_index = k;
            absent.absent = true;
            absent.name = ir[k].name();
            out.push_back(absent);
        }
        std::stable_sort(out.begin(), out.end(),
                         [](const gert::TensorSlot& a, const gert::TensorSlot& b) { return a.ir_index < b.ir_index; });
    }

    static std::vector<size_t> ir_order(const std::vector<size_t>& ir_of) {
        std::vector<size_t> order(ir_of.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ir_of[a] < ir_of[b]; });
        return order;
    }

    static std::string names(const std::deque<ops::OpParamDef>& ir) {
        std::string s;
        for (const auto& p : ir) s += (s.empty() ? "" : ", ") + p.name();
        return s.empty() ? "none" : s;
    }

    // Which OpDef dtype combination the case uses (for formats); -1 when none matches.
    long combination(const ops::OpDef& op, const std::vector<size_t>& in_ir, const std::vector<size_t>& out_ir) const {
        size_t combos = combination_count(op);
        for (size_t k = 0; k < combos; ++k) {
            bool ok = true;
            for (size_t i = 0; ok && i < case_.inputs.size(); ++i) {
                auto d = param_dtypes(op, op.inputs()[in_ir[i]], combos);
                ok = d.empty() || d[k] == case_.inputs[i].dtype->type;
            }
            for (size_t i = 0; ok && i < case_.outputs.size(); ++i) {
                auto d = param_dtypes(op, op.outputs()[out_ir[i]], combos);
                ok = d.empty() || d[k] == case_.outputs[i].dtype->type;
            }
            if (ok) return static_cast<long>(k);
        }
        return -1;
    }

    gert::TensorSlot slot(const CaseTensor& t, size_t ir, const GmBuffer& b, ge::Format f) const {
        gert::TensorSlot s;
        s.ir_index = ir;
        s.name = t.name;
        gert::Shape shape;
        for (int64_t d : t.dims) shape.AppendDim(d);
        s.shape = gert::StorageShape(shape, shape);
        s.desc.SetDataType(t.dtype->type);
        s.desc.SetFormat(f);
        s.tensor.Set(s.shape, t.dtype->type, f, b.data(), t.bytes());
        return s;
    }

    void fill_attrs(const ops::OpDef& op, gert::RuntimeAttrs& out) const {
        for (const auto& a : case_.attrs) {
            bool known = false;
            for (const auto& d : op.attrs()) known = known || d.name() == a.name;
            if (!known) throw HarnessError("case line " + std::to_string(a.line) + ": op " + case_.op + " has no attribute '" + a.name + "'");
        }
        for (const auto& d : op.attrs()) {
            const CaseAttr* given = nullptr;
            for (const auto& a : case_.attrs)
                if (a.name == d.name()) given = &a;
            const char* want = attr_kind_name(d.attr_kind());
            if (given && d.attr_kind() != ops::AttrKind::None && given->type != want)
                throw HarnessError("case line " + std::to_string(given->line) + ": attr " + d.name() + " is " + want + " in the OpDef, the case gives " + given->type);
            if (!given && !d.has_default())
                throw HarnessError("case lacks attribute '" + d.name() + "' of op " + case_.op + ", which has no default");
            append_attr(d, given, out);
        }
    }

    static void append_attr(const ops::OpAttrDef& d, const CaseAttr* a, gert::RuntimeAttrs& out) {
        const std::string type = a ? a->type : attr_kind_name(d.attr_kind());
        if (type == "int") {
            int64_t v = a ? parse_int(*a, a->values[0]) : d.int_default();
            out.AppendRaw(&v, sizeof v);
        } else if (type == "float") {
            float v = a ? parse_float(*a, a->values[0]) : d.float_default();
            out.AppendRaw(&v, sizeof v);
        } else if (type == "bool") {
            bool v = a ? parse_bool(*a, a->values[0]) : d.bool_default();
            out.AppendRaw(&v, sizeof v);
        } else if (type == "str") {
            const std::string v = a ? a->values[0] : d.str_default();
            out.AppendRaw(v.c_str(), v.size() + 1);
        } else if (type == "list_int") {
            std::vector<int64_t> v;
            if (a) {
                for (const auto& s : a->values) v.push_back(parse_int(*a, s));
            } else {
                v = d.list_int_default();
            }
            out.AppendList(v);
        } else if (type == "list_float") {
            std::vector<float> v;
            if (a) {
                for (const auto& s : a->values) v.push_back(parse_float(*a, s));
            } else {
                v = d.list_float_default();
            }
            out.AppendList(v);
        } else if (type == "list_bool") {
            std::vector<bool> v = d.list_bool_default();
            std::vector<uint8_t> bytes(v.begin(), v.end());
            out.AppendList(bytes);
        } else {
            throw HarnessError("attribute '" + d.name() + "' has a type the case file cannot give (" + type + ")");
        }
    }

    std::vector<uint8_t*> project_setup() {
        const ops::OpDef* op = ops::find_op(case_.op);
        if (op == nullptr) {
            std::string known;
            for (const auto& o : ops::op_registry()) known += (known.empty() ? "" : ", ") + o->GetOpType();
            throw HarnessError("op " + case_.op + " is not registered by the host code (registered: " + (known.empty() ? "none" : known) + ")");
        }
        auto in_ir = bind(op->inputs(), case_.inputs, "input");
        auto out_ir = bind(op->outputs(), case_.outputs, "output");
        long combo = combination(*op, in_ir, out_ir);
        if (combo < 0) warn("chip-support", "the case's dtypes are not one of the combinations op " + case_.op + " declares");
        const size_t combos = combination_count(*op);
        auto format_of = [&](const ops::OpParamDef& p) {
            return combo < 0 ? ge::FORMAT_ND : param_formats(*op, p, combos)[static_cast<size_t>(combo)];
        };

        node_.node_name = case_.op;
        node_.node_type = case_.op;
        // Instances in IR order (dynamic ones in list order), whatever order the case lists them in;
        // an OPTIONAL input or output the case leaves out keeps its place as an absent slot
        // (host_gert.h; an output the reference gives no result for: its kernel pointer is null).
        node_slots(op->inputs(), in_ir, case_.inputs, inputs_, format_of, node_.inputs);
        node_slots(op->outputs(), out_ir, case_.outputs, outputs_, format_of, node_.outputs);
        fill_attrs(*op, node_.attrs);

        g_phase = "the op's InferShape / InferDataType";
        check_inference(*op);
        g_phase = "the op's tiling function";
        run_tiling(*op);
        g_phase = "the harness";
        return project_args(*op, in_ir, out_ir);
    }

    static std::string dims_text(const gert::Shape& s) {
        std::string t = "[";
        for (size_t i = 0; i < s.GetDimNum(); ++i) t += (i ? ", " : "") + std::to_string(s.GetDim(i));
        return t + "]";
    }

    // Runs the op's InferShape / InferDataType on the case's inputs and warns where they
    // disagree with the outputs the case (the reference) expects: graph-mode callers on the NPU
    // allocate outputs from them.
    void check_inference(const ops::OpDef& op) {
        auto it = kernelgen::op_impls().find(case_.op);
        const kernelgen::OpImpl* impl = it == kernelgen::op_impls().end() ? nullptr : &it->second;
        gert::InferShapeKernelFunc infer_shape = op.infer_shape() ? op.infer_shape() : (impl ? impl->infer_shape : nullptr);
        gert::InferDataTypeKernelFunc infer_dtype = op.infer_dtype() ? op.infer_dtype() : (impl ? impl->infer_dtype : nullptr);
        if (infer_shape != nullptr) {
            gert::InferShapeContext ctx(&node_);
            const bool ok = infer_shape(&ctx) == ge::GRAPH_SUCCESS;
            for (size_t i : ctx.undeclared_outputs())
                warn("infer-shape", "the InferShape function of op " + case_.op + " asks for the shape of output " +
                                        std::to_string(i) + ", which the OpDef does not declare (it has " +
                                        std::to_string(node_.outputs.size()) +
                                        "): GE gives nullptr there, so graph mode would crash; the aclnn "
                                        "single-op path does not run InferShape");
            if (!ok) {
                warn("infer-shape", "the InferShape function of op " + case_.op + " returned failure");
            } else {
                // One warning for the op, naming every output that differs (an InferShape that
                // sets no shape differs on all of them).
                std::string differ;
                for (size_t i = 0; i < node_.outputs.size(); ++i) {
                    if (node_.outputs[i].absent) continue;
                    const gert::Shape& want = node_.outputs[i].shape.GetStorageShape();
                    const gert::Shape& got = ctx.output_shapes()[i];
                    if (got != want)
                        differ += (differ.empty() ? "" : "; ") + std::string("output ") + node_.outputs[i].name +
                                  " the shape " + dims_text(got) + ", the case expects " + dims_text(want);
                }
                if (!differ.empty())
                    warn("infer-shape", "InferShape gives " + differ +
                                            ": graph mode (GE) allocates outputs by these shapes; the aclnn single-op "
                                            "path, whose caller allocates the outputs, does not run InferShape");
            }
        }
        if (infer_dtype != nullptr) {
            gert::InferDataTypeContext ctx(&node_);
            if (infer_dtype(&ctx) != ge::GRAPH_SUCCESS) {
                warn("infer-shape", "the InferDataType function of op " + case_.op + " returned failure");
                return;
            }
            for (size_t i = 0; i < node_.outputs.size(); ++i) {
                if (node_.outputs[i].absent) continue;
                ge::DataType got = ctx.output_types()[i];
                ge::DataType want = node_.outputs[i].desc.GetDataType();
                if (got != ge::DT_UNDEFINED && got != want)
                    warn("infer-shape", "InferDataType gives output " + node_.outputs[i].name + " the type " + dtype_name(got) +
                                            ", the case expects " + dtype_name(want));
            }
        }
    }

    void run_tiling(const ops::OpDef& op) {
        auto impl_it = kernelgen::op_impls().find(case_.op);
        const kernelgen::OpImpl* impl = impl_it == kernelgen::op_impls().end() ? nullptr : &impl_it->second;
        if (impl && impl->tiling_parse) {
            node_.compile_info = impl->make_compile_info();
            gert::TilingParseContext pctx(&node_);
            if (impl->tiling_parse(&pctx) != ge::GRAPH_SUCCESS)
                kernelgen::fail("tiling-failed", "the TilingParse function of op " + case_.op + " returned failure", "", 0);
        }
        gert::TilingKernelFunc tiling = op.aicore().tiling() ? op.aicore().tiling() : (impl ? impl->tiling : nullptr);
        tiling_buf_ = std::make_unique<GmBuffer>(kTilingCapacityBytes, 0);
        gert::TilingData raw(tiling_buf_->data(), kTilingCapacityBytes);
        gert::TilingContext ctx(&node_, &raw);
        uint32_t block_dim = case_.block_dim > 0 ? static_cast<uint32_t>(case_.block_dim) : 1;
        if (tiling == nullptr) {
            warn("tiling-mismatch", "op " + case_.op + " registers no tiling function (AICore().SetTiling); block_dim " +
                                        std::to_string(block_dim) + " and an empty tiling buffer are used");
        } else {
            ge::graphStatus st = tiling(&ctx);
            if (st != ge::GRAPH_SUCCESS)
                kernelgen::fail("tiling-failed", "the TilingFunc of op " + case_.op + " returned " + std::to_string(st) + " (failure)", "", 0);
            block_dim = ctx.GetBlockDim();
            if (block_dim == 0)
                kernelgen::fail("block-dim", "the TilingFunc of op " + case_.op + " left blockDim at 0 (call context->SetBlockDim(n))", "", 0);
        }
        block_dim_ = block_dim;
        tiling_key_ = ctx.GetTilingKey();
        tiling_bytes_ = raw.GetDataSize();
        for (size_t w : ctx.workspace_sizes()) user_workspace_ += w;
        check_tiling_size();
    }

    // The kernel reads the whole registered struct: fewer bytes set by the host means the tail
    // reads as zeros (a classic "tiling reads as zeros" bug).
    void check_tiling_size() {
        const auto* cls = kernelgen::find_tiling_class(case_.op);
        if (cls == nullptr) return;
        if (tiling_bytes_ == 0) {
            warn("tiling-mismatch", "the TilingFunc set no tiling data size (GetRawTilingData()->SetDataSize); the kernel's " +
                                        cls->struct_name + " reads as zeros");
        } else if (tiling_bytes_ < cls->bytes) {
            warn("tiling-mismatch", "the TilingFunc set " + std::to_string(tiling_bytes_) + " bytes of tiling data but " +
                                        cls->struct_name + " is " + std::to_string(cls->bytes) + " bytes");
        }
    }

    std::vector<uint8_t*> project_args(const ops::OpDef& op, const std::vector<size_t>& in_ir, const std::vector<size_t>& out_ir) {
        std::vector<uint8_t*> args;
        auto add = [&](const std::deque<ops::OpParamDef>& ir, const std::vector<size_t>& bound, const std::vector<CaseTensor>& ts,
                       std::vector<GmBuffer>& bufs) {
            for (size_t k = 0; k < ir.size(); ++k) {
                std::vector<size_t> hits;
                for (size_t i = 0; i < bound.size(); ++i)
                    if (bound[i] == k) hits.push_back(i);
                if (ir[k].param_type() == ops::DYNAMIC) {
                    args.push_back(tensor_list(ir[k].name(), hits, ts, bufs));
                } else {
                    args.push_back(hits.empty() ? nullptr : bufs[hits[0]].data());
                }
            }
        };
        add(op.inputs(), in_ir, case_.inputs, inputs_);
        const size_t first_output = args.size();
        add(op.outputs(), out_ir, case_.outputs, outputs_);
        alias_in_place_outputs(args, first_output);
        workspace_ = std::make_unique<GmBuffer>(kernelgen::kSysWorkspaceBytes + user_workspace_, 0xFF, kernelgen::kSysWorkspaceBytes);
        args.push_back(workspace_->data());
        args.push_back(tiling_buf_->data());
        expected_arity_ = static_cast<int>(args.size());
        arity_rule_ = std::to_string(op.inputs().size()) + " inputs + " + std::to_string(op.outputs().size()) +
                      " outputs + workspace + tiling";
        return args;
    }

    // A dynamic (tensor-list) parameter reaches the kernel as one GM descriptor, 64-bit
    // little-endian words (README "Dynamic parameters"): [0] the byte offset of the pointer
    // table; per tensor k: (k << 32 | ndim), then its ndim dimensions; then the n data pointers.
    // The buffer element i of a list points at: an output updated in place is its input's buffer
    // (a cache list passed as both, xllm-ops select_unshared_kv), as alias_in_place_outputs makes
    // a plain parameter, read back after the launch.
    uint8_t* list_data(std::vector<GmBuffer>& bufs, size_t i) {
        if (&bufs != &outputs_) return bufs[i].data();
        long in = in_place_input(i);
        if (in < 0) return bufs[i].data();
        aliased_.emplace_back(static_cast<size_t>(in), i);
        return inputs_[static_cast<size_t>(in)].data();
    }

    uint8_t* tensor_list(const std::string& name, const std::vector<size_t>& hits, const std::vector<CaseTensor>& ts,
                         std::vector<GmBuffer>& bufs) {
        std::vector<uint64_t> words{0};
        for (size_t k = 0; k < hits.size(); ++k) {
            const auto& dims = ts[hits[k]].dims;
            words.push_back((static_cast<uint64_t>(k) << 32) | dims.size());
            for (int64_t d : dims) words.push_back(static_cast<uint64_t>(d));
        }
        words[0] = words.size() * sizeof(uint64_t);
        for (size_t i : hits) words.push_back(reinterpret_cast<uint64_t>(list_data(bufs, i)));
        lists_.emplace_back(words.size() * sizeof(uint64_t), 0);
        std::memcpy(lists_.back().data(), words.data(), words.size() * sizeof(uint64_t));
        list_names_.push_back(name + " (tensor list)");
        return lists_.back().data();
    }

    std::vector<uint8_t*> single_file_setup() {
        // A host program that launches the kernel (its own main(), or the sample's main.cpp)
        // runs first, up to the launch: its arguments, block count and tiling key (README
        // "Host launch").
        g_phase = "the host program's main()";
        kernelgen::capture_host_launch();
        g_phase = "the harness";
        const auto& launch = kernelgen::host_launch();
        if (case_.block_dim < 0 && launch.launched && launch.block_dim > 0) case_.block_dim = launch.block_dim;
        if (launch.has_tiling_key) tiling_key_ = launch.tiling_key;
        if (case_.block_dim < 0) case_.block_dim = 1;
        block_dim_ = static_cast<uint32_t>(case_.block_dim);
        std::vector<uint8_t*> args;
        workspace_ = std::make_unique<GmBuffer>(kernelgen::kSysWorkspaceBytes, 0);
        tiling_buf_ = std::make_unique<GmBuffer>(kTilingCapacityBytes, 0);
        if (case_.has_params) return single_file_params();
        for (auto& b : inputs_) args.push_back(b.data());
        for (auto& b : outputs_) args.push_back(b.data());
        // Trailing `workspace` and `tiling` parameters, when the entry has them.
        const auto* k = find_kernel();
        size_t n = args.size();
        if (k->arity >= static_cast<int>(n + 1)) args.push_back(workspace_->data());
        if (k->arity >= static_cast<int>(n + 2)) args.push_back(tiling_buf_->data());
        expected_arity_ = k->arity >= static_cast<int>(n) && k->arity <= static_cast<int>(n + 2) ? k->arity : static_cast<int>(n);
        arity_rule_ = std::to_string(case_.inputs.size()) + " inputs + " + std::to_string(case_.outputs.size()) +
                      " outputs (+ workspace, tiling)";
        return args;
    }

    // The entry's pointer arguments as the case's `params` line orders them: each word the stem
    // of a case tensor (inputs first, then outputs), `workspace`/`tiling`, or input stems in
    // brackets (`[xs.0,xs.1]`): one tensor-list descriptor of those inputs, as a dynamic OpDef
    // input gets. An in-place parameter names its output, which copy_in_place_input started
    // as the input's bytes.
    std::vector<uint8_t*> single_file_params() {
        std::vector<uint8_t*> args;
        for (const std::string& word : case_.params) {
            if (word.size() > 2 && word.front() == '[' && word.back() == ']') {
                args.push_back(param_list(word.substr(1, word.size() - 2)));
                continue;
            }
            if (word.rfind("host:", 0) == 0) {
                args.push_back(host_buffer(word));
                continue;
            }
            if (word == "null") {  // the reference passes None: no buffer, as the caller's null
                args.push_back(nullptr);
                continue;
            }
            uint8_t* p = nullptr;
            for (size_t i = 0; p == nullptr && i < case_.inputs.size(); ++i)
                if (case_.inputs[i].stem == word) p = inputs_[i].data();
            for (size_t o = 0; p == nullptr && o < case_.outputs.size(); ++o)
                if (case_.outputs[o].stem == word) p = outputs_[o].data();
            if (p == nullptr && word == "workspace") p = workspace_->data();
            if (p == nullptr && word == "tiling") p = tiling_buf_->data();
            if (p == nullptr)
                throw HarnessError("params: '" + word + "' is no input or output file stem of the case, nor workspace or tiling");
            args.push_back(p);
        }
        expected_arity_ = static_cast<int>(args.size());
        arity_rule_ = "the case's params line";
        return args;
    }

    // `host:N`: entry parameter N gets a GM buffer holding what the host program's buffer for
    // that argument held at its launch (a tiling its GenerateTiling wrote). `host:N:tiling`,
    // `host:N:workspace`: the harness's own buffer where the program passed none there.
    uint8_t* host_buffer(const std::string& word) {
        const size_t colon = word.find(':', 5);
        const size_t index = std::stoul(word.substr(5, colon == std::string::npos ? std::string::npos : colon - 5));
        const std::string fallback = colon == std::string::npos ? "" : word.substr(colon + 1);
        const auto& launch = kernelgen::host_launch();
        if (!launch.launched || index >= launch.buffers.size() || launch.buffers[index].empty()) {
            if (fallback == "tiling") return tiling_buf_->data();
            if (fallback == "workspace") return workspace_->data();
            throw HarnessError("params: " + word + ": the host program passed no buffer it allocated for that parameter");
        }
        const auto& bytes = launch.buffers[index];
        lists_.emplace_back(bytes.size(), 0);
        std::memcpy(lists_.back().data(), bytes.data(), bytes.size());
        list_names_.push_back("parameter " + std::to_string(index) + " (from the host program)");
        return lists_.back().data();
    }

    uint8_t* param_list(const std::string& stems) {
        std::vector<size_t> hits;
        std::stringstream in(stems);
        for (std::string stem; std::getline(in, stem, ',');) {
            size_t i = 0;
            while (i < case_.inputs.size() && case_.inputs[i].stem != stem) ++i;
            if (i == case_.inputs.size())
                throw HarnessError("params: list member '" + stem + "' is no input file stem of the case");
            hits.push_back(i);
        }
        return tensor_list(case_.inputs[hits.front()].name, hits, case_.inputs, inputs_);
    }

    const kernelgen::KernelInfo* find_kernel() const {
        std::string known;
        for (const auto& k : kernelgen::kernels()) {
            if (k.name == case_.kernel) return &k;
            known += (known.empty() ? "" : ", ") + k.name;
        }
        throw HarnessError("kernel '" + case_.kernel + "' is not linked into this binary (linked: " + (known.empty() ? "none" : known) + ")");
    }

    void launch(const std::vector<uint8_t*>& args) {
        const auto* k = find_kernel();
        auto& chip = kernelgen::chip();
        kernelgen::state().block_dim = block_dim_;
        kernelgen::tiling_key() = tiling_key_;
        kernelgen::sys_workspace() = workspace_->data();
        kernelgen::report_set_field("tiling_key", std::to_string(tiling_key_));
        kernelgen::report_set_field("workspace_bytes", std::to_string(workspace_->bytes()));
        kernelgen::report_set_field("tiling_bytes", std::to_string(tiling_bytes_));
        if (block_dim_ < 1 || block_dim_ > kMaxBlockDim)
            kernelgen::fail("block-dim", "blockDim " + std::to_string(block_dim_) + " is outside [1, 65535]", "", 0);
        // Vector kernels above the core count run in waves (a warning); a mix or cube kernel above
        // the cube cores, or SyncAll above the cores, deadlocks: the runtime's scheduler fails
        // those with `block-dim` (runtime.h).
        const kernelgen::CoreLayout layout = kernelgen::declared_layout();
        const uint32_t cores = kernelgen::cores_for(layout);
        if (!kernelgen::is_mix(layout) && block_dim_ > cores)
            warn("block-dim", "blockDim " + std::to_string(block_dim_) + " exceeds the " + std::to_string(cores) + " cores of " +
                                  chip.name + ": vector kernels run in waves; mix kernels and kernels that call SyncAll would hang");
        if (k->arity != expected_arity_)
            kernelgen::fail("tiling-mismatch", "kernel " + k->name + " takes " + std::to_string(k->arity) + " parameters but the run passes " +
                                                   std::to_string(args.size()) + " (" + arity_rule_ + ")", "", 0);

        kernelgen::gm_clear();
        for (size_t i = 0; i < inputs_.size(); ++i)
            kernelgen::gm_register(inputs_[i].data(), inputs_[i].bytes(), case_.inputs[i].name, inputs_[i].block_bytes(),
                                   inputs_[i].segment_bytes());
        for (size_t i = 0; i < outputs_.size(); ++i)
            kernelgen::gm_register(outputs_[i].data(), outputs_[i].bytes(), case_.outputs[i].name, outputs_[i].block_bytes(),
                                   outputs_[i].segment_bytes());
        for (size_t i = 0; i < lists_.size(); ++i) kernelgen::gm_register(lists_[i].data(), lists_[i].bytes(), list_names_[i]);
        kernelgen::gm_register(workspace_->data(), workspace_->bytes(), "workspace");
        kernelgen::gm_register(tiling_buf_->data(), tiling_buf_->bytes(), "tiling");

        std::vector<uint8_t*> a = args;
        a.resize(static_cast<size_t>(k->arity), nullptr);
        const kernelgen::KernelEntry entry = k->entry;
        g_phase = nullptr;
        kernelgen::launch(block_dim_, [&] {
            poison_stack();
            entry(a.data());
        });
        g_phase = "the harness";
    }

    void write_output(const CaseTensor& t, const GmBuffer& b) const {
        FILE* f = std::fopen(t.path.c_str(), "wb");
        if (f == nullptr) throw HarnessError("output " + t.name + ": cannot write " + t.path + ": " + std::strerror(errno));
        bool ok = t.bytes() == 0 || std::fwrite(b.data(), 1, t.bytes(), f) == t.bytes();
        ok = std::fclose(f) == 0 && ok;
        if (!ok) throw HarnessError("output " + t.name + ": short write to " + t.path);
    }

    void warn(const std::string& code, const std::string& message) { kernelgen::warn(code.c_str(), message, "", 0); }

    Case case_;
    std::string report_;
    std::vector<GmBuffer> inputs_;
    std::vector<std::pair<CaseTensor, size_t>> read_backs_;  // (output, the input it reads back)
    std::vector<GmBuffer> outputs_;
    std::vector<std::pair<size_t, size_t>> aliased_;  // (input, output) one buffer (in place)
    std::deque<GmBuffer> lists_;  // tensor-list descriptors; buffers from the host program
    std::vector<std::string> list_names_;
    std::unique_ptr<GmBuffer> workspace_;
    std::unique_ptr<GmBuffer> tiling_buf_;
    gert::NodeData node_;
    uint32_t block_dim_ = 1;
    uint64_t tiling_key_ = 0;
    size_t tiling_bytes_ = 0;
    uint64_t user_workspace_ = 0;
    int expected_arity_ = 0;
    std::string arity_rule_;
};

void on_crash(int sig) {
    const char* what = sig == SIGSEGV ? "SIGSEGV (an invalid memory access)"
                       : sig == SIGFPE ? "SIGFPE (an integer division by zero?)"
                       : sig == SIGBUS ? "SIGBUS (a misaligned or invalid access)"
                                       : "SIGILL";
    char buf[256];
    const char* phase = g_phase;
    const int n = phase ? std::snprintf(buf, sizeof buf, "harness: %s in %s\n", what, phase)
                        : std::snprintf(buf, sizeof buf, "harness: %s in the kernel, block %d\n", what,
                                        kernelgen::t_block_idx);
    if (n > 0) (void)!write(2, buf, static_cast<size_t>(n));
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

void report_crashes() {
    for (int sig : {SIGSEGV, SIGFPE, SIGBUS, SIGILL}) std::signal(sig, on_crash);
}

int usage() {
    std::fprintf(stderr, "usage: harness --describe OUT.json | harness CASE.txt REPORT.json\n");
    return kExitHarnessError;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) return usage();
    report_crashes();
    const std::string a1 = argv[1];
    try {
        if (a1 == "--describe") {
            write_text(argv[2], describe_json());
            return 0;
        }
        Case c = CaseParser(a1).parse();
        return Run(std::move(c), argv[2]).execute();
    } catch (const HarnessError& e) {
        std::fprintf(stderr, "harness: %s\n", e.what());
        return kExitHarnessError;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "harness: the op's host code threw: %s\n", e.what());
        return kExitHostCrash;
    }
}
