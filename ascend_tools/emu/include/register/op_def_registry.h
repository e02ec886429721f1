// Host entry header of an operator definition: ops::OpDef, OP_ADD, the gert contexts the
// registered functions receive, and the logging/check macros.
#pragma once

#include "graph/types.h"
#include "kernelgen/host_std.h"
#include "kernelgen/host_gert.h"
#include "kernelgen/ops_log_macros.h"
#include "kernelgen/host_opdef.h"
#include "register/op_impl_registry.h"
