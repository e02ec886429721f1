// fe::PlatFormInfos: the platform description a TilingContext hands to TilingFunc. Its values
// come from the chip the harness set (kernelgen::chip()); platform_ascendc::PlatformAscendC is
// the usual reader, GetPlatformRes the raw key/value one.
#pragma once

#include <cstdint>
#include <string>

#include "kernelgen/runtime.h"

namespace kernelgen {

// The vendor's short SoC names and SocVersion rows for each emulated chip (chips.json names).
struct SocFacts {
    const char* chip;        // kernelgen::ChipInfo::name
    const char* short_name;  // platform "Short_SoC_version"
    int soc_version;         // platform_ascendc::SocVersion value
};

inline constexpr SocFacts kSocTable[] = {
    {"ascend910b1", "Ascend910B", 1},  {"ascend910b2", "Ascend910B", 1},
    {"ascend910b3", "Ascend910B", 1},  {"ascend910b4", "Ascend910B", 1},
    {"ascend910_93", "Ascend910_93", 2}, {"ascend910", "Ascend910", 0},
    {"ascend310p", "Ascend310P", 3},   {"ascend310b", "Ascend310B", 4},
};

inline const SocFacts* soc_facts(const std::string& chip_name) {
    for (const auto& r : kSocTable)
        if (chip_name == r.chip) return &r;
    return nullptr;
}

// Platform resource keys (label, key) and the chip field each reads.
struct PlatformResKey {
    const char* label;
    const char* key;
    uint64_t ChipInfo::* bytes;     // one of these two is set
    uint32_t ChipInfo::* count;
};

inline constexpr PlatformResKey kPlatformResTable[] = {
    {"SoCInfo", "ai_core_cnt", nullptr, &ChipInfo::cube_cores},
    {"SoCInfo", "cube_core_cnt", nullptr, &ChipInfo::cube_cores},
    {"SoCInfo", "vector_core_cnt", nullptr, &ChipInfo::vector_cores},
    {"AICoreSpec", "ub_size", &ChipInfo::ub_bytes, nullptr},
    {"AICoreSpec", "l1_size", &ChipInfo::l1_bytes, nullptr},
    {"AICoreSpec", "l0_a_size", &ChipInfo::l0a_bytes, nullptr},
    {"AICoreSpec", "l0_b_size", &ChipInfo::l0b_bytes, nullptr},
    {"AICoreSpec", "l0_c_size", &ChipInfo::l0c_bytes, nullptr},
};

}  // namespace kernelgen

namespace fe {

class PlatFormInfos {
  public:
    // Vendor lookup by (label, key); false for keys the emulator does not model.
    bool GetPlatformRes(const std::string& label, const std::string& key, std::string& val) const {
        const auto& c = kernelgen::chip();
        if (label == "version") {
            const auto* soc = kernelgen::soc_facts(c.name);
            if (key == "Short_SoC_version" && soc) return (val = soc->short_name), true;
            if (key == "SoC_version") return (val = c.name), true;
            return false;
        }
        for (const auto& r : kernelgen::kPlatformResTable) {
            if (label == r.label && key == r.key) {
                val = std::to_string(r.bytes ? c.*(r.bytes) : c.*(r.count));
                return true;
            }
        }
        return false;
    }
    bool GetPlatformResWithLock(const std::string& label, const std::string& key,
                                std::string& val) const {
        return GetPlatformRes(label, key, val);
    }
    uint32_t GetCoreNum() const { return kernelgen::chip().vector_cores; }
    void SetCoreNumByCoreType(const std::string&) {}
};

class OptionalInfos {};

}  // namespace fe
