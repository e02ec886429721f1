// Stand-in for the framework's tiling error-log header (tiling_base/error_log.h): the ops logging
// and check macros, each only where the project has not defined its own
// (kernelgen/ops_log_macros.h).
#pragma once

#include "kernelgen/host_std.h"
#include "kernelgen/ops_log_macros.h"
