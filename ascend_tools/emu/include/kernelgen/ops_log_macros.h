// The logging and check macros of operator host code (OP_LOGE, OP_TILING_CHECK, ...), which many
// projects also define themselves. Each is defined only if the project has not defined it
// already and does not define it anywhere (the toolchain passes -DKERNELGEN_PROJECT_DEFINES_<NAME>
// for every name a project #defines), so a project's own definition, before or after this header,
// never meets ours. The toolchain force-includes this file into a project that uses one of the
// names without defining or including it (vendor headers pull them in). The toolchain reads the
// names from the KERNELGEN_PROJECT_DEFINES_ guards below.
#pragma once

#include "kernelgen/host_log.h"

#if !defined(OP_LOGD) && !defined(KERNELGEN_PROJECT_DEFINES_OP_LOGD)
#define OP_LOGD(op, ...) KERNELGEN_HOST_LOG_("DEBUG", false, op, __VA_ARGS__)
#endif
#if !defined(OP_LOGI) && !defined(KERNELGEN_PROJECT_DEFINES_OP_LOGI)
#define OP_LOGI(op, ...) KERNELGEN_HOST_LOG_("INFO", false, op, __VA_ARGS__)
#endif
#if !defined(OP_LOGW) && !defined(KERNELGEN_PROJECT_DEFINES_OP_LOGW)
#define OP_LOGW(op, ...) KERNELGEN_HOST_LOG_("WARNING", true, op, __VA_ARGS__)
#endif
#if !defined(OP_LOGE) && !defined(KERNELGEN_PROJECT_DEFINES_OP_LOGE)
#define OP_LOGE(op, ...) KERNELGEN_HOST_LOG_("ERROR", true, op, __VA_ARGS__)
#endif
#if !defined(VECTOR_INNER_ERR_REPORT_TILIING) && \
    !defined(KERNELGEN_PROJECT_DEFINES_VECTOR_INNER_ERR_REPORT_TILIING)
#define VECTOR_INNER_ERR_REPORT_TILIING(op, ...) KERNELGEN_HOST_LOG_("ERROR", true, op, __VA_ARGS__)
#endif
#if !defined(OP_TILING_CHECK) && !defined(KERNELGEN_PROJECT_DEFINES_OP_TILING_CHECK)
#define OP_TILING_CHECK(cond, log_func, expr) KERNELGEN_HOST_CHECK_(cond, log_func, expr)
#endif
#if !defined(OP_CHECK_IF) && !defined(KERNELGEN_PROJECT_DEFINES_OP_CHECK_IF)
#define OP_CHECK_IF(cond, log_func, expr) KERNELGEN_HOST_CHECK_(cond, log_func, expr)
#endif
#if !defined(OPS_CHECK_NULL_WITH_CONTEXT) && !defined(KERNELGEN_PROJECT_DEFINES_OPS_CHECK_NULL_WITH_CONTEXT)
#define OPS_CHECK_NULL_WITH_CONTEXT(context, ptr) KERNELGEN_HOST_CHECK_NULL_(context, ptr)
#endif
#if !defined(OP_CHECK_NULL_WITH_CONTEXT) && !defined(KERNELGEN_PROJECT_DEFINES_OP_CHECK_NULL_WITH_CONTEXT)
#define OP_CHECK_NULL_WITH_CONTEXT(context, ptr) KERNELGEN_HOST_CHECK_NULL_(context, ptr)
#endif

// The OPS_ family (ops logging of the framework's op libraries; vllm-ascend, DrivingSDK).
#if !defined(OPS_LOG_D) && !defined(KERNELGEN_PROJECT_DEFINES_OPS_LOG_D)
#define OPS_LOG_D(op, ...) KERNELGEN_HOST_LOG_("DEBUG", false, op, __VA_ARGS__)
#endif
#if !defined(OPS_LOG_I) && !defined(KERNELGEN_PROJECT_DEFINES_OPS_LOG_I)
#define OPS_LOG_I(op, ...) KERNELGEN_HOST_LOG_("INFO", false, op, __VA_ARGS__)
#endif
#if !defined(OPS_LOG_W) && !defined(KERNELGEN_PROJECT_DEFINES_OPS_LOG_W)
#define OPS_LOG_W(op, ...) KERNELGEN_HOST_LOG_("WARNING", true, op, __VA_ARGS__)
#endif
#if !defined(OPS_LOG_E) && !defined(KERNELGEN_PROJECT_DEFINES_OPS_LOG_E)
#define OPS_LOG_E(op, ...) KERNELGEN_HOST_LOG_("ERROR", true, op, __VA_ARGS__)
#endif
#if !defined(OPS_LOG_E_WITHOUT_REPORT) && !defined(KERNELGEN_PROJECT_DEFINES_OPS_LOG_E_WITHOUT_REPORT)
#define OPS_LOG_E_WITHOUT_REPORT(op, ...) KERNELGEN_HOST_LOG_("ERROR", true, op, __VA_ARGS__)
#endif
#if !defined(OPS_LOG_E_IF_NULL) && !defined(KERNELGEN_PROJECT_DEFINES_OPS_LOG_E_IF_NULL)
#define OPS_LOG_E_IF_NULL(op, ptr, expr) \
    KERNELGEN_HOST_CHECK_((ptr) == nullptr, KERNELGEN_HOST_LOG_("ERROR", true, op, "%s is nullptr", #ptr), expr)
#endif
// OPS_LOG_<L>_IF(cond, op, expr, fmt, ...): log and run expr when cond holds (the framework's
// order; DrivingSDK defines its own OPS_LOG_E_IF with the op first, which the guard leaves alone).
#if !defined(OPS_LOG_D_IF) && !defined(KERNELGEN_PROJECT_DEFINES_OPS_LOG_D_IF)
#define OPS_LOG_D_IF(cond, op, expr, ...) KERNELGEN_HOST_CHECK_(cond, KERNELGEN_HOST_LOG_("DEBUG", false, op, __VA_ARGS__), expr)
#endif
#if !defined(OPS_LOG_I_IF) && !defined(KERNELGEN_PROJECT_DEFINES_OPS_LOG_I_IF)
#define OPS_LOG_I_IF(cond, op, expr, ...) KERNELGEN_HOST_CHECK_(cond, KERNELGEN_HOST_LOG_("INFO", false, op, __VA_ARGS__), expr)
#endif
#if !defined(OPS_LOG_W_IF) && !defined(KERNELGEN_PROJECT_DEFINES_OPS_LOG_W_IF)
#define OPS_LOG_W_IF(cond, op, expr, ...) KERNELGEN_HOST_CHECK_(cond, KERNELGEN_HOST_LOG_("WARNING", true, op, __VA_ARGS__), expr)
#endif
#if !defined(OPS_LOG_E_IF) && !defined(KERNELGEN_PROJECT_DEFINES_OPS_LOG_E_IF)
#define OPS_LOG_E_IF(cond, op, expr, ...) KERNELGEN_HOST_CHECK_(cond, KERNELGEN_HOST_LOG_("ERROR", true, op, __VA_ARGS__), expr)
#endif
#if !defined(OPS_CHECK) && !defined(KERNELGEN_PROJECT_DEFINES_OPS_CHECK)
#define OPS_CHECK(cond, log_func, expr) KERNELGEN_HOST_CHECK_(cond, log_func, expr)
#endif
#if !defined(OP_CHECK) && !defined(KERNELGEN_PROJECT_DEFINES_OP_CHECK)
#define OP_CHECK(cond, log_func, expr) KERNELGEN_HOST_CHECK_(cond, log_func, expr)
#endif
