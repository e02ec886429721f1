// Device-side code as real kernels write it and g++ must accept through the emulator headers:
// no `using namespace AscendC` (system functions called unqualified, also from templates),
// __forceinline__, ASSERT, and APIs the catalog once lacked (Scatter, ArithProgression,
// DataCopyEnhancedParams, DataCacheCleanAndInvalid, TOTAL_VEC_LOCAL_SIZE, the region-proposal
// sort of 310P top-k kernels).
// Unqualified calls with explicit template arguments (`Adds<float>(...)`) resolve by ADL.
// The pipes are ordered with flags as on the NPU (the emulator's pipe model checks them).
// `real_world CASE x out report`; x is 64 floats.
#include <functional>
#include <map>

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "test_io.h"

using namespace matmul;  // as sample matmul kernels do; AscendC itself is not opened

constexpr uint32_t N = 64;

template <typename T>
__forceinline__ uint32_t BlockOffset(uint32_t share) {
    return share * GetBlockIdx() + 0 * GetBlockNum();
}

// The CCE built-ins, as bisheng kernels read them: out[k] = block_idx, out[4 + k] = block_num,
// out[8 + k] = get_block_idx() for each of the 4 blocks.
__aicore__ void cce_builtins(GM_ADDR, GM_ADDR out) {
    AscendC::GlobalTensor<float> outGm;
    outGm.SetGlobalBuffer((__gm__ float*)out, 2 * N);
    int32_t idx = (int32_t)block_idx;
    int64_t n = block_num;
    outGm.SetValue(idx, static_cast<float>(idx));
    outGm.SetValue(4 + idx, static_cast<float>(n));
    outGm.SetValue(8 + idx, static_cast<float>(get_block_idx() * get_block_num()));
}

// out[0:N) = x reversed by Scatter with byte offsets from ArithProgression; out[N:2N) =
// ArithProgression(1.5, 0.25); the copy in uses DataCopy with plain enhanced parameters.
__aicore__ void scatter_progression(GM_ADDR x, GM_ADDR out) {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> inBuf, offBuf, outBuf, progBuf, workspace;
    AscendC::GlobalTensor<float> xGm, outGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + BlockOffset<float>(0), N);
    outGm.SetGlobalBuffer((__gm__ float*)out, 2 * N);
    pipe.InitBuffer(inBuf, N * sizeof(float));
    pipe.InitBuffer(offBuf, N * sizeof(int32_t));
    pipe.InitBuffer(outBuf, N * sizeof(float));
    pipe.InitBuffer(progBuf, N * sizeof(float));
    pipe.InitBuffer(workspace, AscendC::TOTAL_VEC_LOCAL_SIZE - 4 * N * sizeof(float));
    AscendC::LocalTensor<float> in = inBuf.Get<float>();
    AscendC::DataCopyEnhancedParams plain;
    AscendC::DataCopy(in, xGm, {1, static_cast<uint16_t>(N * sizeof(float) / 32), 0, 0}, plain);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::LocalTensor<int32_t> offsets = offBuf.Get<int32_t>();
    AscendC::ArithProgression<int32_t>(offsets, static_cast<int32_t>((N - 1) * sizeof(float)),
                                       -static_cast<int32_t>(sizeof(float)), N);
    AscendC::LocalTensor<float> reversed = outBuf.Get<float>();
    AscendC::Scatter(reversed, in, offsets.ReinterpretCast<uint32_t>(), 0, N);
    AscendC::LocalTensor<float> prog = progBuf.Get<float>();
    AscendC::ArithProgression<float>(prog, 1.0f, 0.25f, N);
    Adds<float>(prog, prog, 0.5f, N);  // explicit template arguments, found by ADL
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::DataCopy(outGm, reversed, N);
    AscendC::DataCopy(outGm[N], prog, N);
    AscendC::DataCacheCleanAndInvalid<float, AscendC::CacheLine::SINGLE_CACHE_LINE,
                                      AscendC::DcciDst::CACHELINE_OUT>(outGm);
    AscendC::DataCacheCleanAndInvalid<float, AscendC::CacheLine::ENTIRE_DATA_CACHE>(outGm);
}

__aicore__ void assert_false(GM_ADDR x, GM_ADDR) {
    AscendC::GlobalTensor<float> xGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, N);
    uint32_t share = N / 3;
    ASSERT(share % 8 == 0, "share %u is not a multiple of 8", share);  // ASSERT: assert_false
}

__aicore__ void enhanced_relu(GM_ADDR x, GM_ADDR) {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    AscendC::GlobalTensor<float> xGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, N);
    pipe.InitBuffer(buf, N * sizeof(float));
    AscendC::LocalTensor<float> t = buf.Get<float>();
    AscendC::DataCopyEnhancedParams relu({AscendC::BlockMode::BLOCK_MODE_NORMAL, AscendC::DeqScale::DEQ_NONE, 0, 0,
                                          true, pad_t::PAD_NONE, 0});
    AscendC::DataCopy(t, xGm, {1, 8, 0, 0}, relu);  // ENHANCED: enhanced_relu
}

// 64 scores sorted as 310P top-k kernels do: ProposalConcat (score, label = position), RpSort16
// per 16, MrgSort4 over the four sorted lists, ProposalExtract. out = sorted scores, labels.
// `early`: the same with the names Ascend/samples' 2023 TopK uses, the sort helper Concat for the
// scores (the 310P form fills the score field) and the 4-argument Concat / Extract for the rest.
template <bool early>
__aicore__ void proposal_sort(GM_ADDR x, GM_ADDR out) {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    AscendC::GlobalTensor<float> xGm, outGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, N);
    outGm.SetGlobalBuffer((__gm__ float*)out, 2 * N);
    pipe.InitBuffer(buf, (3 * N + 2 * N * 8) * sizeof(float));
    AscendC::LocalTensor<float> scores = buf.GetWithOffset<float>(N, 0);
    AscendC::LocalTensor<float> labels = buf.GetWithOffset<float>(N, N * sizeof(float));
    AscendC::LocalTensor<float> proposals = buf.GetWithOffset<float>(N * 8, 2 * N * sizeof(float));
    AscendC::LocalTensor<float> sorted = buf.GetWithOffset<float>(N * 8, (2 * N + N * 8) * sizeof(float));
    AscendC::DataCopy(scores, xGm, N);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::ArithProgression<float>(labels, 0.0f, 1.0f, N);
    if constexpr (early) {
        AscendC::Concat(proposals, scores, sorted, N / 16);  // sorted: the scratch space, unused yet
        AscendC::Concat(proposals, labels, N / 16, 5);
    } else {
        AscendC::ProposalConcat(proposals, scores, N / 16, 4);
        AscendC::ProposalConcat(proposals, labels, N / 16, 5);
    }
    AscendC::RpSort16(sorted, proposals, N / 16);
    const uint16_t lengths[4] = {16, 16, 16, 16};
    AscendC::MrgSortSrcList<float> lists(sorted, sorted[16 * 8], sorted[32 * 8], sorted[48 * 8]);
    AscendC::MrgSort4(proposals, lists, AscendC::MrgSort4Info(lengths, false, 15, 1));
    if constexpr (early) {
        AscendC::Extract(scores, proposals, N / 16, 4);
        AscendC::Extract(labels, proposals, N / 16, 5);
    } else {
        AscendC::ProposalExtract(scores, proposals, N / 16, 4);
        AscendC::ProposalExtract(labels, proposals, N / 16, 5);
    }
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::DataCopy(outGm, scores, N);
    AscendC::DataCopy(outGm[N], labels, N);
}

__aicore__ void proposal_chip(GM_ADDR, GM_ADDR) {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 16 * 8 * sizeof(float));
    AscendC::LocalTensor<float> t = buf.Get<float>();
    AscendC::RpSort16(t, t, 1);  // CHIP: proposal_chip
}

int main(int argc, char** argv) {
    static const std::map<std::string, std::function<void(GM_ADDR, GM_ADDR)>> cases = {
        {"scatter_progression", scatter_progression},
        {"assert_false", assert_false},
        {"enhanced_relu", enhanced_relu},
        {"proposal_sort", proposal_sort<false>},
        {"proposal_sort_early", proposal_sort<true>},
        {"proposal_chip", proposal_chip},
        {"cce_builtins", cce_builtins},
    };
    const auto& body = tio::select_case(cases, argc, argv, {5}, "real_world CASE x out report");
    if (std::string(argv[1]).rfind("proposal_sort", 0) == 0) {  // the region-proposal APIs are 310P/910 ones
        kernelgen::chip().name = "ascend310p";
        kernelgen::chip().cce_aicore = 200;
    }
    tio::Gm x(tio::read_bytes(argv[2]), "x"), out(2 * N * sizeof(float), "out");
    const uint32_t blocks = std::string(argv[1]) == "cce_builtins" ? 4 : 1;
    tio::run(blocks, argv[4], [&] { body(x.addr(), out.addr()); });
    tio::write_bytes(argv[3], out.bytes.data(), out.bytes.size());
    return 0;
}
