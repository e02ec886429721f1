// gert:: runtime types a TilingFunc / InferShape / InferDataType function sees: Shape,
// StorageShape, Tensor, tensor descriptions, attributes and the contexts. The harness fills one
// NodeData per run (inputs as given by the case, attrs in OpDef order) and hands out contexts
// that view it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "graph/types.h"
#include "platform/platform_info.h"

namespace gert {

class Shape {
  public:
    static constexpr size_t kMaxDimNum = 25;
    static constexpr int64_t kInvalidDimValue = std::numeric_limits<int64_t>::min();

    Shape() = default;
    Shape(std::initializer_list<int64_t> dims) {
        for (int64_t d : dims) AppendDim(d);
    }

    size_t GetDimNum() const { return dim_num_; }
    Shape& SetDimNum(size_t n) {
        dim_num_ = n < kMaxDimNum ? n : kMaxDimNum;
        return *this;
    }
    int64_t GetDim(size_t i) const { return i < dim_num_ ? dims_[i] : kInvalidDimValue; }
    Shape& SetDim(size_t i, int64_t v) {
        if (i < kMaxDimNum) dims_[i] = v;
        return *this;
    }
    Shape& AppendDim(int64_t v) {
        if (dim_num_ < kMaxDimNum) dims_[dim_num_++] = v;
        return *this;
    }
    bool IsScalar() const { return dim_num_ == 0; }
    // Element count; 1 for a scalar, -1 when a dimension is unknown (negative).
    int64_t GetShapeSize() const {
        int64_t n = 1;
        for (size_t i = 0; i < dim_num_; ++i) {
            if (dims_[i] < 0) return -1;
            n *= dims_[i];
        }
        return n;
    }
    int64_t operator[](size_t i) const { return dims_[i]; }
    int64_t& operator[](size_t i) { return dims_[i]; }
    bool operator==(const Shape& o) const {
        if (dim_num_ != o.dim_num_) return false;
        for (size_t i = 0; i < dim_num_; ++i)
            if (dims_[i] != o.dims_[i]) return false;
        return true;
    }
    bool operator!=(const Shape& o) const { return !(*this == o); }

  private:
    size_t dim_num_ = 0;
    int64_t dims_[kMaxDimNum] = {};
};

class StorageShape {
  public:
    StorageShape() = default;
    StorageShape(std::initializer_list<int64_t> origin, std::initializer_list<int64_t> storage)
        : origin_(origin), storage_(storage) {}
    StorageShape(const Shape& origin, const Shape& storage) : origin_(origin), storage_(storage) {}

    const Shape& GetOriginShape() const { return origin_; }
    const Shape& GetStorageShape() const { return storage_; }
    const Shape& GetViewShape() const { return storage_; }  // views are not modelled
    Shape& MutableOriginShape() { return origin_; }
    Shape& MutableStorageShape() { return storage_; }

  private:
    Shape origin_;
    Shape storage_;
};

class StorageFormat {
  public:
    StorageFormat() = default;
    StorageFormat(ge::Format origin, ge::Format storage) : origin_(origin), storage_(storage) {}
    ge::Format GetOriginFormat() const { return origin_; }
    ge::Format GetStorageFormat() const { return storage_; }
    void SetOriginFormat(ge::Format f) { origin_ = f; }
    void SetStorageFormat(ge::Format f) { storage_ = f; }

  private:
    ge::Format origin_ = ge::FORMAT_ND;
    ge::Format storage_ = ge::FORMAT_ND;
};

class CompileTimeTensorDesc {
  public:
    ge::DataType GetDataType() const { return data_type_; }
    void SetDataType(ge::DataType t) { data_type_ = t; }
    const StorageFormat& GetFormat() const { return format_; }
    ge::Format GetStorageFormat() const { return format_.GetStorageFormat(); }
    ge::Format GetOriginFormat() const { return format_.GetOriginFormat(); }
    void SetFormat(ge::Format f) { format_ = StorageFormat(f, f); }

  private:
    ge::DataType data_type_ = ge::DT_FLOAT;
    StorageFormat format_;
};

// A tensor the tiling function may read (value-dependent inputs): shape, dtype and host data.
class Tensor {
  public:
    const StorageShape& GetShape() const { return shape_; }
    const Shape& GetStorageShape() const { return shape_.GetStorageShape(); }
    const Shape& GetOriginShape() const { return shape_.GetOriginShape(); }
    StorageShape& MutableShape() { return shape_; }
    int64_t GetShapeSize() const { return shape_.GetStorageShape().GetShapeSize(); }
    ge::DataType GetDataType() const { return data_type_; }
    ge::Format GetStorageFormat() const { return format_.GetStorageFormat(); }
    ge::Format GetOriginFormat() const { return format_.GetOriginFormat(); }
    const void* GetAddr() const { return addr_; }
    template <class T>
    const T* GetData() const {
        return static_cast<const T*>(addr_);
    }
    size_t GetSize() const { return bytes_; }

    void Set(const StorageShape& shape, ge::DataType dt, ge::Format f, const void* addr, size_t bytes) {
        shape_ = shape;
        data_type_ = dt;
        format_ = StorageFormat(f, f);
        addr_ = addr;
        bytes_ = bytes;
    }

  private:
    StorageShape shape_;
    ge::DataType data_type_ = ge::DT_FLOAT;
    StorageFormat format_;
    const void* addr_ = nullptr;
    size_t bytes_ = 0;
};

// List attributes: a header {capacity, size} followed by the elements, as the vendor lays it out
// (kernels read it through GetAttrPointer<gert::ContinuousVector>(i)->GetData()).
class ContinuousVector {
  public:
    size_t GetSize() const { return size_; }
    size_t GetCapacity() const { return capacity_; }
    const void* GetData() const { return reinterpret_cast<const uint8_t*>(this) + sizeof(*this); }

  private:
    size_t capacity_ = 0;
    size_t size_ = 0;
};

template <class T>
class TypedContinuousVector : public ContinuousVector {
  public:
    const T* GetData() const { return static_cast<const T*>(ContinuousVector::GetData()); }
};

// Attribute values in OpDef order, each in its own 8-byte-aligned blob: int as int64_t, float
// as float, bool as bool, str as NUL-terminated chars, lists as a ContinuousVector.
class RuntimeAttrs {
  public:
    template <class T>
    const T* GetAttrPointer(size_t i) const {
        return i < blobs_.size() ? reinterpret_cast<const T*>(blobs_[i].data()) : nullptr;
    }
    const int64_t* GetInt(size_t i) const { return GetAttrPointer<int64_t>(i); }
    const float* GetFloat(size_t i) const { return GetAttrPointer<float>(i); }
    const bool* GetBool(size_t i) const { return GetAttrPointer<bool>(i); }
    const char* GetStr(size_t i) const { return GetAttrPointer<char>(i); }
    const TypedContinuousVector<int64_t>* GetListInt(size_t i) const {
        return GetAttrPointer<TypedContinuousVector<int64_t>>(i);
    }
    const TypedContinuousVector<float>* GetListFloat(size_t i) const {
        return GetAttrPointer<TypedContinuousVector<float>>(i);
    }
    const TypedContinuousVector<bool>* GetListBool(size_t i) const {
        return GetAttrPointer<TypedContinuousVector<bool>>(i);
    }
    size_t GetAttrNum() const { return blobs_.size(); }

    // Builders (harness).
    void AppendRaw(const void* data, size_t bytes) {
        std::vector<uint64_t> blob((bytes + 7) / 8 + 1, 0);
        if (bytes) std::memcpy(blob.data(), data, bytes);
        blobs_.push_back(std::move(blob));
    }
    template <class T>
    void AppendList(const std::vector<T>& v) {
        const size_t header = sizeof(ContinuousVector);
        std::vector<uint8_t> raw(header + sizeof(T) * v.size());
        const size_t n[2] = {v.size(), v.size()};  // capacity, size
        std::memcpy(raw.data(), n, sizeof n);
        for (size_t k = 0; k < v.size(); ++k) {
            T x = v[k];
            std::memcpy(raw.data() + header + k * sizeof(T), &x, sizeof(T));
        }
        AppendRaw(raw.data(), raw.size());
    }

  private:
    std::vector<std::vector<uint64_t>> blobs_;
};

// One input or output instance of the node (dynamic inputs have several per IR entry). An
// OPTIONAL input the launch leaves out keeps its instance index (`absent`, no tensor): on the
// single-operator (aclnn) path a host reads the inputs after it at their OpDef positions
// (DrivingSDK's deformable_conv2d reads offset, input 3, with GetInputShape(3) while bias, input
// 2, is always absent, and runs on the NPU); the accessors give nullptr for the absent slot.
struct TensorSlot {
    size_t ir_index = 0;
    bool absent = false;
    std::string name;
    StorageShape shape;
    CompileTimeTensorDesc desc;
    Tensor tensor;
};

// Everything the contexts view; filled by the harness.
struct NodeData {
    std::string node_name;
    std::string node_type;
    std::vector<TensorSlot> inputs;
    std::vector<TensorSlot> outputs;
    RuntimeAttrs attrs;
    fe::PlatFormInfos platform;
    std::shared_ptr<void> compile_info;  // made by the op's TilingParse, if any
};

// Vendor ExtendedKernelContext: the accessors all op contexts share.
class ExtendedKernelContext {
  public:
    explicit ExtendedKernelContext(NodeData* node) : node_(node) {}

    const char* GetNodeName() const { return node_->node_name.c_str(); }
    const char* GetNodeType() const { return node_->node_type.c_str(); }
    const RuntimeAttrs* GetAttrs() const { return &node_->attrs; }
    size_t GetComputeNodeInputNum() const { return node_->inputs.size(); }
    size_t GetComputeNodeOutputNum() const { return node_->outputs.size(); }

    const CompileTimeTensorDesc* GetInputDesc(size_t i) const { return desc_of(input(i)); }
    const CompileTimeTensorDesc* GetOutputDesc(size_t i) const { return desc_of(output(i)); }
    const CompileTimeTensorDesc* GetOptionalInputDesc(size_t ir) const { return desc_of(ir_input(ir, 0)); }
    // GetRequired*(ir) / GetOptional*(ir): the input by its index among the OpDef's inputs (IR
    // index), which differs from the instance index GetInput*(i) takes where a dynamic input
    // before it has several instances.
    const CompileTimeTensorDesc* GetRequiredInputDesc(size_t ir) const { return desc_of(ir_input(ir, 0)); }
    const CompileTimeTensorDesc* GetDynamicInputDesc(size_t ir, size_t rel) const { return desc_of(ir_input(ir, rel)); }

  protected:
    // Instance i counting every instance (GetInputShape(i) and the like), or nullptr past the end.
    const TensorSlot* input(size_t i) const {
        return i < node_->inputs.size() && !node_->inputs[i].absent ? &node_->inputs[i] : nullptr;
    }
    const TensorSlot* output(size_t i) const {
        return i < node_->outputs.size() && !node_->outputs[i].absent ? &node_->outputs[i] : nullptr;
    }
    // The rel-th instance of input IR entry `ir`, or nullptr (absent optional input).
    const TensorSlot* ir_input(size_t ir, size_t rel) const {
        for (const auto& s : node_->inputs) {
            if (s.ir_index != ir || s.absent) continue;
            if (rel == 0) return &s;
            --rel;
        }
        return nullptr;
    }
    // The parts of a slot the accessors hand out; nullptr (DT_UNDEFINED) for no slot.
    static const CompileTimeTensorDesc* desc_of(const TensorSlot* s) { return s ? &s->desc : nullptr; }
    static const StorageShape* shape_of(const TensorSlot* s) { return s ? &s->shape : nullptr; }
    static const Shape* origin_shape_of(const TensorSlot* s) { return s ? &s->shape.GetOriginShape() : nullptr; }
    static const Tensor* tensor_of(const TensorSlot* s) { return s ? &s->tensor : nullptr; }
    static ge::DataType dtype_of(const TensorSlot* s) { return s ? s->desc.GetDataType() : ge::DT_UNDEFINED; }

    NodeData* node_;
};

// Raw tiling bytes of one run (capacity fixed by the harness).
class TilingData {
  public:
    TilingData(void* data, size_t capacity) : data_(data), capacity_(capacity) {}
    void* GetData() { return data_; }
    const void* GetData() const { return data_; }
    size_t GetCapacity() const { return capacity_; }
    size_t GetDataSize() const { return size_; }
    ge::graphStatus SetDataSize(size_t n) {
        if (n > capacity_) return ge::GRAPH_FAILED;
        size_ = n;
        return ge::GRAPH_SUCCESS;
    }

  private:
    void* data_;
    size_t capacity_;
    size_t size_ = 0;
};

class TilingContext : public ExtendedKernelContext {
  public:
    TilingContext(NodeData* node, TilingData* raw) : ExtendedKernelContext(node), raw_(raw) {}

    const StorageShape* GetInputShape(size_t i) const { return shape_of(input(i)); }
    const StorageShape* GetOutputShape(size_t i) const { return shape_of(output(i)); }
    const StorageShape* GetOptionalInputShape(size_t ir) const { return shape_of(ir_input(ir, 0)); }
    const StorageShape* GetRequiredInputShape(size_t ir) const { return shape_of(ir_input(ir, 0)); }
    const StorageShape* GetDynamicInputShape(size_t ir, size_t rel) const { return shape_of(ir_input(ir, rel)); }
    const Tensor* GetInputTensor(size_t i) const { return tensor_of(input(i)); }
    const Tensor* GetOptionalInputTensor(size_t ir) const { return tensor_of(ir_input(ir, 0)); }
    const Tensor* GetRequiredInputTensor(size_t ir) const { return tensor_of(ir_input(ir, 0)); }
    const Tensor* GetDynamicInputTensor(size_t ir, size_t rel) const { return tensor_of(ir_input(ir, rel)); }

    ge::graphStatus SetBlockDim(uint32_t n) {
        block_dim_ = n;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetBlockDim() const { return block_dim_; }
    ge::graphStatus SetTilingKey(uint64_t k) {
        tiling_key_ = k;
        return ge::GRAPH_SUCCESS;
    }
    uint64_t GetTilingKey() const { return tiling_key_; }
    TilingData* GetRawTilingData() { return raw_; }
    // The typed view of the tiling bytes (the REGISTER_TILING_DEFAULT style: a plain struct the
    // kernel shares). Projects written this way never call SetDataSize and run on the NPU, so
    // taking the view makes sizeof(T) the data size; null where T exceeds the capacity.
    template <class T>
    T* GetTilingData() {
        if (sizeof(T) > raw_->GetCapacity()) return nullptr;
        if (raw_->GetDataSize() < sizeof(T)) raw_->SetDataSize(sizeof(T));
        return static_cast<T*>(raw_->GetData());
    }

    // Sizes of the user workspaces, `n` of them (only the first is used by the launch).
    size_t* GetWorkspaceSizes(size_t n) {
        if (workspace_sizes_.size() < n) workspace_sizes_.resize(n, 0);
        return workspace_sizes_.data();
    }
    size_t GetWorkspaceNum() const { return workspace_sizes_.size(); }
    const std::vector<size_t>& workspace_sizes() const { return workspace_sizes_; }

    fe::PlatFormInfos* GetPlatformInfo() const { return &node_->platform; }
    template <class T>
    const T* GetCompileInfo() const {
        return static_cast<const T*>(node_->compile_info.get());
    }
    const void* GetCompileInfo() const { return node_->compile_info.get(); }

    ge::graphStatus SetNeedAtomic(bool v) {
        need_atomic_ = v;
        return ge::GRAPH_SUCCESS;
    }
    bool NeedAtomic() const { return need_atomic_; }
    ge::graphStatus SetScheduleMode(uint32_t m) {
        schedule_mode_ = m;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetScheduleMode() const { return schedule_mode_; }
    int32_t GetDeterministic() const { return 0; }

  private:
    TilingData* raw_;
    uint32_t block_dim_ = 0;
    uint64_t tiling_key_ = 0;
    bool need_atomic_ = false;
    uint32_t schedule_mode_ = 0;
    std::vector<size_t> workspace_sizes_;
};

class InferShapeContext : public ExtendedKernelContext {
  public:
    explicit InferShapeContext(NodeData* node)
        : ExtendedKernelContext(node), out_shapes_(node->outputs.size()) {}

    const Shape* GetInputShape(size_t i) const { return origin_shape_of(input(i)); }
    const Shape* GetOptionalInputShape(size_t ir) const { return origin_shape_of(ir_input(ir, 0)); }
    const Shape* GetRequiredInputShape(size_t ir) const { return origin_shape_of(ir_input(ir, 0)); }
    const Shape* GetDynamicInputShape(size_t ir, size_t rel) const { return origin_shape_of(ir_input(ir, rel)); }
    const Tensor* GetInputTensor(size_t i) const { return tensor_of(input(i)); }
    const Tensor* GetOptionalInputTensor(size_t ir) const { return tensor_of(ir_input(ir, 0)); }
    const Tensor* GetRequiredInputTensor(size_t ir) const { return tensor_of(ir_input(ir, 0)); }
    // An output the OpDef does not declare (an in-place op's InferShape kept from a template):
    // GE gives nullptr, which such code dereferences, but the aclnn single-op path never runs
    // InferShape, so the op works there (Ascend/samples ScatterMax). A scratch shape keeps the
    // check going; the harness warns (undeclared_outputs).
    Shape* GetOutputShape(size_t i) {
        if (i < out_shapes_.size()) return &out_shapes_[i];
        undeclared_.push_back(i);
        return &scratch_.emplace_back();
    }
    const std::vector<Shape>& output_shapes() const { return out_shapes_; }
    const std::vector<size_t>& undeclared_outputs() const { return undeclared_; }

  private:
    std::vector<Shape> out_shapes_;
    std::deque<Shape> scratch_;  // stable addresses
    std::vector<size_t> undeclared_;
};

// A [min, max] range of T (gert::Range): shape ranges for dynamic-shape compilation.
template <class T>
class Range {
  public:
    Range() = default;
    Range(const T& min, const T& max) : min_(min), max_(max) {}
    const T* GetMin() const { return &min_; }
    const T* GetMax() const { return &max_; }
    T* GetMin() { return &min_; }
    T* GetMax() { return &max_; }
    void SetMin(const T* v) { if (v) min_ = *v; }
    void SetMax(const T* v) { if (v) max_ = *v; }

  private:
    T min_{};
    T max_{};
};

// Host code registers InferShapeRange next to InferShape; the emulator runs ops at concrete
// shapes and never calls it, but the code must compile. Input ranges are the given shapes.
class InferShapeRangeContext : public ExtendedKernelContext {
  public:
    explicit InferShapeRangeContext(NodeData* node)
        : ExtendedKernelContext(node), out_ranges_(node->outputs.size()) {
        for (size_t i = 0; i < node->inputs.size(); ++i) {
            const Shape* s = origin_shape_of(input(i));
            in_ranges_.emplace_back(s ? *s : Shape(), s ? *s : Shape());
        }
    }
    const Range<Shape>* GetInputShapeRange(size_t i) const { return i < in_ranges_.size() ? &in_ranges_[i] : nullptr; }
    const Range<Shape>* GetOptionalInputShapeRange(size_t ir) const { return GetInputShapeRange(ir); }
    const Range<Shape>* GetDynamicInputShapeRange(size_t ir, size_t rel) const { return GetInputShapeRange(ir + rel); }
    Range<Shape>* GetOutputShapeRange(size_t i) { return i < out_ranges_.size() ? &out_ranges_[i] : nullptr; }

  private:
    std::vector<Range<Shape>> in_ranges_;
    std::vector<Range<Shape>> out_ranges_;
};

class InferDataTypeContext : public ExtendedKernelContext {
  public:
    explicit InferDataTypeContext(NodeData* node)
        : ExtendedKernelContext(node), out_types_(node->outputs.size(), ge::DT_UNDEFINED) {}

    ge::DataType GetInputDataType(size_t i) const { return dtype_of(input(i)); }
    ge::DataType GetOptionalInputDataType(size_t ir) const { return dtype_of(ir_input(ir, 0)); }
    ge::DataType GetRequiredInputDataType(size_t ir) const { return dtype_of(ir_input(ir, 0)); }
    ge::DataType GetDynamicInputDataType(size_t ir, size_t rel) const { return dtype_of(ir_input(ir, rel)); }
    ge::DataType GetOutputDataType(size_t i) const {
        return i < out_types_.size() ? out_types_[i] : ge::DT_UNDEFINED;
    }
    ge::graphStatus SetOutputDataType(size_t i, ge::DataType t) {
        if (i >= out_types_.size()) return ge::GRAPH_FAILED;
        out_types_[i] = t;
        return ge::GRAPH_SUCCESS;
    }
    const std::vector<ge::DataType>& output_types() const { return out_types_; }

  private:
    std::vector<ge::DataType> out_types_;
};

class TilingParseContext : public ExtendedKernelContext {
  public:
    using ExtendedKernelContext::ExtendedKernelContext;
    template <class T>
    T* GetCompiledInfo() const {
        return static_cast<T*>(node_->compile_info.get());
    }
    const char* GetCompiledJson() const { return "{}"; }
    fe::PlatFormInfos* GetPlatformInfo() const { return &node_->platform; }
};

// Signatures of the functions an op registers.
using TilingKernelFunc = ge::graphStatus (*)(TilingContext*);
using InferShapeKernelFunc = ge::graphStatus (*)(InferShapeContext*);
using InferShapeRangeKernelFunc = ge::graphStatus (*)(InferShapeRangeContext*);
using InferDataTypeKernelFunc = ge::graphStatus (*)(InferDataTypeContext*);
using TilingParseKernelFunc = ge::graphStatus (*)(TilingParseContext*);

}  // namespace gert
