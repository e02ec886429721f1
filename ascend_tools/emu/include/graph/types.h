// ge::DataType, ge::Format and ge::graphStatus as operator projects use them, plus the table
// that names them (the harness, the describe output and ge::TypeUtils all read that one table).
// Enumerator values follow the documented ge enums so code that stores them stays meaningful.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace ge {

using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFFu;
constexpr graphStatus GRAPH_PARAM_INVALID = 50331649u;

enum DataType {
    DT_FLOAT = 0,
    DT_FLOAT16 = 1,
    DT_INT8 = 2,
    DT_INT32 = 3,
    DT_UINT8 = 4,
    DT_INT16 = 6,
    DT_UINT16 = 7,
    DT_UINT32 = 8,
    DT_INT64 = 9,
    DT_UINT64 = 10,
    DT_DOUBLE = 11,
    DT_BOOL = 12,
    DT_STRING = 13,
    DT_COMPLEX64 = 16,
    DT_COMPLEX128 = 17,
    DT_BF16 = 27,
    DT_BFLOAT16 = DT_BF16,  // matmul_tiling::DataType's spelling (that enum is this one here)
    DT_UNDEFINED = 28,
    DT_INT4 = 29,
    DT_COMPLEX32 = 33,
    DT_MAX = 34
};

enum Format {
    FORMAT_NCHW = 0,
    FORMAT_NHWC = 1,
    FORMAT_ND = 2,
    FORMAT_NC1HWC0 = 3,
    FORMAT_FRACTAL_Z = 4,
    FORMAT_HWCN = 16,
    FORMAT_FRACTAL_NZ = 29,
    FORMAT_NCDHW = 30,
    FORMAT_NDHWC = 31,
    FORMAT_NCL = 47,
    FORMAT_RESERVED = 40,
    FORMAT_ALL = 41,
    FORMAT_NULL = 42,
    FORMAT_MAX = 0xff
};

// One row per data type: the case-file / describe name (empty: not usable in a case), the
// serial name ge::TypeUtils prints, and the element size in bytes.
struct DataTypeFacts {
    DataType type;
    const char* name;
    const char* serial;
    uint32_t bytes;
};

inline constexpr DataTypeFacts kDataTypeTable[] = {
    {DT_FLOAT, "float32", "DT_FLOAT", 4},      {DT_FLOAT16, "float16", "DT_FLOAT16", 2},
    {DT_BF16, "bfloat16", "DT_BF16", 2},       {DT_INT8, "int8", "DT_INT8", 1},
    {DT_INT16, "int16", "DT_INT16", 2},        {DT_INT32, "int32", "DT_INT32", 4},
    {DT_INT64, "int64", "DT_INT64", 8},        {DT_UINT8, "uint8", "DT_UINT8", 1},
    {DT_UINT16, "uint16", "DT_UINT16", 2},     {DT_UINT32, "uint32", "DT_UINT32", 4},
    {DT_UINT64, "uint64", "DT_UINT64", 8},     {DT_BOOL, "bool", "DT_BOOL", 1},
    {DT_DOUBLE, "float64", "DT_DOUBLE", 8},    {DT_COMPLEX64, "complex64", "DT_COMPLEX64", 8},
    {DT_COMPLEX128, "complex128", "DT_COMPLEX128", 16},
    {DT_COMPLEX32, "complex32", "DT_COMPLEX32", 4},
    {DT_STRING, "", "DT_STRING", 0},           {DT_INT4, "", "DT_INT4", 0},
    {DT_UNDEFINED, "", "DT_UNDEFINED", 0},
};

inline const DataTypeFacts* data_type_facts(DataType t) {
    for (const auto& f : kDataTypeTable)
        if (f.type == t) return &f;
    return nullptr;
}

// Case-file name ("float16") -> facts, or nullptr.
inline const DataTypeFacts* data_type_by_name(const std::string& name) {
    for (const auto& f : kDataTypeTable)
        if (*f.name && name == f.name) return &f;
    return nullptr;
}

inline uint32_t GetSizeByDataType(DataType t) {
    const auto* f = data_type_facts(t);
    return f ? f->bytes : 0;
}

struct FormatFacts {
    Format format;
    const char* name;  // describe name; ge::TypeUtils prefixes nothing (vendor prints "ND")
};

inline constexpr FormatFacts kFormatTable[] = {
    {FORMAT_NCHW, "NCHW"},       {FORMAT_NHWC, "NHWC"},       {FORMAT_ND, "ND"},
    {FORMAT_NC1HWC0, "NC1HWC0"}, {FORMAT_FRACTAL_Z, "FRACTAL_Z"}, {FORMAT_HWCN, "HWCN"},
    {FORMAT_FRACTAL_NZ, "FRACTAL_NZ"}, {FORMAT_NCDHW, "NCDHW"}, {FORMAT_NDHWC, "NDHWC"},
    {FORMAT_NCL, "NCL"},         {FORMAT_RESERVED, "RESERVED"}, {FORMAT_ALL, "ALL"},
    {FORMAT_NULL, "NULL"},
};

inline const char* format_name(Format f) {
    for (const auto& r : kFormatTable)
        if (r.format == f) return r.name;
    return "UNKNOWN";
}

// A string type some registration callbacks take (SetCheckSupport, GetNodeName users).
class AscendString {
  public:
    AscendString() = default;
    AscendString(const char* s) : s_(s ? s : "") {}  // NOLINT: implicit like the vendor type
    const char* GetString() const { return s_.c_str(); }
    size_t GetLength() const { return s_.size(); }
    bool operator==(const AscendString& o) const { return s_ == o.s_; }
    bool operator<(const AscendString& o) const { return s_ < o.s_; }

  private:
    std::string s_;
};

}  // namespace ge

#include <vector>

namespace ge {

// ge::Shape as the high-level API host helpers take it (GetSoftMaxMaxTmpSize and friends).
class Shape {
  public:
    Shape() = default;
    explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}
    const std::vector<int64_t>& GetDims() const { return dims_; }
    size_t GetDimNum() const { return dims_.size(); }
    int64_t GetDim(size_t i) const { return i < dims_.size() ? dims_[i] : 0; }
    graphStatus SetDim(size_t i, int64_t v) {
        if (i >= dims_.size()) return GRAPH_FAILED;
        dims_[i] = v;
        return GRAPH_SUCCESS;
    }
    int64_t GetShapeSize() const {
        int64_t n = 1;
        for (int64_t d : dims_) n *= d;
        return dims_.empty() ? 0 : n;
    }

  private:
    std::vector<int64_t> dims_;
};

}  // namespace ge
