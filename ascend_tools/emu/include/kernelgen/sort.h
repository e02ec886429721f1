// (score, index) sorting of the Atlas A2/A3-class vector unit: Sort32, Concat, Sort, MrgSort and Extract,
// from the documented behaviour (AscendC API reference, Vector computation > sorting). Unlike the
// region proposals of the 910/310P (proposal.h), a sorted element is one 8-byte structure:
// the score in the low bytes (4 for float; 2 for half, then 2 reserved bytes) and its uint32_t
// index in the high 4 bytes. Scores sort descending; Sort32 sorts 32 per repeat and, for equal
// scores, keeps the one that came first in front (documented). Users pad a tail that is not a
// multiple of 32 themselves (e.g. with -inf), since every repeat sorts exactly 32.
#pragma once

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "proposal.h"

namespace kernelgen {

inline constexpr uint32_t kSortStructBytes = 8;
inline constexpr uint32_t kSortIndexByte = 4;  // the index sits in the high 4 bytes
inline constexpr uint32_t kSortPerRepeat = 32;  // Sort32 and Extract: 32 structures per repeat
inline constexpr uint16_t kMrgSortMaxLength = 4095;  // elementCountList entries: [0, 4095]

// Elements of T that one (score, index) structure takes (2 for float, 4 for half).
template <class T>
inline constexpr uint32_t sort_struct_elems() {
    static_assert(kSortStructBytes % sizeof(T) == 0, "sorting structures hold half or float scores");
    return kSortStructBytes / sizeof(T);
}

// Chips whose (score, index) form the emulator models, by __CCE_AICORE__, from each API's
// product-support table (the catalog's `archs`): Sort32 on Atlas A2/A3 (dav-c220) and Atlas
// 200I/500 A2 (dav-m300); Sort, MrgSort and Extract on Atlas A2/A3. The Atlas inference AI Core
// (dav-m200) documents MrgSort/Extract over region proposals: use MrgSort4 / ProposalExtract.
struct SortChipSupport {
    const char* api;
    uint32_t aicore[2];
};
inline constexpr SortChipSupport kSortChipSupport[] = {
    {"Sort32", {220, 300}},
    {"Sort", {220, 220}},
    {"MrgSort", {220, 220}},
    {"Extract", {220, 220}},
};

inline void check_sort_chip(const char* api, const char* file, int line) {
    const uint32_t arch = chip().cce_aicore;
    for (const auto& row : kSortChipSupport) {
        if (std::strcmp(row.api, api) != 0) continue;
        if (row.aicore[0] == arch || row.aicore[1] == arch) return;
        failf("chip-support", file, line,
              "%s: the (score, index) sorting form exists on Atlas A2/A3-class chips, not on %s (Ascend 910 and "
              "310P sort region proposals: RpSort16, MrgSort4, ProposalConcat/ProposalExtract)",
              api, chip().name.c_str());
    }
}

template <class T>
inline void write_sort_struct(T* at, T score, uint32_t index) {
    auto* bytes = reinterpret_cast<uint8_t*>(at);
    std::memset(bytes, 0, kSortStructBytes);  // the reserved bytes of the half form read as 0 here
    std::memcpy(bytes, &score, sizeof(T));
    std::memcpy(bytes + kSortIndexByte, &index, sizeof(uint32_t));
}

template <class T>
inline T sort_struct_score(const T* at) {
    return at[0];
}

template <class T>
inline uint32_t sort_struct_index(const T* at) {
    uint32_t index;
    std::memcpy(&index, reinterpret_cast<const uint8_t*>(at) + kSortIndexByte, sizeof(uint32_t));
    return index;
}

// Sorts n scores with their indices into (score, index) structures at out, largest first, in
// independent groups of `group` (equal scores keep their input order, as documented).
template <class T>
inline void sort_structs(T* out, const T* score, const uint32_t* index, uint64_t n, uint64_t group) {
    constexpr uint64_t E = sort_struct_elems<T>();
    std::vector<T> buf(n * E);
    std::vector<uint64_t> order(group);
    for (uint64_t g = 0; g < n; g += group) {
        const uint64_t len = std::min(group, n - g);
        order.resize(len);
        std::iota(order.begin(), order.end(), g);
        std::stable_sort(order.begin(), order.end(),
                         [&](uint64_t a, uint64_t b) { return widen(score[a]) > widen(score[b]); });
        for (uint64_t i = 0; i < len; ++i)
            write_sort_struct(buf.data() + (g + i) * E, score[order[i]], index[order[i]]);
    }
    if (n) std::memcpy(out, buf.data(), buf.size() * sizeof(T));
}

// Lists taking part for a validBit mask (the documented values 0b11, 0b111, 0b1111); 0 otherwise.
inline int merge_list_count(uint16_t validBit) {
    return validBit == 0b11 ? 2 : validBit == 0b111 ? 3 : validBit == 0b1111 ? 4 : 0;
}

// MrgSort's merge of 2-4 sorted lists into dst, largest score first; for equal scores the
// earlier list goes first (the docs do not say; MrgSort4 here does the same). With `suspend`
// it stops as soon as one list is exhausted and reports how many structures each list gave.
// repeatTimes > 1 is documented only for four equally long lists stored back to back, without
// suspension: each repeat then moves sources and dst on by the four lists' total.
template <class T>
inline void merge_sort_lists(const AscendC::LocalTensor<T>& dst, const AscendC::MrgSortSrcList<T>& src,
                             const uint16_t lengths[4], uint16_t validBit, bool suspend, int32_t repeatTimes,
                             uint32_t consumedOut[4], const char* file, int line) {
    const char* api = "MrgSort";
    check_sort_chip(api, file, line);
    check_repeat(api, repeatTimes, file, line);
    const int valid = merge_list_count(validBit);
    if (valid == 0)
        failf("param-range", file, line, "MrgSort: validBit is %u, must be 0b11, 0b111 or 0b1111 (2 to 4 lists)",
              validBit);
    constexpr uint64_t E = sort_struct_elems<T>();
    const AscendC::LocalTensor<T>* lists[4] = {&src.src1, &src.src2, &src.src3, &src.src4};
    uint64_t total = 0;
    for (int k = 0; k < valid; ++k) {
        if (lengths[k] > kMrgSortMaxLength)
            failf("param-range", file, line, "MrgSort: elementCountList[%d] is %u, must be in [0, %u]", k, lengths[k],
                  kMrgSortMaxLength);
        total += lengths[k];
    }
    if (repeatTimes > 1) {
        bool ok = valid == 4 && !suspend;
        for (int k = 1; ok && k < 4; ++k)
            ok = lengths[k] == lengths[0] && lists[k]->data() == lists[k - 1]->data() + lengths[0] * E;
        if (!ok)
            failf("param-range", file, line,
                  "MrgSort: repeatTimes is %d, but repeats apply only to four lists (validBit 0b1111) of equal "
                  "length stored back to back, without exhausted suspension",
                  repeatTimes);
    }
    const uint64_t repeats = uint64_t(std::max(repeatTimes, 1));
    const char* role[] = {"src1", "src2", "src3", "src4"};
    for (int k = 0; k < valid; ++k)
        check_vec_operand(api, role[k], *lists[k], ((repeats - 1) * total + lengths[k]) * E, file, line);
    count_repeats(api, uint64_t(repeatTimes));
    std::vector<T> out;
    uint64_t pos[4] = {0, 0, 0, 0};
    for (uint64_t r = 0; r < uint64_t(repeatTimes); ++r) {
        std::fill(pos, pos + 4, 0);
        const uint64_t base = r * total * E;
        for (;;) {
            int best = -1;
            bool exhausted = false;
            for (int k = 0; k < valid; ++k) {
                if (pos[k] >= lengths[k]) {
                    exhausted = true;
                    continue;
                }
                const T score = sort_struct_score(lists[k]->data() + base + pos[k] * E);
                if (best < 0 ||
                    widen(score) > widen(sort_struct_score(lists[best]->data() + base + pos[best] * E)))
                    best = k;
            }
            if (best < 0 || (exhausted && suspend)) break;
            const T* p = lists[best]->data() + base + pos[best] * E;
            out.insert(out.end(), p, p + E);
            ++pos[best];
        }
    }
    check_vec_operand(api, "dst", dst, out.size(), file, line);
    if (!out.empty()) std::memcpy(dst.data(), out.data(), out.size() * sizeof(T));
    if (consumedOut)
        for (int k = 0; k < 4; ++k) consumedOut[k] = k < valid ? uint32_t(pos[k]) : 0;
}

}  // namespace kernelgen

namespace AscendC {

// Each repeat sorts 32 scores of src0 with their indices from src1 into 32 (score, index)
// structures of dst, largest score first; repeats do not sort across each other.
template <class T>
inline void Sort32(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& src1,
                   const int32_t repeatTime, KG_LOC) {
    const char* api = "Sort32";
    kernelgen::check_sort_chip(api, file, line);
    kernelgen::check_repeat(api, repeatTime, file, line);
    constexpr uint64_t E = kernelgen::sort_struct_elems<T>();
    const uint64_t n = uint64_t(repeatTime) * kernelgen::kSortPerRepeat;
    kernelgen::check_vec_operand(api, "src0", src0, n, file, line);
    kernelgen::check_vec_operand(api, "src1", src1, n, file, line);
    kernelgen::check_vec_operand(api, "dst", dst, n * E, file, line);
    kernelgen::count_repeats(api, uint64_t(repeatTime));
    kernelgen::sort_structs(dst.data(), src0.data(), src1.data(), n, kernelgen::kSortPerRepeat);
}

// The high-level sort: 32 scores of concat (with their indices) per repeat, like Sort32, or with
// isFullSort all repeatTime * 32 of them as one descending run. tmp is the caller's scratch
// space (GetSortTmpSize), which the emulator does not need.
template <class T, bool isFullSort>
inline void Sort(const LocalTensor<T>& dst, const LocalTensor<T>& concat, const LocalTensor<uint32_t>& index,
                 LocalTensor<T>& tmp, const int32_t repeatTime, KG_LOC) {
    const char* api = "Sort";
    kernelgen::check_sort_chip(api, file, line);
    kernelgen::check_repeat(api, repeatTime, file, line);
    constexpr uint64_t E = kernelgen::sort_struct_elems<T>();
    const uint64_t n = uint64_t(repeatTime) * kernelgen::kSortPerRepeat;
    kernelgen::check_vec_operand(api, "concat", concat, n, file, line);
    kernelgen::check_vec_operand(api, "index", index, n, file, line);
    kernelgen::check_vec_operand(api, "tmp", tmp, 0, file, line);
    kernelgen::check_vec_operand(api, "dst", dst, n * E, file, line);
    kernelgen::count_repeats(api, uint64_t(repeatTime));
    kernelgen::sort_structs(dst.data(), concat.data(), index.data(), n, isFullSort ? n : kernelgen::kSortPerRepeat);
}

// Concat (API reference, atlasascendc_api_07_0839: "merges the source to sort one to one into
// concat, after which Sort can run", 16 elements per repeat, repeatTimes in [0, 255]; Atlas
// A2/A3 and the Atlas inference series AI Core). What "merges" means follows from the layout each
// chip's Sort documents (atlasascendc_api_07_0563): on Atlas A2/A3 Sort reads concat as plain
// scores, so Concat copies repeatTimes * 16 elements (inferred: the page shows no layout); on the
// Atlas inference AI Core Sort sorts region proposals [x1, y1, x2, y2, score, label, r0, r1], so
// Concat writes the elements into the score field of 16 proposals per repeat, ProposalConcat with
// modeNumber 4 (the emulator's Sort and Extract model the A2 form only). tmpLocal is the
// caller's scratch space (GetConcatTmpSize), checked as an operand; the emulator needs none.
template <class T>
inline void Concat(LocalTensor<T>& concatLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& tmpLocal,
                   const int32_t repeatTimes, KG_LOC) {
    const char* api = "Concat";
    const uint32_t arch = kernelgen::chip().cce_aicore;
    if (arch == 200) {
        kernelgen::check_vec_operand(api, "tmpLocal", tmpLocal, 0, file, line);
        kernelgen::proposal_field(api, concatLocal, srcLocal, repeatTimes, kernelgen::kProposalScore, true, file, line);
        return;
    }
    if (arch != 220)
        kernelgen::failf("chip-support", file, line,
                         "%s: not on %s (the API reference lists Atlas A2/A3 and the Atlas inference series AI Core)",
                         api, kernelgen::chip().name.c_str());
    kernelgen::check_repeat(api, repeatTimes, file, line);
    const uint64_t n = uint64_t(repeatTimes) * kernelgen::kProposalsPerRepeat;
    kernelgen::check_vec_operand(api, "srcLocal", srcLocal, n, file, line);
    kernelgen::check_vec_operand(api, "tmpLocal", tmpLocal, 0, file, line);
    kernelgen::check_vec_operand(api, "concatLocal", concatLocal, n, file, line);
    kernelgen::count_repeats(api, uint64_t(repeatTimes));
    const std::vector<T> copy(srcLocal.data(), srcLocal.data() + n);
    std::copy(copy.begin(), copy.end(), concatLocal.data());
}

namespace detail {
// Structures each list gave in the core's last MrgSort with exhausted suspension (what
// GetMrgSortResult reads); each core runs on its own thread.
inline thread_local uint32_t mrgsort_consumed[4] = {0, 0, 0, 0};
}  // namespace detail

// MrgSort with the parameters in one MrgSort4Info (the form MrgSort4 also takes).
template <class T>
inline void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& sortList, const MrgSort4Info& params,
                    KG_LOC) {
    kernelgen::merge_sort_lists(dst, sortList, params.elementLengths, params.validBit, params.ifExhaustedSuspension,
                                params.repeatTimes, params.ifExhaustedSuspension ? detail::mrgsort_consumed : nullptr,
                                file, line);
}

// How many structures each list gave in the last MrgSort with ifExhaustedSuspension (API
// reference, GetMrgSortResult): the merge stops when a list runs out, and the kernel carries
// the rest over (DrivingSDK unique_v2).
inline void GetMrgSortResult(uint16_t& mrgSortList1, uint16_t& mrgSortList2, uint16_t& mrgSortList3,
                             uint16_t& mrgSortList4) {
    mrgSortList1 = static_cast<uint16_t>(detail::mrgsort_consumed[0]);
    mrgSortList2 = static_cast<uint16_t>(detail::mrgsort_consumed[1]);
    mrgSortList3 = static_cast<uint16_t>(detail::mrgsort_consumed[2]);
    mrgSortList4 = static_cast<uint16_t>(detail::mrgsort_consumed[3]);
}

// MrgSort with separate parameters: in the exhausted-suspension mode sortedNum receives how
// many structures each list gave before the merge stopped.
template <class T, bool isExhaustedSuspension = false>
inline void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& sortList, const uint16_t elementCountList[4],
                    uint32_t sortedNum[4], uint16_t validBit, const int32_t repeatTime, KG_LOC) {
    kernelgen::merge_sort_lists(dst, sortList, elementCountList, validBit, isExhaustedSuspension, repeatTime,
                                isExhaustedSuspension ? sortedNum : nullptr, file, line);
}

// Splits 32 (score, index) structures per repeat into the scores and the indices.
template <class T>
inline void Extract(const LocalTensor<T>& dstValue, const LocalTensor<uint32_t>& dstIndex, const LocalTensor<T>& sorted,
                    const int32_t repeatTime, KG_LOC) {
    const char* api = "Extract";
    kernelgen::check_sort_chip(api, file, line);
    kernelgen::check_repeat(api, repeatTime, file, line);
    constexpr uint64_t E = kernelgen::sort_struct_elems<T>();
    const uint64_t n = uint64_t(repeatTime) * kernelgen::kSortPerRepeat;
    kernelgen::check_vec_operand(api, "sorted", sorted, n * E, file, line);
    kernelgen::check_vec_operand(api, "dstValue", dstValue, n, file, line);
    kernelgen::check_vec_operand(api, "dstIndex", dstIndex, n, file, line);
    kernelgen::count_repeats(api, uint64_t(repeatTime));
    std::vector<T> values(n);
    std::vector<uint32_t> indices(n);
    for (uint64_t i = 0; i < n; ++i) {
        values[i] = kernelgen::sort_struct_score(sorted.data() + i * E);
        indices[i] = kernelgen::sort_struct_index(sorted.data() + i * E);
    }
    if (n) {
        std::memcpy(dstValue.data(), values.data(), n * sizeof(T));
        std::memcpy(dstIndex.data(), indices.data(), n * sizeof(uint32_t));
    }
}

// Concat(dst, src, repeatTimes, modeNumber) and Extract(dst, src, repeatTimes, modeNumber): the
// names early CANN releases gave ProposalConcat / ProposalExtract. No reference page of them
// survives; Ascend/samples' 2023 TopK for the Atlas inference series calls them so, feeding
// RpSort16 and MrgSort4 (region proposals), with the later functions' argument list. They differ
// from the sort helpers above by their argument types (two tensors and two integers).
template <class T>
inline void Concat(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const int32_t repeatTimes,
                   const int32_t modeNumber, KG_LOC) {
    kernelgen::proposal_field("Concat", dstLocal, srcLocal, repeatTimes, modeNumber, true, file, line);
}
template <class T>
inline void Extract(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const int32_t repeatTimes,
                    const int32_t modeNumber, KG_LOC) {
    kernelgen::proposal_field("Extract", dstLocal, srcLocal, repeatTimes, modeNumber, false, file, line);
}


}  // namespace AscendC
