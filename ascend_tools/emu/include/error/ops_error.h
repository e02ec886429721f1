// Stand-in for the framework's ops error-reporting header: the error-report and check macros
// (VECTOR_INNER_ERR_REPORT_TILIING, OPS_CHECK_NULL_WITH_CONTEXT, OP_TILING_CHECK, ...), each only
// where the project has not defined its own (kernelgen/ops_log_macros.h).
#pragma once

#include "kernelgen/host_std.h"
#include "kernelgen/ops_log_macros.h"
