// Region-proposal sorting (Ascend 910 / 310P vector APIs): ProposalConcat, ProposalExtract,
// RpSort16 and MrgSort4, from the documented behaviour. A region proposal is 8 consecutive
// elements: x1, y1, x2, y2, score, label and two reserved ones; sorting orders proposals by
// score, largest first (equal scores keep their order).
#pragma once

#include <algorithm>
#include <array>
#include <vector>

#include "tensor.h"

namespace kernelgen {

inline constexpr uint32_t kProposalElems = 8;
inline constexpr uint32_t kProposalsPerRepeat = 16;
inline constexpr uint32_t kProposalScore = 4;

// The proposal instructions exist on the Ascend 910 (dav-c100) and 310P (dav-m200) vector units.
inline void check_proposal_chip(const char* api, const char* file, int line) {
    const uint32_t arch = chip().cce_aicore;
    if (arch != 100 && arch != 200)
        failf("chip-support", file, line, "%s: region-proposal sorting exists only on Ascend 910 and 310P, not on %s",
              api, chip().name.c_str());
}

// ProposalConcat (to_proposal) / ProposalExtract (!to_proposal): element modeNumber of 16
// proposals per repeat <-> 16 consecutive elements.
template <class T>
inline void proposal_field(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                           int32_t repeat, int32_t mode, bool to_proposal, const char* file, int line) {
    check_proposal_chip(api, file, line);
    check_repeat(api, repeat, file, line);
    if (mode < 0 || mode > 5) failf("param-range", file, line, "%s: modeNumber is %d, must be in [0, 5]", api, mode);
    const uint64_t n = uint64_t(repeat) * kProposalsPerRepeat;
    const auto& proposals = to_proposal ? dst : src;
    const auto& plain = to_proposal ? src : dst;
    check_vec_operand(api, to_proposal ? "dst" : "src", proposals, n * kProposalElems, file, line);
    check_vec_operand(api, to_proposal ? "src" : "dst", plain, n, file, line);
    count_repeats(api, uint64_t(repeat));
    for (uint64_t i = 0; i < n; ++i) {
        if (to_proposal)
            dst.data()[i * kProposalElems + mode] = src.data()[i];
        else
            dst.data()[i] = src.data()[i * kProposalElems + mode];
    }
}

template <class T>
inline void sort_proposals(T* p, uint64_t count) {
    std::vector<std::array<T, kProposalElems>> v(count);
    std::memcpy(v.data(), p, count * kProposalElems * sizeof(T));
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
        return widen(a[kProposalScore]) > widen(b[kProposalScore]);
    });
    std::memcpy(p, v.data(), count * kProposalElems * sizeof(T));
}

}  // namespace kernelgen

namespace AscendC {

template <class T>
inline void ProposalConcat(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const int32_t repeatTimes,
                           const int32_t modeNumber, KG_LOC) {
    kernelgen::proposal_field("ProposalConcat", dstLocal, srcLocal, repeatTimes, modeNumber, true, file, line);
}

template <class T>
inline void ProposalExtract(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const int32_t repeatTimes,
                            const int32_t modeNumber, KG_LOC) {
    kernelgen::proposal_field("ProposalExtract", dstLocal, srcLocal, repeatTimes, modeNumber, false, file, line);
}

// Each repeat sorts 16 proposals by score.
template <class T>
inline void RpSort16(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const int32_t repeatTimes, KG_LOC) {
    const char* api = "RpSort16";
    kernelgen::check_proposal_chip(api, file, line);
    kernelgen::check_repeat(api, repeatTimes, file, line);
    const uint64_t per = uint64_t(kernelgen::kProposalsPerRepeat) * kernelgen::kProposalElems;
    const uint64_t n = uint64_t(repeatTimes) * per;
    kernelgen::check_vec_operand(api, "src", srcLocal, n, file, line);
    kernelgen::check_vec_operand(api, "dst", dstLocal, n, file, line);
    kernelgen::count_repeats(api, uint64_t(repeatTimes));
    std::vector<T> buf(srcLocal.data(), srcLocal.data() + n);
    for (int32_t r = 0; r < repeatTimes; ++r) kernelgen::sort_proposals(buf.data() + r * per, kernelgen::kProposalsPerRepeat);
    std::memcpy(dstLocal.data(), buf.data(), n * sizeof(T));
}

template <class T>
struct MrgSortSrcList {
    MrgSortSrcList() = default;
    MrgSortSrcList(const LocalTensor<T>& s1, const LocalTensor<T>& s2, const LocalTensor<T>& s3, const LocalTensor<T>& s4)
        : src1(s1), src2(s2), src3(s3), src4(s4) {}
    LocalTensor<T> src1, src2, src3, src4;
};

struct MrgSort4Info {
    MrgSort4Info() = default;
    MrgSort4Info(const uint16_t elementLengthsIn[4], bool ifExhaustedSuspensionIn, uint16_t validBitIn,
                 uint16_t repeatTimesIn)
        : ifExhaustedSuspension(ifExhaustedSuspensionIn), validBit(validBitIn), repeatTimes(repeatTimesIn) {
        for (int i = 0; i < 4; ++i) elementLengths[i] = elementLengthsIn[i];
    }
    uint16_t elementLengths[4] = {0, 0, 0, 0};  // proposals in each list
    bool ifExhaustedSuspension = false;          // stop as soon as one list runs out
    uint16_t validBit = 15;                      // which lists take part: 0b11, 0b111 or 0b1111
    uint16_t repeatTimes = 1;                    // each repeat moves every list on by the lists' total
};

// Merges the valid score-sorted lists into dst, largest score first (ties: the earlier list).
template <class T>
inline void MrgSort4(const LocalTensor<T>& dstLocal, const MrgSortSrcList<T>& srcLocal, const MrgSort4Info& params,
                     KG_LOC) {
    const char* api = "MrgSort4";
    kernelgen::check_proposal_chip(api, file, line);
    if (params.validBit != 3 && params.validBit != 7 && params.validBit != 15)
        kernelgen::failf("param-range", file, line, "MrgSort4: validBit is %u, must be 3, 7 or 15", params.validBit);
    kernelgen::check_repeat(api, params.repeatTimes, file, line);
    const LocalTensor<T>* lists[4] = {&srcLocal.src1, &srcLocal.src2, &srcLocal.src3, &srcLocal.src4};
    const int valid = params.validBit == 3 ? 2 : params.validBit == 7 ? 3 : 4;
    uint64_t total = 0;
    for (int k = 0; k < valid; ++k) total += params.elementLengths[k];
    const uint64_t E = kernelgen::kProposalElems;
    for (int k = 0; k < valid; ++k) {
        const char* role[] = {"src1", "src2", "src3", "src4"};
        uint64_t need = (uint64_t(params.repeatTimes ? params.repeatTimes - 1 : 0) * total + params.elementLengths[k]) * E;
        kernelgen::check_vec_operand(api, role[k], *lists[k], need, file, line);
    }
    kernelgen::check_vec_operand(api, "dst", dstLocal, uint64_t(params.repeatTimes) * total * E, file, line);
    kernelgen::count_repeats(api, params.repeatTimes);
    std::vector<T> out;
    for (uint16_t r = 0; r < params.repeatTimes; ++r) {
        uint64_t pos[4] = {0, 0, 0, 0};
        const uint64_t base = uint64_t(r) * total * E;
        for (;;) {
            int best = -1;
            bool exhausted = false;
            for (int k = 0; k < valid; ++k) {
                if (pos[k] >= params.elementLengths[k]) {
                    exhausted = true;
                    continue;
                }
                const T* p = lists[k]->data() + base + pos[k] * E;
                if (best < 0 || kernelgen::widen(p[kernelgen::kProposalScore]) >
                                    kernelgen::widen((lists[best]->data() + base + pos[best] * E)[kernelgen::kProposalScore]))
                    best = k;
            }
            if (best < 0 || (exhausted && params.ifExhaustedSuspension)) break;
            const T* p = lists[best]->data() + base + pos[best] * E;
            out.insert(out.end(), p, p + E);
            ++pos[best];
        }
    }
    std::memcpy(dstLocal.data(), out.data(), out.size() * sizeof(T));
}

}  // namespace AscendC
