// Stand-in for the ACL runtime calls host code next to a kernel makes (kernel-launch samples and
// .asc files keep their main() in the kernel's file: aclInit, aclrtMalloc, aclrtMemcpy, ...). The
// emulator's harness launches the kernel itself and never runs that host code, so these only
// have to compile; one that is called anyway stops with a message instead of faking a device.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdlib>

#include "acl/acl_base.h"

typedef enum {
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
    ACL_MEM_MALLOC_HUGE_ONLY = 1,
    ACL_MEM_MALLOC_NORMAL_ONLY = 2,
} aclrtMemMallocPolicy;

typedef enum {
    ACL_MEMCPY_HOST_TO_HOST = 0,
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
    ACL_MEMCPY_DEVICE_TO_HOST = 2,
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
} aclrtMemcpyKind;

namespace kernelgen {
[[noreturn]] inline aclError acl_runtime_not_emulated(const char* api) {
    std::fprintf(stderr, "%s: the ACL runtime is not emulated; the harness launches kernels itself\n", api);
    std::abort();
}
}  // namespace kernelgen

inline aclError aclInit(const char*) { return kernelgen::acl_runtime_not_emulated("aclInit"); }
inline aclError aclFinalize() { return kernelgen::acl_runtime_not_emulated("aclFinalize"); }
inline aclError aclrtSetDevice(int32_t) { return kernelgen::acl_runtime_not_emulated("aclrtSetDevice"); }
inline aclError aclrtResetDevice(int32_t) { return kernelgen::acl_runtime_not_emulated("aclrtResetDevice"); }
inline aclError aclrtCreateContext(aclrtContext*, int32_t) {
    return kernelgen::acl_runtime_not_emulated("aclrtCreateContext");
}
inline aclError aclrtDestroyContext(aclrtContext) { return kernelgen::acl_runtime_not_emulated("aclrtDestroyContext"); }
inline aclError aclrtCreateStream(aclrtStream*) { return kernelgen::acl_runtime_not_emulated("aclrtCreateStream"); }
inline aclError aclrtDestroyStream(aclrtStream) { return kernelgen::acl_runtime_not_emulated("aclrtDestroyStream"); }
inline aclError aclrtSynchronizeStream(aclrtStream) {
    return kernelgen::acl_runtime_not_emulated("aclrtSynchronizeStream");
}
inline aclError aclrtMalloc(void**, size_t, aclrtMemMallocPolicy) {
    return kernelgen::acl_runtime_not_emulated("aclrtMalloc");
}
inline aclError aclrtMallocHost(void**, size_t) { return kernelgen::acl_runtime_not_emulated("aclrtMallocHost"); }
inline aclError aclrtFree(void*) { return kernelgen::acl_runtime_not_emulated("aclrtFree"); }
inline aclError aclrtFreeHost(void*) { return kernelgen::acl_runtime_not_emulated("aclrtFreeHost"); }
inline aclError aclrtMemcpy(void*, size_t, const void*, size_t, aclrtMemcpyKind) {
    return kernelgen::acl_runtime_not_emulated("aclrtMemcpy");
}
