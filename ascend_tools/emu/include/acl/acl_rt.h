// Stand-in for the ACL runtime calls host code next to a kernel makes (kernel-launch samples and
// .asc files keep their main() in the kernel's file: aclInit, aclrtMalloc, aclrtMemcpy, ...). The
// emulator's harness launches the kernel itself; it runs such a main() only to capture the
// arguments of its launch (kernelgen/host_launch.h), and then device memory is host memory and
// the calls succeed. A call outside that capture stops with a message instead of faking a device.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "acl/acl_base.h"
#include "kernelgen/host_launch.h"

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
inline aclError acl_runtime_not_emulated(const char* api) {
    if (host_launch().active) return 0;  // ACL_SUCCESS: the capture needs no device
    std::fprintf(stderr, "%s: the ACL runtime is not emulated; the harness launches kernels itself\n", api);
    std::abort();
}

// Device and pinned host memory during the capture: zeroed host memory (never freed: the
// capture ends at the launch, before the program frees anything).
inline aclError acl_host_alloc(void** p, size_t size, const char* api) {
    if (!host_launch().active) return acl_runtime_not_emulated(api);
    *p = host_alloc(size);
    return *p ? 0 : 1;
}

inline aclError acl_host_copy(void* dst, size_t dst_max, const void* src, size_t count, const char* api) {
    if (!host_launch().active) return acl_runtime_not_emulated(api);
    if (count > dst_max) return 1;
    if (count) std::memmove(dst, src, count);
    return 0;
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
inline aclError aclrtMalloc(void** p, size_t size, aclrtMemMallocPolicy) {
    return kernelgen::acl_host_alloc(p, size, "aclrtMalloc");
}
inline aclError aclrtMallocHost(void** p, size_t size) { return kernelgen::acl_host_alloc(p, size, "aclrtMallocHost"); }
inline aclError aclrtFree(void*) { return kernelgen::acl_runtime_not_emulated("aclrtFree"); }
inline aclError aclrtFreeHost(void*) { return kernelgen::acl_runtime_not_emulated("aclrtFreeHost"); }
inline aclError aclrtMemcpy(void* dst, size_t dst_max, const void* src, size_t count, aclrtMemcpyKind) {
    return kernelgen::acl_host_copy(dst, dst_max, src, count, "aclrtMemcpy");
}
