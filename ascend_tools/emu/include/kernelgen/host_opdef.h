// ops::OpDef, the builder an operator project's op_host/<op>.cpp uses to declare its inputs,
// outputs, attributes and registered functions, and the registry OP_ADD fills. The harness reads
// the registry (describe mode, and to find an op's TilingFunc). Builder calls the emulator does
// not act on (flags, check-support callbacks) are recorded or accepted so sources compile.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/types.h"
#include "kernelgen/host_gert.h"

namespace ge {
class Operator {};  // only passed to check-support callbacks, which the emulator never calls
}  // namespace ge

namespace ops {

enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };
enum DependScope { ALL = 0, TILING = 1 };
enum FollowType { ALL_TYPE = 0, DTYPE = 1, FORMAT = 2, SHAPE = 3 };

using OP_CHECK_FUNC = ge::graphStatus (*)(const ge::Operator&, ge::AscendString&);

class OpParamDef {
  public:
    explicit OpParamDef(const char* name) : name_(name ? name : "") {}

    OpParamDef& ParamType(Option o) { return (param_type_ = o), *this; }
    OpParamDef& DataType(std::vector<ge::DataType> v) { return (dtypes_ = std::move(v)), *this; }
    OpParamDef& DataTypeList(std::vector<ge::DataType> v) {
        dtypes_ = std::move(v);
        dtype_list_ = true;
        return *this;
    }
    OpParamDef& Format(std::vector<ge::Format> v) { return (formats_ = std::move(v)), *this; }
    OpParamDef& FormatList(std::vector<ge::Format> v) {
        formats_ = std::move(v);
        format_list_ = true;
        return *this;
    }
    OpParamDef& UnknownShapeFormat(std::vector<ge::Format> v) { return (unknown_formats_ = std::move(v)), *this; }
    OpParamDef& ValueDepend(Option o) { return (value_depend_ = o), *this; }
    OpParamDef& ValueDepend(Option o, DependScope) { return ValueDepend(o); }
    OpParamDef& Follow(const char* other) { return (follow_ = other ? other : ""), *this; }
    OpParamDef& Follow(const char* other, FollowType) { return Follow(other); }
    OpParamDef& AutoContiguous() { return *this; }
    OpParamDef& IgnoreContiguous() { return *this; }
    OpParamDef& Scalar() { return *this; }
    OpParamDef& ScalarList() { return *this; }
    OpParamDef& To(ge::DataType) { return *this; }
    OpParamDef& To(const char*) { return *this; }
    OpParamDef& Version(uint32_t) { return *this; }
    // The framework fills the output's GM with this value before the launch (the reference's
    // InitValue: with SetNeedAtomic(true), the uint64_t form takes only 0 and zeroes it). The
    // typed ScalarVar forms are not emulated (they do not compile here).
    OpParamDef& InitValue(uint64_t v) {
        init_value_ = v;
        has_init_value_ = true;
        return *this;
    }
    OpParamDef& OutputShapeDependOnCompute() { return *this; }
    OpParamDef& Comment(const char*) { return *this; }

    const std::string& name() const { return name_; }
    Option param_type() const { return param_type_; }
    const std::vector<ge::DataType>& dtypes() const { return dtypes_; }
    bool dtype_list() const { return dtype_list_; }
    const std::vector<ge::Format>& formats() const { return formats_; }
    bool format_list() const { return format_list_; }
    const std::string& follow() const { return follow_; }
    Option value_depend() const { return value_depend_; }
    bool has_init_value() const { return has_init_value_; }
    uint64_t init_value() const { return init_value_; }

  private:
    std::string name_;
    Option param_type_ = REQUIRED;
    std::vector<ge::DataType> dtypes_;
    bool dtype_list_ = false;
    std::vector<ge::Format> formats_;
    bool format_list_ = false;
    std::vector<ge::Format> unknown_formats_;
    std::string follow_;
    Option value_depend_ = IGNORE;
    bool has_init_value_ = false;
    uint64_t init_value_ = 0;
};

// Attribute kinds as the describe output and the case file name them.
enum class AttrKind { None, Int, Float, Bool, Str, ListInt, ListFloat, ListBool, ListListInt };

class OpAttrDef {
  public:
    explicit OpAttrDef(const char* name) : name_(name ? name : "") {}

    OpAttrDef& AttrType(Option o) { return (attr_type_ = o), *this; }
    OpAttrDef& Int() { return kind(AttrKind::Int); }
    OpAttrDef& Int(int64_t v) { return (i_ = v), dflt(AttrKind::Int); }
    OpAttrDef& Float() { return kind(AttrKind::Float); }
    OpAttrDef& Float(float v) { return (f_ = v), dflt(AttrKind::Float); }
    OpAttrDef& Bool() { return kind(AttrKind::Bool); }
    OpAttrDef& Bool(bool v) { return (b_ = v), dflt(AttrKind::Bool); }
    OpAttrDef& String() { return kind(AttrKind::Str); }
    OpAttrDef& String(const char* v) { return (s_ = v ? v : ""), dflt(AttrKind::Str); }
    OpAttrDef& ListInt() { return kind(AttrKind::ListInt); }
    OpAttrDef& ListInt(std::vector<int64_t> v) { return (li_ = std::move(v)), dflt(AttrKind::ListInt); }
    OpAttrDef& ListFloat() { return kind(AttrKind::ListFloat); }
    OpAttrDef& ListFloat(std::vector<float> v) { return (lf_ = std::move(v)), dflt(AttrKind::ListFloat); }
    OpAttrDef& ListBool() { return kind(AttrKind::ListBool); }
    OpAttrDef& ListBool(std::vector<bool> v) { return (lb_ = std::move(v)), dflt(AttrKind::ListBool); }
    OpAttrDef& ListListInt() { return kind(AttrKind::ListListInt); }
    OpAttrDef& ListListInt(std::vector<std::vector<int64_t>>) { return dflt(AttrKind::ListListInt); }
    OpAttrDef& Version(uint32_t) { return *this; }
    OpAttrDef& Comment(const char*) { return *this; }

    const std::string& name() const { return name_; }
    bool required() const { return attr_type_ == REQUIRED; }
    AttrKind attr_kind() const { return kind_; }
    bool has_default() const { return has_default_; }
    int64_t int_default() const { return i_; }
    float float_default() const { return f_; }
    bool bool_default() const { return b_; }
    const std::string& str_default() const { return s_; }
    const std::vector<int64_t>& list_int_default() const { return li_; }
    const std::vector<float>& list_float_default() const { return lf_; }
    const std::vector<bool>& list_bool_default() const { return lb_; }

  private:
    OpAttrDef& kind(AttrKind k) { return (kind_ = k), *this; }
    OpAttrDef& dflt(AttrKind k) { return (has_default_ = true), kind(k); }

    std::string name_;
    Option attr_type_ = REQUIRED;
    AttrKind kind_ = AttrKind::None;
    bool has_default_ = false;
    int64_t i_ = 0;
    float f_ = 0.0f;
    bool b_ = false;
    std::string s_;
    std::vector<int64_t> li_;
    std::vector<float> lf_;
    std::vector<bool> lb_;
};

// Per-SoC AI Core configuration flags (recorded, not acted on by the emulator).
class OpAICoreConfig {
  public:
    OpAICoreConfig() = default;
    explicit OpAICoreConfig(const char*) {}
    // AsyncFlag and RangeLimitValue: earlier releases' settings, still in their samples.
    OpAICoreConfig& AsyncFlag(bool) { return *this; }
    OpAICoreConfig& RangeLimitValue(const char*) { return *this; }
    OpAICoreConfig& DynamicCompileStaticFlag(bool) { return *this; }
    OpAICoreConfig& DynamicFormatFlag(bool) { return *this; }
    OpAICoreConfig& DynamicRankSupportFlag(bool) { return *this; }
    OpAICoreConfig& DynamicShapeSupportFlag(bool) { return *this; }
    OpAICoreConfig& NeedCheckSupportFlag(bool) { return *this; }
    OpAICoreConfig& PrecisionReduceFlag(bool) { return *this; }
    OpAICoreConfig& ExtendCfgInfo(const char*, const char*) { return *this; }
    OpParamDef& Input(const char* name) { return params_.emplace_back(name), params_.back(); }
    OpParamDef& Output(const char* name) { return params_.emplace_back(name), params_.back(); }

  private:
    std::deque<OpParamDef> params_;
};

class OpAICoreDef {
  public:
    OpAICoreDef& SetTiling(gert::TilingKernelFunc f) { return (tiling_ = f), *this; }
    OpAICoreDef& SetTilingParse(gert::TilingParseKernelFunc) { return *this; }
    // Earlier CANN releases documented these callbacks as returning int32_t; both forms are taken.
    OpAICoreDef& SetCheckSupport(OP_CHECK_FUNC) { return *this; }
    OpAICoreDef& SetCheckSupport(int32_t (*)(const ge::Operator&, ge::AscendString&)) { return *this; }
    OpAICoreDef& SetOpSelectFormat(OP_CHECK_FUNC) { return *this; }
    OpAICoreDef& SetOpSelectFormat(int32_t (*)(const ge::Operator&, ge::AscendString&)) { return *this; }
    OpAICoreDef& SetOpSupportInfo(OP_CHECK_FUNC) { return *this; }
    OpAICoreDef& SetOpSupportInfo(int32_t (*)(const ge::Operator&, ge::AscendString&)) { return *this; }
    OpAICoreDef& SetOpSpecInfo(OP_CHECK_FUNC) { return *this; }
    OpAICoreDef& SetOpSpecInfo(int32_t (*)(const ge::Operator&, ge::AscendString&)) { return *this; }
    OpAICoreDef& SetParamGeneralize(OP_CHECK_FUNC) { return *this; }
    OpAICoreDef& SetParamGeneralize(int32_t (*)(const ge::Operator&, ge::AscendString&)) { return *this; }
    OpAICoreDef& AddConfig(const char* soc) { return configs_.emplace_back(soc ? soc : ""), *this; }
    OpAICoreDef& AddConfig(const char* soc, OpAICoreConfig&) { return AddConfig(soc); }

    gert::TilingKernelFunc tiling() const { return tiling_; }
    const std::vector<std::string>& configs() const { return configs_; }

  private:
    gert::TilingKernelFunc tiling_ = nullptr;
    std::vector<std::string> configs_;
};

class OpDef {
  public:
    explicit OpDef(const char* type) : type_(type ? type : "") {}
    virtual ~OpDef() = default;
    OpDef(const OpDef&) = delete;
    OpDef& operator=(const OpDef&) = delete;

    OpParamDef& Input(const char* name) { return inputs_.emplace_back(name), inputs_.back(); }
    OpParamDef& Output(const char* name) { return outputs_.emplace_back(name), outputs_.back(); }
    OpAttrDef& Attr(const char* name) { return attrs_.emplace_back(name), attrs_.back(); }
    OpDef& SetInferShape(gert::InferShapeKernelFunc f) { return (infer_shape_ = f), *this; }
    OpDef& SetInferShapeRange(gert::InferShapeRangeKernelFunc) { return *this; }
    OpDef& SetInferDataType(gert::InferDataTypeKernelFunc f) { return (infer_dtype_ = f), *this; }
    OpDef& Comment(const char*) { return *this; }
    OpDef& EnableFallBack() { return *this; }
    OpAICoreDef& AICore() { return aicore_; }

    const std::string& GetOpType() const { return type_; }
    const std::deque<OpParamDef>& inputs() const { return inputs_; }
    const std::deque<OpParamDef>& outputs() const { return outputs_; }
    const std::deque<OpAttrDef>& attrs() const { return attrs_; }
    const OpAICoreDef& aicore() const { return aicore_; }
    gert::InferShapeKernelFunc infer_shape() const { return infer_shape_; }
    gert::InferDataTypeKernelFunc infer_dtype() const { return infer_dtype_; }

  private:
    std::string type_;
    // deque: references returned by Input()/Attr() stay valid while more are added.
    std::deque<OpParamDef> inputs_;
    std::deque<OpParamDef> outputs_;
    std::deque<OpAttrDef> attrs_;
    gert::InferShapeKernelFunc infer_shape_ = nullptr;
    gert::InferDataTypeKernelFunc infer_dtype_ = nullptr;
    OpAICoreDef aicore_;
};

inline std::vector<std::unique_ptr<OpDef>>& op_registry() {
    static std::vector<std::unique_ptr<OpDef>> v;
    return v;
}

template <class Op>
bool register_op(const char* type) {
    op_registry().push_back(std::unique_ptr<OpDef>(new Op(type)));
    return true;
}

inline const OpDef* find_op(const std::string& type) {
    for (const auto& op : op_registry())
        if (op->GetOpType() == type) return op.get();
    return nullptr;
}

}  // namespace ops

#define OP_ADD(op_type, ...) \
    static const bool kernelgen_op_added_##op_type = ::ops::register_op<op_type>(#op_type)
