// The project's own logging macros, with another arity than the framework's, defined after the
// framework headers were included (as many projects do).
#pragma once
#include "register/op_def_registry.h"

#define OP_LOGE(op_name, msg) std::printf("[E] %s: %s\n", op_name, msg)
#define OP_CHECK_IF(cond, log, action) \
    if (cond) {                        \
        log;                           \
        action;                        \
    }
