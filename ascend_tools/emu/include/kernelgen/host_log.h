// Logging and check macros of operator host code (OP_LOGE, OP_TILING_CHECK, ...). Errors and
// warnings go to stderr; debug/info lines only when KERNELGEN_HOST_LOG is set. Each macro is
// defined only if the project did not define its own.
#pragma once

#include <cstdio>
#include <cstdlib>

#include "graph/types.h"

namespace kernelgen {
inline bool host_log_verbose() {
    static const bool on = std::getenv("KERNELGEN_HOST_LOG") != nullptr;
    return on;
}
// Accepts both a C string and anything with GetNodeName() (a context) as the op name.
inline const char* log_name(const char* s) { return s ? s : ""; }
template <class Ctx>
inline const char* log_name(const Ctx* ctx) {
    return ctx ? ctx->GetNodeName() : "";
}
}  // namespace kernelgen

#define KERNELGEN_HOST_LOG_(level, always, op, ...)                                          \
    do {                                                                                    \
        if ((always) || ::kernelgen::host_log_verbose()) {                                  \
            std::fprintf(stderr, "[%s] %s: ", level, ::kernelgen::log_name(op));            \
            std::fprintf(stderr, __VA_ARGS__);                                              \
            std::fprintf(stderr, "\n");                                                     \
        }                                                                                   \
    } while (0)

#ifndef OP_LOGD
#define OP_LOGD(op, ...) KERNELGEN_HOST_LOG_("DEBUG", false, op, __VA_ARGS__)
#endif
#ifndef OP_LOGI
#define OP_LOGI(op, ...) KERNELGEN_HOST_LOG_("INFO", false, op, __VA_ARGS__)
#endif
#ifndef OP_LOGW
#define OP_LOGW(op, ...) KERNELGEN_HOST_LOG_("WARNING", true, op, __VA_ARGS__)
#endif
#ifndef OP_LOGE
#define OP_LOGE(op, ...) KERNELGEN_HOST_LOG_("ERROR", true, op, __VA_ARGS__)
#endif
#ifndef VECTOR_INNER_ERR_REPORT_TILIING
#define VECTOR_INNER_ERR_REPORT_TILIING(op, ...) OP_LOGE(op, __VA_ARGS__)
#endif
#ifndef OP_TILING_CHECK
#define OP_TILING_CHECK(cond, log_func, expr) \
    do {                                      \
        if (cond) {                           \
            log_func;                         \
            expr;                             \
        }                                     \
    } while (0)
#endif
#ifndef OP_CHECK_IF
#define OP_CHECK_IF(cond, log_func, expr) OP_TILING_CHECK(cond, log_func, expr)
#endif
#ifndef OPS_CHECK_NULL_WITH_CONTEXT
#define OPS_CHECK_NULL_WITH_CONTEXT(context, ptr)                                  \
    do {                                                                           \
        if ((ptr) == nullptr) {                                                    \
            OP_LOGE(context, "%s is nullptr", #ptr);                               \
            return ge::GRAPH_FAILED;                                               \
        }                                                                          \
    } while (0)
#endif
#ifndef OP_CHECK_NULL_WITH_CONTEXT
#define OP_CHECK_NULL_WITH_CONTEXT(context, ptr) OPS_CHECK_NULL_WITH_CONTEXT(context, ptr)
#endif
