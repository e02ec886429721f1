// IMPL_OP(...): the other way an op registers its tiling, tiling-parse (compile info) and
// shape/dtype inference functions. The harness prefers the OpDef's AICore().SetTiling and falls
// back to this registry.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernelgen/host_gert.h"
#include "kernelgen/ops_log_macros.h"

namespace kernelgen {

struct OpImpl {
    gert::TilingKernelFunc tiling = nullptr;
    gert::TilingParseKernelFunc tiling_parse = nullptr;
    std::function<std::shared_ptr<void>()> make_compile_info;
    gert::InferShapeKernelFunc infer_shape = nullptr;
    gert::InferDataTypeKernelFunc infer_dtype = nullptr;
};

inline std::map<std::string, OpImpl>& op_impls() {
    static std::map<std::string, OpImpl> m;
    return m;
}

}  // namespace kernelgen

namespace gert {

class OpImplRegisterV2 {
  public:
    explicit OpImplRegisterV2(const char* op_type) : impl_(&kernelgen::op_impls()[op_type ? op_type : ""]) {}

    OpImplRegisterV2& Tiling(TilingKernelFunc f, size_t /*max_tiling_data_size*/ = 2048) {
        return (impl_->tiling = f), *this;
    }
    template <class CompileInfo>
    OpImplRegisterV2& TilingParse(TilingParseKernelFunc f) {
        impl_->tiling_parse = f;
        impl_->make_compile_info = [] { return std::shared_ptr<void>(std::make_shared<CompileInfo>()); };
        return *this;
    }
    OpImplRegisterV2& InferShape(InferShapeKernelFunc f) { return (impl_->infer_shape = f), *this; }
    OpImplRegisterV2& InferDataType(InferDataTypeKernelFunc f) { return (impl_->infer_dtype = f), *this; }
    OpImplRegisterV2& InferShapeRange(InferShapeRangeKernelFunc) { return *this; }
    OpImplRegisterV2& InputsDataDependency(std::initializer_list<int32_t>) { return *this; }
    OpImplRegisterV2& TilingInputsDataDependency(std::initializer_list<int32_t>) { return *this; }
    OpImplRegisterV2& PrivateAttr(const char*, int64_t) { return *this; }

  private:
    kernelgen::OpImpl* impl_;
};

}  // namespace gert

#define KERNELGEN_CAT2_(a, b) a##b
#define KERNELGEN_CAT_(a, b) KERNELGEN_CAT2_(a, b)
#define IMPL_OP(op_type) \
    static ::gert::OpImplRegisterV2 KERNELGEN_CAT_(kernelgen_impl_op_, __COUNTER__) = ::gert::OpImplRegisterV2(#op_type)
#define IMPL_OP_OPTILING(op_type) IMPL_OP(op_type)
#define IMPL_OP_INFERSHAPE(op_type) IMPL_OP(op_type)
