// ListTensorDesc / TensorDesc: the kernel's view of a dynamic (tensor-list) parameter. The
// harness passes one GM descriptor per list (README "Dynamic parameters"): 64-bit words, [0]
// the byte offset of the pointer table; per tensor k a header (k << 32 | ndim) and its ndim
// dimensions; then the n data pointers. Every word read is checked against the descriptor's
// GM allocation, so a wrong pointer is a `gm-out-of-bounds` failure, not a wild read.
#pragma once

#include <algorithm>
#include <vector>

#include "tensor.h"

namespace AscendC {

template <class T>
class TensorDesc {
  public:
    void SetShapeAddr(uint64_t* shapePtr) { shape_ = shapePtr; }
    uint64_t GetDim() const { return dim_; }
    uint64_t GetIndex() const { return index_; }
    uint64_t GetShape(uint32_t offset, KG_LOC) const {
        if (offset >= dim_)
            kernelgen::failf("param-range", file, line, "TensorDesc::GetShape(%u) of a tensor with %llu dimensions", offset,
                             (unsigned long long)dim_);
        return shape_[offset];
    }
    __gm__ T* GetDataPtr() const { return data_; }
    // The tensor as a GlobalTensor sized by its shape (so later accesses are extent-checked).
    GlobalTensor<T> GetDataObj() const {
        uint64_t n = 1;
        for (uint64_t k = 0; k < dim_; ++k) n *= shape_[k];
        GlobalTensor<T> g;
        g.SetGlobalBuffer(data_, n);
        return g;
    }

    // Filled by ListTensorDesc::GetDesc.
    uint64_t* shape_ = nullptr;
    uint64_t dim_ = 0;
    uint64_t index_ = 0;
    __gm__ T* data_ = nullptr;
};

class ListTensorDesc {
  public:
    ListTensorDesc() = default;
    explicit ListTensorDesc(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff, KG_LOC) {
        Init(data, length, shapeSize, file, line);
    }

    void Init(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff, KG_LOC) {
        (void)shapeSize;
        base_ = static_cast<const uint8_t*>(data);
        limit_ = length;
        if (!base_) kernelgen::failf("gm-out-of-bounds", file, line, "ListTensorDesc on a null pointer (no tensor list passed)");
        const kernelgen::GmAllocation* a = kernelgen::gm_find(base_);
        if (a) {  // gm_find also answers for the allocation's padding, which holds no descriptor
            uint64_t off = static_cast<uint64_t>(base_ - a->base);
            limit_ = std::min<uint64_t>(limit_, off < a->bytes ? a->bytes - off : 0);
        }
        else if (!kernelgen::gm_allocations().empty())
            kernelgen::failf("gm-out-of-bounds", file, line, "ListTensorDesc: %p is not inside any GM buffer", data);
        table_ = word(0, file, line);
        if (table_ % 8 != 0 || table_ < 8)
            kernelgen::failf("gm-out-of-bounds", file, line,
                             "ListTensorDesc: pointer-table offset %llu is not a tensor-list descriptor", (unsigned long long)table_);
        headers_.clear();
        for (uint64_t pos = 8; pos < table_;) {
            uint64_t h = word(pos, file, line);
            if ((h >> 32) != headers_.size())
                kernelgen::failf("gm-out-of-bounds", file, line, "ListTensorDesc: header %zu names tensor %llu", headers_.size(),
                                 (unsigned long long)(h >> 32));
            headers_.push_back(pos);
            pos += 8 * (1 + (h & 0xffffffffu));
        }
    }

    uint32_t GetSize() const { return static_cast<uint32_t>(headers_.size()); }

    template <class T>
    __gm__ T* GetDataPtr(uint32_t index, KG_LOC) const {
        check_index("GetDataPtr", index, file, line);
        return reinterpret_cast<__gm__ T*>(word(table_ + 8ull * index, file, line));
    }

    template <class T>
    void GetDesc(TensorDesc<T>& desc, uint32_t index, KG_LOC) const {
        check_index("GetDesc", index, file, line);
        if (!desc.shape_)
            kernelgen::failf("param-range", file, line, "ListTensorDesc::GetDesc: call TensorDesc::SetShapeAddr(buffer) first");
        uint64_t h = word(headers_[index], file, line);
        desc.dim_ = h & 0xffffffffu;
        desc.index_ = h >> 32;
        for (uint64_t k = 0; k < desc.dim_; ++k) desc.shape_[k] = word(headers_[index] + 8 * (k + 1), file, line);
        desc.data_ = GetDataPtr<T>(index, file, line);
    }

  private:
    void check_index(const char* api, uint32_t index, const char* file, int line) const {
        if (index >= headers_.size())
            kernelgen::failf("gm-out-of-bounds", file, line, "ListTensorDesc::%s(%u) of a list of %zu tensors", api, index,
                             headers_.size());
    }
    uint64_t word(uint64_t byte, const char* file, int line) const {
        if (byte + 8 > limit_)
            kernelgen::failf("gm-out-of-bounds", file, line, "ListTensorDesc reads bytes [%llu, %llu) of a %llu-byte descriptor",
                             (unsigned long long)byte, (unsigned long long)(byte + 8), (unsigned long long)limit_);
        uint64_t w;
        std::memcpy(&w, base_ + byte, 8);
        return w;
    }

    const uint8_t* base_ = nullptr;
    uint64_t limit_ = 0;
    uint64_t table_ = 0;
    std::vector<uint64_t> headers_;  // byte offset of each tensor's header word
};

}  // namespace AscendC
