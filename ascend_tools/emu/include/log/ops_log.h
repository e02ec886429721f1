// Stand-in for the framework's ops logging header: the OP_LOG* and check macros, each only where
// the project has not defined its own (kernelgen/ops_log_macros.h).
#pragma once

#include "kernelgen/host_std.h"
#include "kernelgen/ops_log_macros.h"
