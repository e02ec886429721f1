// Stand-in for AscendC's CPU-side log header: printf-style ASC_CPU_LOG_<LEVEL>(fmt, ...) lines;
// errors and warnings go to stderr, info and debug only when KERNELGEN_HOST_LOG is set.
#pragma once

#include "kernelgen/host_log.h"
#include "kernelgen/host_std.h"

#ifndef ASC_CPU_LOG_ERROR
#define ASC_CPU_LOG_ERROR(...) KERNELGEN_HOST_LOG_("ERROR", true, "asc_cpu", __VA_ARGS__)
#endif
#ifndef ASC_CPU_LOG_WARNING
#define ASC_CPU_LOG_WARNING(...) KERNELGEN_HOST_LOG_("WARNING", true, "asc_cpu", __VA_ARGS__)
#endif
#ifndef ASC_CPU_LOG_INFO
#define ASC_CPU_LOG_INFO(...) KERNELGEN_HOST_LOG_("INFO", false, "asc_cpu", __VA_ARGS__)
#endif
#ifndef ASC_CPU_LOG_DEBUG
#define ASC_CPU_LOG_DEBUG(...) KERNELGEN_HOST_LOG_("DEBUG", false, "asc_cpu", __VA_ARGS__)
#endif
