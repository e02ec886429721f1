// CompareScalar on int32_t: documented for Atlas A2/A3 with CMPMODE::EQ only (DrivingSDK
// roiaware_maxpool3d_grad finds the argmax entries equal to an output index this way).
// `compare_scalar_int32 CASE report`: prints the mask bytes of 64 elements compared with 5.
#include <functional>
#include <map>

#include "test_io.h"

using namespace AscendC;

static std::function<void()> compare_case(CMPMODE mode, bool maskForm) {
    return [mode, maskForm] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> src, dst;
        pipe.InitBuffer(src, 64 * sizeof(int32_t));
        pipe.InitBuffer(dst, 256);
        auto s = src.Get<int32_t>();
        for (int32_t i = 0; i < 64; ++i) s.SetValue(i, i % 8 == 5 ? 5 : i);
        auto m = dst.Get<uint8_t>();
        if (maskForm) {
            // The mask form: one repeat of 64 int32 lanes, continuous.
            CompareScalar<int32_t, uint8_t>(m, s, static_cast<int32_t>(5), mode, 64, 1, {1, 1, 8, 8});  // BUG: lt_mask
        } else {
            CompareScalar(m, s, static_cast<int32_t>(5), mode, 64);  // BUG: lt
        }
        for (int i = 0; i < 8; ++i) std::printf("%02x ", m.GetValue(i));
        std::printf("\n");
    };
}

int main(int argc, char** argv) {
    std::map<std::string, std::function<void()>> cases{{"eq", compare_case(CMPMODE::EQ, false)},
                                                       {"lt", compare_case(CMPMODE::LT, false)},
                                                       {"eq_mask", compare_case(CMPMODE::EQ, true)},
                                                       {"lt_mask", compare_case(CMPMODE::LT, true)}};
    const auto& body = tio::select_case(cases, argc, argv, {3}, "compare_scalar_int32 CASE report");
    tio::run(1, argv[2], body);
    return 0;
}
