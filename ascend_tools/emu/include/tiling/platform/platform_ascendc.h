// platform_ascendc::PlatformAscendC: core counts, memory sizes and SoC version for TilingFunc,
// read from the chip the harness set for the run.
#pragma once

#include <cstdint>

#include "kernelgen/host_std.h"

#include "kernelgen/runtime.h"
#include "platform/platform_info.h"

namespace platform_ascendc {

enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, RESERVED };

enum class SocVersion {
    ASCEND910 = 0,
    ASCEND910B = 1,
    ASCEND910_93 = 2,
    ASCEND310P = 3,
    ASCEND310B = 4,
    RESERVED_VERSION = 99999
};

class PlatformAscendC {
  public:
    PlatformAscendC() = default;
    explicit PlatformAscendC(const fe::PlatFormInfos*) {}

    // Vector kernels size their blockDim with this: AIV count on split chips, AI cores otherwise.
    uint32_t GetCoreNum() const { return kernelgen::chip().vector_cores; }
    uint32_t GetCoreNumAic() const { return kernelgen::chip().cube_cores; }
    uint32_t GetCoreNumAiv() const { return kernelgen::chip().vector_cores; }
    uint32_t GetCoreNumVector() const { return kernelgen::chip().vector_cores; }

    void GetCoreMemSize(const CoreMemType& type, uint64_t& size) const {
        const auto& c = kernelgen::chip();
        switch (type) {
            case CoreMemType::UB: size = c.ub_bytes; break;
            case CoreMemType::L1: size = c.l1_bytes; break;
            case CoreMemType::L0_A: size = c.l0a_bytes; break;
            case CoreMemType::L0_B: size = c.l0b_bytes; break;
            case CoreMemType::L0_C: size = c.l0c_bytes; break;
            default: size = 0; break;  // L2/HBM are not modelled
        }
    }

    SocVersion GetSocVersion() const {
        const auto* soc = kernelgen::soc_facts(kernelgen::chip().name);
        return soc ? static_cast<SocVersion>(soc->soc_version) : SocVersion::RESERVED_VERSION;
    }

    uint32_t GetLibApiWorkSpaceSize() const {
        return static_cast<uint32_t>(kernelgen::kSysWorkspaceBytes);
    }

    // blockDim for a launch of `slice_num` pieces: a mix kernel (both core types) launches one
    // block per AIC group, each group holding aiv/aic vector cores.
    uint32_t CalcTschBlockDim(uint32_t slice_num, uint32_t aic_core_num, uint32_t aiv_core_num) const {
        if (!kernelgen::chip().split_cores || aic_core_num == 0 || aiv_core_num == 0 ||
            aic_core_num > aiv_core_num)
            return slice_num;
        uint32_t ratio = aiv_core_num / aic_core_num;
        return (slice_num + ratio - 1) / ratio;
    }
};

// Kernel-direct-launch host code asks the manager instead of a TilingContext.
class PlatformAscendCManager {
  public:
    static PlatformAscendC* GetInstance() {
        static PlatformAscendC p;
        return &p;
    }
    static PlatformAscendC* GetInstance(const char*) { return GetInstance(); }
};

}  // namespace platform_ascendc
