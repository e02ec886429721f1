// Stand-in for the ACL base header (acl/acl_base.h, which acl/acl.h includes), enough for
// operator host code that includes it for its types (the emulator runs no ACL runtime): error
// codes, stream/context handles, aclDataType and aclFormat with the values of the public ACL API
// reference, and the application log call.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstring>

#include "kernelgen/host_std.h"

typedef int aclError;
typedef void* aclrtStream;
// The half-precision storage type and its conversions (ACL API reference, aclFloat16ToFloat /
// aclFloatToFloat16): kernel-launch samples' data_utils.h prints results through them.
typedef uint16_t aclFloat16;
inline float aclFloat16ToFloat(aclFloat16 value) {
    _Float16 h;
    std::memcpy(&h, &value, sizeof h);
    return static_cast<float>(h);
}
inline aclFloat16 aclFloatToFloat16(float value) {
    const _Float16 h = static_cast<_Float16>(value);
    aclFloat16 out;
    std::memcpy(&out, &h, sizeof out);
    return out;
}
typedef void* aclrtContext;
typedef void* aclrtEvent;

constexpr aclError ACL_SUCCESS = 0;
constexpr aclError ACL_ERROR_NONE = 0;  // the older name of ACL_SUCCESS (samples' CHECK_ACL)
constexpr aclError ACL_ERROR_INVALID_PARAM = 100000;

typedef enum {
    ACL_DT_UNDEFINED = -1,
    ACL_FLOAT = 0,
    ACL_FLOAT16 = 1,
    ACL_INT8 = 2,
    ACL_INT32 = 3,
    ACL_UINT8 = 4,
    ACL_INT16 = 6,
    ACL_UINT16 = 7,
    ACL_UINT32 = 8,
    ACL_INT64 = 9,
    ACL_UINT64 = 10,
    ACL_DOUBLE = 11,
    ACL_BOOL = 12,
    ACL_STRING = 13,
    ACL_COMPLEX64 = 16,
    ACL_COMPLEX128 = 17,
    ACL_BF16 = 27,
} aclDataType;

typedef enum {
    ACL_FORMAT_UNDEFINED = -1,
    ACL_FORMAT_NCHW = 0,
    ACL_FORMAT_NHWC = 1,
    ACL_FORMAT_ND = 2,
    ACL_FORMAT_NC1HWC0 = 3,
    ACL_FORMAT_FRACTAL_Z = 4,
    ACL_FORMAT_FRACTAL_NZ = 29,
} aclFormat;

// aclAppLog: the log levels and prototype of the ACL API reference (aclcppdevg_03_0029, CANN
// 8.0.0: "void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line,
// const char *fmt, ...)"). Host code logs through it (DrivingSDK's MX_DRIVING_LOG* macros); with no
// log files here, warnings and errors go to stderr and the lower levels are dropped.
typedef enum {
    ACL_DEBUG = 0,
    ACL_INFO = 1,
    ACL_WARNING = 2,
    ACL_ERROR = 3,
} aclLogLevel;

inline void aclAppLog(aclLogLevel logLevel, const char* func, const char* file, uint32_t line, const char* fmt, ...) {
    if (logLevel < ACL_WARNING) return;
    std::fprintf(stderr, "[%s] %s:%u (%s): ", logLevel == ACL_ERROR ? "ERROR" : "WARNING", file, line, func);
    va_list args;
    va_start(args, fmt);
    std::vfprintf(stderr, fmt, args);
    va_end(args);
    std::fputc('\n', stderr);
}
