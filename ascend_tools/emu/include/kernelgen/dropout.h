// The DropOut high-level API (AscendC API reference, DropOut, atlasascendc_api_07_0862:
// https://www.hiascend.com/document/detail/zh/canncommercial/800/apiref/ascendcopapi/atlasascendc_api_07_0862.html),
// written from the documented behaviour: dst keeps the src elements the mask selects, the
// others are zero, and the result is divided by keepProb. Shape [firstAxis, srcLastAxis]
// (DropOutShapeInfo), mask rows of maskLastAxis uint8_t elements (with the dirty padding, if any).
//
// dropOutMode (documented): 1 byte mode, mask with dirty data; 2 byte mode, none; 3 bit mode,
// none; 4 bit mode, dirty data; 0 "inferred from the shape" (the rule is not published; the
// emulator's reading, below, is inferred: maskLastAxis == srcLastAxis byte mode, maskLastAxis * 8
// == srcLastAxis bit mode, longer rows the dirty form of byte mode, else of bit mode).
//
// Documented: a byte mask holds one Boolean per element; a bit mask one bit per element, mask
// shape [height, width / 8]; the Select step keeps the selected elements and zeroes the others,
// then the Muls step divides by keepProb (keepProb in (0, 1)); src and dst may be the same
// tensor; with dirty data the number of valid mask values per row must be even, and the mask may
// be modified (its dirty data discarded); in bit mode with dirty data the mask rows are padded
// to 32 bytes and the src rows are 32-byte aligned; chips Atlas A2/A3 and the Atlas inference
// series AI Core, half and float.
//
// Inferred (the reference is silent or self-contradictory):
// - a byte mask value keeps its element when it is non-zero (SelectWithBytesMask's reading);
// - bit order: element i is bit i % 8 (LSB first) of byte i / 8, the order of Select's mask,
//   which the documented algorithm feeds the mask to unchanged (GatherMask, Select, Muls). The
//   page's own example (mask 169 = 1010 1001 keeps elements 0, 2, 4, 7) reads the binary digits
//   MSB first, which no step of that algorithm does; the emulator follows the algorithm;
// - the Muls step multiplies by 1 / keepProb rounded to T (its name: a scalar multiply);
// - with dirty data the mask afterwards holds each row's valid bytes packed from its start, the
//   GatherMask step's output (the rest unchanged);
// - isInitBitMode changes nothing the kernel can observe;
// - keepProb exactly 1 (no dropout) computes the masked copy, a warning: the page says (0, 1).
// sharedTmpBuffer is checked as a UB operand; the emulator needs no scratch, so its size is not.
#pragma once

#include <algorithm>
#include <cmath>
#include <iterator>

#include "compare.h"
#include "vec_core.h"

namespace AscendC {

struct DropOutShapeInfo {
    __aicore__ DropOutShapeInfo() {}
    uint32_t firstAxis = 0;
    uint32_t srcLastAxis = 0;
    uint32_t maskLastAxis = 0;
};

}  // namespace AscendC

namespace kernelgen {

// Chips whose product-support table lists DropOut, by __CCE_AICORE__: Atlas A2/A3 (dav-c220) and
// the Atlas inference series AI Core (dav-m200); not Atlas 200I/500 A2, the inference Vector
// Core or the training series.
inline constexpr uint32_t kDropOutChips[] = {220, 200};

// The mode a call runs: dropOutMode, or for 0 the emulator's inference from the shape.
inline uint32_t dropout_mode(uint32_t mode, const AscendC::DropOutShapeInfo& info, const char* file, int line) {
    const char* api = "DropOut";
    if (mode > 4)
        failf("param-range", file, line, "%s: dropOutMode is %u; the documented modes are 0 (inferred), 1 to 4", api,
              mode);
    if (mode != 0) return mode;
    const uint64_t m = info.maskLastAxis, s = info.srcLastAxis;
    if (m == s) return 2;
    if (m * 8 == s) return 3;
    if (m > s) return 1;
    if (m * 8 > s) return 4;
    failf("param-range", file, line,
          "%s: maskLastAxis %u is shorter than a byte mask (srcLastAxis %u) and than a bit mask (srcLastAxis / 8) "
          "of the source rows",
          api, info.maskLastAxis, info.srcLastAxis);
    return 0;
}

template <class T>
inline uint32_t check_dropout_call(uint32_t template_mode, float keepProb, const AscendC::DropOutShapeInfo& info,
                                   const char* file, int line) {
    const char* api = "DropOut";
    const uint32_t arch = chip().cce_aicore;
    if (std::find(std::begin(kDropOutChips), std::end(kDropOutChips), arch) == std::end(kDropOutChips))
        failf("chip-support", file, line,
              "%s: not on %s (the API reference lists Atlas A2/A3 and the Atlas inference series AI Core)", api,
              chip().name.c_str());
    if (!(keepProb > 0.0f && keepProb <= 1.0f))
        failf("param-range", file, line, "%s: keepProb is %g; the API reference asks for keepProb in (0, 1)", api,
              static_cast<double>(keepProb));
    if (keepProb == 1.0f)
        warn("param-range",
             std::string(api) + ": keepProb is 1, outside the documented (0, 1); the result is the masked copy of src",
             file, line);
    if (info.firstAxis == 0 || info.srcLastAxis == 0 || info.maskLastAxis == 0)
        failf("param-range", file, line,
              "%s: DropOutShapeInfo {firstAxis %u, srcLastAxis %u, maskLastAxis %u}: each must be greater than 0", api,
              info.firstAxis, info.srcLastAxis, info.maskLastAxis);
    const uint32_t mode = dropout_mode(template_mode, info, file, line);
    const uint32_t s = info.srcLastAxis, m = info.maskLastAxis;
    const bool bit = mode >= 3;
    if (bit && s % 8 != 0)
        failf("param-range", file, line, "%s: bit mode (dropOutMode %u) needs srcLastAxis (%u) a multiple of 8", api,
              mode, s);
    const uint32_t valid = bit ? s / 8 : s;  // mask bytes of one row that hold data
    switch (mode) {
        case 2:
            if (m != s)
                failf("param-range", file, line,
                      "%s: byte mode without dirty data (dropOutMode 2) needs maskLastAxis == srcLastAxis, got %u and "
                      "%u (padded mask rows are dropOutMode 1)",
                      api, m, s);
            break;
        case 3:
            if (m != valid)
                failf("param-range", file, line,
                      "%s: bit mode without dirty data (dropOutMode 3) needs maskLastAxis == srcLastAxis / 8, got %u "
                      "and %u / 8 (padded mask rows are dropOutMode 4)",
                      api, m, s);
            break;
        default:  // 1, 4: dirty data
            if (m < valid)
                failf("param-range", file, line,
                      "%s: dropOutMode %u: maskLastAxis %u is shorter than the %u valid mask bytes of a row", api, mode,
                      m, valid);
            if (valid % 2 != 0)
                failf("param-range", file, line,
                      "%s: with dirty mask data (dropOutMode %u) the valid mask values of a row (%u) must be a "
                      "multiple of 2",
                      api, mode, valid);
            if (mode == 4 && (m % 32 != 0 || (uint64_t(s) * sizeof(T)) % 32 != 0))
                failf("param-range", file, line,
                      "%s: bit mode with dirty data (dropOutMode 4) needs the mask rows padded to 32 bytes "
                      "(maskLastAxis %u) and 32-byte aligned source rows (srcLastAxis %u x %u bytes)",
                      api, m, s, (unsigned)sizeof(T));
    }
    return mode;
}

template <class T>
inline void dropout_run(uint32_t template_mode, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                        const AscendC::LocalTensor<uint8_t>& mask, const AscendC::LocalTensor<uint8_t>* tmp,
                        float keepProb, const AscendC::DropOutShapeInfo& info, const char* file, int line) {
    const char* api = "DropOut";
    const uint32_t mode = check_dropout_call<T>(template_mode, keepProb, info, file, line);
    const uint32_t rows = info.firstAxis, s = info.srcLastAxis, m = info.maskLastAxis;
    const uint64_t n = uint64_t(rows) * s, mask_bytes = uint64_t(rows) * m;
    check_vec_operand(api, "srcLocal", src, n, file, line);
    check_vec_operand(api, "maskLocal", mask, mask_bytes, file, line);
    if (tmp) check_vec_operand(api, "sharedTmpBuffer", *tmp, 0, file, line);
    check_vec_operand(api, "dstLocal", dst, n, file, line);
    count_bytes_as_repeats(api, n * sizeof(T));  // Select
    count_bytes_as_repeats(api, n * sizeof(T));  // Muls
    const bool bit = mode >= 3, dirty = mode == 1 || mode == 4;
    const uint8_t* bytes = mask.data();
    const float scale = static_cast<float>(narrow<T>(1.0f / keepProb));
    for (uint32_t r = 0; r < rows; ++r) {
        const uint8_t* row = bytes + uint64_t(r) * m;
        for (uint32_t j = 0; j < s; ++j) {
            const uint64_t i = uint64_t(r) * s + j;
            const bool keep = bit ? get_bit(row, j) : row[j] != 0;
            dst.data()[i] = keep ? narrow<T>(static_cast<float>(src.data()[i]) * scale) : narrow<T>(0.0f);
        }
    }
    if (dirty) {
        // The GatherMask step leaves each row's valid bytes packed from the mask's start.
        const uint32_t valid = bit ? s / 8 : s;
        uint8_t* out = mask.data();
        for (uint32_t r = 1; r < rows; ++r)
            std::memmove(out + uint64_t(r) * valid, out + uint64_t(r) * m, valid);
        pipe_model().access(Pipe::V, api, out, uint64_t(rows) * valid, true, file, line);
    }
}

}  // namespace kernelgen

namespace AscendC {

template <typename T, bool isInitBitMode = false, uint32_t dropOutMode = 0>
inline void DropOut(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                    const LocalTensor<uint8_t>& maskLocal, const float keepProb, const DropOutShapeInfo& info,
                    KG_LOC) {
    kernelgen::dropout_run(dropOutMode, dstLocal, srcLocal, maskLocal, nullptr, keepProb, info, file, line);
}

template <typename T, bool isInitBitMode = false, uint32_t dropOutMode = 0>
inline void DropOut(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                    const LocalTensor<uint8_t>& maskLocal, const LocalTensor<uint8_t>& sharedTmpBuffer,
                    const float keepProb, const DropOutShapeInfo& info, KG_LOC) {
    kernelgen::dropout_run(dropOutMode, dstLocal, srcLocal, maskLocal, &sharedTmpBuffer, keepProb, info, file, line);
}

}  // namespace AscendC
