// Tiling templates (the API reference's "Tiling template programming", CANN 8.x): a kernel entry
// that is a template over the op's template arguments, the arguments declared once for host and
// kernel (ASCENDC_TPL_ARGS_DECL), the combinations to build listed (ASCENDC_TPL_SEL), and the
// host's TilingFunc turning the chosen values into the tiling key (GET_TPL_TILING_KEY).
//
// The emulator needs no bit encoding: the key names a registered tuple of argument values, and
// the binding wrapper (toolchain/emulator.py) instantiates the entry for every combination
// ASCENDC_TPL_SEL lists and calls the one whose values the key names. The declarations
// themselves are read from the source by the toolchain, so here they expand to nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

// Bit widths and UINT modes of the declarations (values only matter to the vendor's encoding).
#define ASCENDC_TPL_1_BW 1
#define ASCENDC_TPL_2_BW 2
#define ASCENDC_TPL_4_BW 4
#define ASCENDC_TPL_8_BW 8
#define ASCENDC_TPL_16_BW 16
#define ASCENDC_TPL_32_BW 32
#define ASCENDC_TPL_UI_RANGE 0
#define ASCENDC_TPL_UI_LIST 1
#define ASCENDC_TPL_UI_MIX 2

#define ASCENDC_TPL_ARGS_DECL(...) static_assert(true, "")
#define ASCENDC_TPL_SEL(...) static_assert(true, "")
#define ASCENDC_TPL_DTYPE_DECL(...)
#define ASCENDC_TPL_FORMAT_DECL(...)
#define ASCENDC_TPL_UINT_DECL(...)
#define ASCENDC_TPL_BOOL_DECL(...)
#define ASCENDC_TPL_ARGS_SEL(...)
#define ASCENDC_TPL_DTYPE_SEL(...)
#define ASCENDC_TPL_FORMAT_SEL(...)
#define ASCENDC_TPL_UINT_SEL(...)
#define ASCENDC_TPL_BOOL_SEL(...)
#define ASCENDC_TPL_TILING_STRUCT_SEL(...)
#define ASCENDC_TPL_KERNEL_TYPE_SEL(...)

// Kernel side: which tiling struct a combination reads is the kernel's own GET_TILING_DATA_*
// choice here; the registration only sizes the vendor's tiling buffer.
#define REGISTER_TILING_FOR_TILINGKEY(condition, struct_type) static_assert(true, "")

namespace kernelgen {
// Keys of registered argument tuples start here, clear of the small keys TILING_KEY_IS uses.
constexpr uint64_t kTplKeyBase = uint64_t{1} << 40;

inline std::vector<std::vector<uint64_t>>& tpl_tuples() {
    static std::vector<std::vector<uint64_t>> tuples;
    return tuples;
}

// The key of a tuple of template-argument values (one key per distinct tuple).
inline uint64_t tpl_key(std::initializer_list<uint64_t> values) {
    std::vector<uint64_t> t(values);
    auto& all = tpl_tuples();
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i] == t) return kTplKeyBase + i;
    all.push_back(t);
    return kTplKeyBase + all.size() - 1;
}

// The tuple a key names, or null when the key came from elsewhere.
inline const std::vector<uint64_t>* tpl_values(uint64_t key) {
    const auto& all = tpl_tuples();
    if (key < kTplKeyBase || key - kTplKeyBase >= all.size()) return nullptr;
    return &all[key - kTplKeyBase];
}

// Host: the key of the values, in ASCENDC_TPL_ARGS_DECL's order.
template <class... A>
inline uint64_t tpl_key_of(A... values) {
    return tpl_key({static_cast<uint64_t>(values)...});
}
}  // namespace kernelgen

#define GET_TPL_TILING_KEY(...) ::kernelgen::tpl_key_of(__VA_ARGS__)
