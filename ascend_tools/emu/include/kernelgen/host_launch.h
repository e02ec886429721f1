// Host launch capture: a kernel file that holds its own host program (.asc files, kernel-launch
// samples) builds the by-value arguments of its launch there, e.g. a TCubeTiling that
// GenerateTiling fills with the host matmul tiling API. The harness runs that main() once before
// the launch with the ACL runtime stand-ins handing out host memory (acl/acl_rt.h); the launch
// `k<<<...>>>(args)`, rewritten to `kernelgen_launch(k)(args)` (toolchain/compat.py), records the
// arguments and ends the program there. The kernel entry then gets the recorded values for the
// by-value parameters the reference does not give (emu README "Host launch").
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernelgen/runtime.h"

namespace kernelgen {

struct HostLaunch {
    std::string kernel;             // the entry its main() launches
    std::function<int()> run_main;  // the renamed main(), called with argc 1
    bool active = false;            // main() is running: the ACL stand-ins hand out host memory
    bool launched = false;
    std::vector<std::vector<uint8_t>> args;  // per entry parameter: a by-value one's bytes
    // Per entry parameter: a pointer one's bytes from its address to the end of the block the
    // program allocated it in (aclrtMalloc, GmAlloc, ...), as they were at the launch; empty
    // for memory the program did not allocate through those.
    std::vector<std::vector<uint8_t>> buffers;
    long block_dim = -1;                        // the launch's blockDim, where it says one
    std::vector<std::pair<uint8_t*, size_t>> blocks;  // what the program allocated
    bool has_tiling_key = false;
    uint64_t tiling_key = 0;  // ICPU_SET_TILING_KEY
};

inline HostLaunch& host_launch() {
    static HostLaunch h;
    return h;
}

// Thrown by the recorded launch to leave main() there: what follows it reads results back and
// frees memory, none of which the capture needs.
struct HostLaunchDone {};

inline bool register_host_launch(const char* kernel, std::function<int()> run_main) {
    host_launch().kernel = kernel;
    host_launch().run_main = std::move(run_main);
    return true;
}

template <class R>
int call_main(R (*f)()) {
    return static_cast<int>(f());
}

template <class R, class C, class V>
int call_main(R (*f)(C, V)) {
    static char name[] = "kernel_file_main";
    static char* argv[] = {name, nullptr};
    return static_cast<int>(f(1, argv));
}

// Runs the registered main() once (nothing when none is registered); a program that ends
// without launching the kernel stops the run, since its arguments are unknown.
inline void capture_host_launch() {
    HostLaunch& h = host_launch();
    if (!h.run_main || h.launched) return;
    h.active = true;
    int code = 0;
    try {
        code = h.run_main();
    } catch (const HostLaunchDone&) {
    }
    h.active = false;
    if (!h.launched)
        fail("tiling-failed",
             "the host program's main() returned " + std::to_string(code) + " without launching " + h.kernel +
                 ": the by-value arguments it passes at that launch (its tiling) are unknown",
             "", 0);
}

// Memory the host program allocates during the capture: zeroed, never freed (the capture ends at
// the launch), remembered so a pointer argument's buffer can be read back.
inline void* host_alloc(size_t size) {
    void* p = std::calloc(size ? size : 1, 1);
    if (p) host_launch().blocks.emplace_back(static_cast<uint8_t*>(p), size);
    return p;
}

inline std::vector<uint8_t> buffer_at(const void* p) {
    const auto* q = static_cast<const uint8_t*>(p);
    for (const auto& [base, size] : host_launch().blocks) {
        const uint8_t* end = base + size;
        if (q >= base && q < end) return std::vector<uint8_t>(q, end);
    }
    return {};
}

template <class T>
std::vector<uint8_t> launch_bytes(const T& value) {
    if constexpr (std::is_pointer_v<T>) {
        return {};
    } else {
        static_assert(std::is_trivially_copyable_v<T>, "a by-value kernel argument is copied bytewise");
        std::vector<uint8_t> out(sizeof(T));
        std::memcpy(out.data(), &value, sizeof(T));
        return out;
    }
}

template <class T>
std::vector<uint8_t> pointee_bytes(const T& value) {
    if constexpr (std::is_pointer_v<T>) {
        return buffer_at(static_cast<const void*>(value));
    } else {
        return {};
    }
}

// Records a launch of the host program (block count, by-value arguments, the buffers pointer
// arguments point into) and ends the program there. ACL's `ACLRT_LAUNCH_KERNEL(k)(blockDim,
// stream, args...)` (the generated aclrtlaunch_k.h the toolchain writes for a host program,
// toolchain/emulator.py) calls it with the arguments as passed; the other launches through
// LaunchCall, converted to the kernel's parameter types.
template <class... A>
uint32_t record_launch(long block_dim, const char* kernel, A... args) {
    HostLaunch& h = host_launch();
    if (!h.active) fail("crash", std::string("the host program launched ") + kernel + " outside the capture", "", 0);
    h.args = {launch_bytes<A>(args)...};
    h.buffers = {pointee_bytes<A>(args)...};
    h.block_dim = block_dim;
    h.launched = true;
    throw HostLaunchDone{};
}

template <class... P>
struct LaunchCall {
    long block_dim = -1;
    template <class... A>
    void operator()(A&&... a) const {
        static_assert(sizeof...(A) == sizeof...(P), "a launch passes every parameter of the kernel");
        record_launch<std::decay_t<P>...>(block_dim, host_launch().kernel.c_str(),
                                          static_cast<std::decay_t<P>>(a)...);
    }
};

// `k<<<blockDim, l2ctrl, stream>>>`: the configuration's first value is the block count.
template <class... P, class... C>
LaunchCall<P...> launch_of(void (*)(P...), C&&... config) {
    LaunchCall<P...> call;
    if constexpr (sizeof...(C) > 0) call.block_dim = static_cast<long>(std::get<0>(std::forward_as_tuple(config...)));
    return call;
}

// The recorded value of by-value parameter `index` of the launch.
template <class T>
const std::remove_cv_t<T>& host_launch_arg(int index) {
    using V = std::remove_cv_t<T>;
    const HostLaunch& h = host_launch();
    const auto& bytes = h.args.at(static_cast<size_t>(index));
    if (bytes.size() != sizeof(V))
        fail("crash", "host launch argument " + std::to_string(index) + " has " + std::to_string(bytes.size()) +
                          " bytes, the kernel's parameter " + std::to_string(sizeof(V)), "", 0);
    return *reinterpret_cast<const V*>(bytes.data());
}

}  // namespace kernelgen

#define kernelgen_launch(kernel, ...) ::kernelgen::launch_of(&kernel, ##__VA_ARGS__)
