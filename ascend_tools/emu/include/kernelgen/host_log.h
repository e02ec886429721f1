// The machinery behind the operator host code's logging and check macros, under private names
// only: a project that defines its own OP_LOGE with another arity cannot break ours. The public
// names (OP_LOGE, OP_TILING_CHECK, ...) are in kernelgen/ops_log_macros.h. Errors and warnings
// go to stderr; debug/info lines only when KERNELGEN_HOST_LOG is set.
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

#define KERNELGEN_HOST_CHECK_(cond, log_func, expr) \
    do {                                            \
        if (cond) {                                 \
            log_func;                               \
            expr;                                   \
        }                                           \
    } while (0)

#define KERNELGEN_HOST_CHECK_NULL_(context, ptr)                                      \
    do {                                                                              \
        if ((ptr) == nullptr) {                                                       \
            KERNELGEN_HOST_LOG_("ERROR", true, context, "%s is nullptr", #ptr);       \
            return ge::GRAPH_FAILED;                                                  \
        }                                                                             \
    } while (0)
