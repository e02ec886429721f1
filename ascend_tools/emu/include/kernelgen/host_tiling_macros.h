// The tiling-data macros (BEGIN_TILING_DATA_DEF ... REGISTER_TILING_DATA_CLASS), shared by the
// host translation units and the kernel translation unit (the toolchain writes the kernel the
// op's tiling structs with these macros, -DKERNELGEN_OP_TYPE=<OpType>: toolchain/kernel_tiling.py).
//
// One expansion serves both sides: a standard-layout struct with the fields as public members in
// declaration order. C++ natural alignment puts each scalar field at an offset divisible by its
// size; alignas(8) pads the struct (and places nested tiling structs) at 8 bytes. The host uses
// set_<f>/get_<f>/SaveToBuffer/GetDataSize; the kernel reads the members after GET_TILING_DATA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernelgen/runtime.h"

namespace optiling {
// ADL anchor: REGISTER_TILING_DATA_CLASS declares `S kernelgen_tiling_for(KernelgenOpKey<h>)`
// next to the struct, wherever that is; GET_TILING_DATA finds it from the kernel by ADL.
template <uint64_t Key>
struct KernelgenOpKey {};
}  // namespace optiling

namespace kernelgen {

// FNV-1a of an op type name: the compile-time key of REGISTER_TILING_DATA_CLASS.
constexpr uint64_t op_key(const char* s) {
    uint64_t h = 1469598103934665603ull;
    while (*s) {
        h ^= static_cast<unsigned char>(*s++);
        h *= 1099511628211ull;
    }
    return h;
}

struct NoTiling {};  // "nothing registered" marker of the tiling lookup

struct TilingClassInfo {
    std::string op_type;
    std::string struct_name;
    size_t bytes;
};

// Every REGISTER_TILING_DATA_CLASS of the program (host side reads it, e.g. the harness).
inline std::vector<TilingClassInfo>& tiling_classes() {
    static std::vector<TilingClassInfo> v;
    return v;
}

inline bool register_tiling_class(const char* op, const char* name, size_t bytes) {
    tiling_classes().push_back({op, name, bytes});
    return true;
}

inline const TilingClassInfo* find_tiling_class(const std::string& op) {
    for (const auto& c : tiling_classes())
        if (c.op_type == op) return &c;
    return nullptr;
}

// Host: copy a tiling struct into the raw tiling buffer. A buffer too small for the struct is a
// TilingFunc bug the run cannot recover from (the kernel would read a truncated struct).
inline void tiling_save(const void* src, size_t bytes, void* dst, size_t capacity,
                        const char* struct_name) {
    if (dst == nullptr || capacity < bytes) {
        fail("tiling-mismatch",
             std::string("SaveToBuffer: ") + struct_name + " needs " + std::to_string(bytes) +
                 " bytes but the buffer " + (dst ? "holds " + std::to_string(capacity) : "is null"),
             "", 0);
    }
    std::memcpy(dst, src, bytes);
}

// Kernel: copy `bytes` of the tiling struct from GM at `offset`. When the buffer is one the
// harness registered, reading past it means host and kernel disagree on the struct.
inline void tiling_load(void* dst, const void* tiling, size_t offset, size_t bytes,
                        const char* what, const char* file, int line) {
    if (tiling == nullptr) fail("tiling-mismatch", std::string(what) + ": tiling pointer is null", file, line);
    const auto* a = gm_find(tiling);
    const auto* p = static_cast<const uint8_t*>(tiling);
    if (a != nullptr && p + offset + bytes > a->base + a->bytes) {
        fail("tiling-mismatch",
             std::string(what) + " reads " + std::to_string(offset + bytes) +
                 " bytes of tiling data but the tiling buffer holds " +
                 std::to_string(a->base + a->bytes - p) + " (host and kernel tiling structs differ?)",
             file, line);
    }
    std::memcpy(dst, p + offset, bytes);
}

}  // namespace kernelgen

#define BEGIN_TILING_DATA_DEF(class_name)                                                       \
    struct alignas(8) class_name {                                                              \
        size_t GetDataSize() const { return sizeof(class_name); }                               \
        void SaveToBuffer(void* kgen_dst, size_t kgen_capacity) const {                          \
            ::kernelgen::tiling_save(this, sizeof(class_name), kgen_dst, kgen_capacity, #class_name); \
        }

// Each macro ends its own declaration, as the vendor's do: projects write the fields, the end of
// the struct and the registration both with and without a trailing ';'.
#define TILING_DATA_FIELD_DEF(data_type, field_name)                \
    void set_##field_name(data_type kgen_v) { field_name = kgen_v; } \
    data_type get_##field_name() const { return field_name; }       \
    data_type field_name = data_type();

#define TILING_DATA_FIELD_DEF_ARR(data_type, arr_size, field_name)                     \
    void set_##field_name(const data_type* kgen_v) {                                   \
        std::memcpy(field_name, kgen_v, sizeof(field_name));                           \
    }                                                                                  \
    data_type* get_##field_name() { return field_name; }                               \
    const data_type* get_##field_name() const { return field_name; }                   \
    data_type field_name[arr_size] = {};

#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name)                   \
    void set_##field_name(const struct_type& kgen_v) { field_name = kgen_v; }   \
    struct_type& get_##field_name() { return field_name; }                      \
    const struct_type& get_##field_name() const { return field_name; }          \
    struct_type field_name = struct_type();

#define END_TILING_DATA_DEF \
    }                       \
    ;

// Binds an op type to its tiling struct: for GET_TILING_DATA in the kernel (by ADL, see
// optiling::KernelgenOpKey) and for the host registry the harness reads.
#define REGISTER_TILING_DATA_CLASS(op_type, class_name)                                          \
    class_name kernelgen_tiling_for(::optiling::KernelgenOpKey<::kernelgen::op_key(#op_type)>);  \
    inline const bool kernelgen_tiling_registered_##op_type =                                    \
        ::kernelgen::register_tiling_class(#op_type, #class_name, sizeof(class_name));
