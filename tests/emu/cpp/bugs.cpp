// One seeded-bug kernel per runtime rule: `bugs CASE report`. The offending call carries the
// comment `// BUG: <case>`; the test checks the failure code and that line in the report.
// Cases named ok_* break no rule and must run to the end.
#include <functional>
#include <map>

#include "cube_product.h"
#include "test_io.h"

using namespace AscendC;

static GM_ADDR g_x, g_y, g_small, g_seg;
constexpr uint32_t N = 1024;  // floats in x and y; g_small holds 10 floats (40 bytes)
// g_seg: 16 floats (64 bytes) in a 512-byte block carved from a 2048-byte segment (the
// allocator's layout that the harness registers from chips.json gm_allocation)
constexpr uint64_t kSegTensor = 64, kSegBlock = 512, kSegBytes = 2048;

struct Case {
    uint32_t blocks;
    std::function<void()> body;
};

static std::map<std::string, Case> cases() {
    std::map<std::string, Case> c;
    c["ub_overflow"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 2> qa, qb;
        pipe.InitBuffer(qa, 2, 64 * 1024);
        pipe.InitBuffer(qb, 2, 40 * 1024);  // its second buffer reaches 16 KB past the end of UB
        LocalTensor<float> inside = qb.AllocTensor<float>();
        LocalTensor<float> across = qb.AllocTensor<float>();
        Duplicate(inside, 1.0f, 10 * 1024);   // all inside UB: runs on the NPU
        Duplicate(across, 1.0f, 4 * 1024);    // the first 16 KB of it: still inside
        Duplicate(across, 1.0f, 10 * 1024);  // BUG: ub_overflow
    }};
    c["ub_overflow_past"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 2> qa, qb;
        pipe.InitBuffer(qa, 2, 96 * 1024);
        pipe.InitBuffer(qb, 2, 8 * 1024);  // BUG: ub_overflow_past
        qb.AllocTensor<float>();  // the buffer wholly past the end of UB, used: the error, at the InitBuffer
    }};
    c["ub_overflow_unused"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 2> qa;
        TBuf<TPosition::VECCALC> spare;
        pipe.InitBuffer(qa, 2, 96 * 1024);
        pipe.InitBuffer(spare, 32 * 1024);  // BUG: ub_overflow_unused
        LocalTensor<float> t = qa.AllocTensor<float>();
        Duplicate(t, 1.0f, 64);
        qa.FreeTensor(t);
    }};
    c["l1_overflow"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::A1, 1> qa;
        TQue<TPosition::B1, 1> qb;
        pipe.InitBuffer(qa, 2, 160 * 1024);
        pipe.InitBuffer(qb, 2, 128 * 1024);  // BUG: l1_overflow
    }};
    c["l0_overflow"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::A2> a2;
        TBuf<TPosition::CO1> co1;
        pipe.InitBuffer(a2, 64 * 1024);
        pipe.InitBuffer(co1, 128 * 1024 + 32);  // BUG: l0_overflow
    }};
    c["ok_cube_buffers_fill_l1_and_l0"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::A1, 1> qa;
        TQue<TPosition::B1, 1> qb;
        TBuf<TPosition::A2> a2;
        TBuf<TPosition::B2> b2;
        TBuf<TPosition::CO1> co1;
        pipe.InitBuffer(qa, 2, 128 * 1024);
        pipe.InitBuffer(qb, 2, 128 * 1024);
        pipe.InitBuffer(a2, 64 * 1024);
        pipe.InitBuffer(b2, 64 * 1024);
        pipe.InitBuffer(co1, 128 * 1024);
    }};
    c["buffer_count_pipe"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 2> qa;
        TQue<TPosition::VECOUT, 2> qb;
        pipe.InitBuffer(qa, 40, 32);
        pipe.InitBuffer(qb, 25, 32);  // BUG: buffer_count_pipe
    }};
    c["buffer_count_position"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 16> q;
        pipe.InitBuffer(q, 16, 64);
        for (int i = 0; i < 9; ++i) {
            auto t = q.AllocTensor<float>();  // BUG: buffer_count_position
            (void)t;
        }
    }};
    c["buffer_count_position_910"] = {1, [] {
        kernelgen::chip().name = "ascend910";
        kernelgen::chip().max_tensors_per_position = 4;
        TPipe pipe;
        TQue<TPosition::VECOUT, 1> q[5];
        for (auto& one : q) pipe.InitBuffer(one, 1, 64);
        for (auto& one : q) {
            auto t = one.AllocTensor<float>();  // BUG: buffer_count_position_910
            (void)t;
        }
    }};
    c["vector_on_l1"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::A1> l1;
        pipe.InitBuffer(l1, 1024);
        auto t = l1.Get<float>();
        Muls(t, t, 2.0f, 64);  // BUG: vector_on_l1
    }};
    c["deque_empty"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 2> q;
        pipe.InitBuffer(q, 2, 256);
        auto t = q.AllocTensor<float>();
        q.EnQue(t);
        auto a = q.DeQue<float>();
        auto b = q.DeQue<float>();  // BUG: deque_empty
        (void)a, (void)b;
    }};
    c["missing_free"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 2> q;
        pipe.InitBuffer(q, 2, 256);
        for (int i = 0; i < 3; ++i) {
            auto t = q.AllocTensor<float>();  // BUG: missing_free
            q.EnQue(t);
            t = q.DeQue<float>();
        }
    }};
    c["free_foreign"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> qa;
        TQue<TPosition::VECOUT, 1> qb;
        pipe.InitBuffer(qa, 1, 256);
        pipe.InitBuffer(qb, 1, 256);
        auto t = qa.AllocTensor<float>();  // alloc: free_foreign
        qb.FreeTensor(t);  // BUG: free_foreign
    }};
    c["enque_tbuf"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::VECOUT, 1> q;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(q, 1, 256);
        pipe.InitBuffer(buf, 256);
        auto t = buf.Get<float>();
        q.EnQue(t);  // BUG: enque_tbuf
    }};
    c["use_after_free"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> q;
        TBuf<TPosition::VECCALC> out;
        pipe.InitBuffer(q, 1, 256);
        pipe.InitBuffer(out, 256);
        auto t = q.AllocTensor<float>();
        auto o = out.Get<float>();
        Duplicate(t, 1.0f, 64);
        q.FreeTensor(t);
        Adds(o, t[8], 1.0f, 32);  // BUG: use_after_free
    }};
    c["leak"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, 256);
        auto t = q.AllocTensor<float>();  // BUG: leak
        q.EnQue(t);
    }};
    c["queue_depth"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 2, 256);
        auto a = q.AllocTensor<float>();
        auto b = q.AllocTensor<float>();
        q.EnQue(a);
        q.EnQue(b);  // BUG: queue_depth
    }};
    c["datacopy_unaligned"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECIN> buf;
        pipe.InitBuffer(buf, 1024);
        GlobalTensor<float> gx;
        gx.SetGlobalBuffer((__gm__ float*)g_x, N);
        auto t = buf.Get<float>();
        DataCopy(t, gx, 10);  // BUG: datacopy_unaligned
    }};
    c["datacopy_block_count"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECIN> buf;
        pipe.InitBuffer(buf, 1024);
        GlobalTensor<float> gx;
        gx.SetGlobalBuffer((__gm__ float*)g_x, N);
        auto t = buf.Get<float>();
        DataCopy(t, gx, DataCopyParams(5000, 1, 0, 0));  // BUG: datacopy_block_count
    }};
    c["ub_offset"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 1024);
        auto t = buf.Get<float>();
        Add(t, t[3], t[64], 8);  // BUG: ub_offset
    }};
    c["count_exceeds"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> a, b;
        pipe.InitBuffer(a, 256);
        pipe.InitBuffer(b, 512);
        auto x = a.Get<float>();
        auto y = b.Get<float>();
        Duplicate(y, 2.0f, 128);
        // dst x holds 64 elements: a write past it, into y's data
        Mul(x, y, y, 128);  // BUG: count_exceeds
        Adds(y, y, 1.0f, 64);  // y's first 64 elements were overwritten: read before written again
    }};
    c["repeat_range"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> a;
        pipe.InitBuffer(a, 160 * 1024);
        auto x = a.Get<float>();
        Add(x, x, x, 64, 300, BinaryRepeatParams());  // BUG: repeat_range
    }};
    c["mask_range"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> a;
        pipe.InitBuffer(a, 1024);
        auto x = a.Get<float>();
        Adds(x, x, 1.0f, 100, 1, UnaryRepeatParams());  // BUG: mask_range
    }};
    c["position"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::A2, 1> q;
        pipe.InitBuffer(q, 1, 1024);
        GlobalTensor<float> gx;
        gx.SetGlobalBuffer((__gm__ float*)g_x, N);
        auto t = q.AllocTensor<float>();
        // GM -> L0A: copies from GM land in UB or L1
        DataCopy(t, gx, 64);  // BUG: position
        q.FreeTensor(t);
    }};
    c["gm_extent"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECOUT> buf;
        pipe.InitBuffer(buf, 4096);
        GlobalTensor<float> gy;
        gy.SetGlobalBuffer((__gm__ float*)g_y + 768, 256);
        auto t = buf.Get<float>();
        Duplicate(t, 1.0f, 512);
        DataCopy(gy, t, 512);  // BUG: gm_extent
    }};
    // Reads past the SetGlobalBuffer size, inside x's allocation: a gm-extent warning per call
    // site (the NPU does not check the size), and the run goes on; likewise a write.
    c["ok_gm_read_past_extent"] = {2, [] {
        TPipe pipe;
        TBuf<TPosition::VECIN> buf;
        pipe.InitBuffer(buf, 4096);
        GlobalTensor<float> gx;
        gx.SetGlobalBuffer((__gm__ float*)g_x + 256 * GetBlockIdx(), 256);
        auto t = buf.Get<float>();
        for (int i = 0; i < 3; ++i) DataCopy(t, gx, 512);  // WARN: ok_gm_read_past_extent
    }};
    c["ok_gm_write_past_extent"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECOUT> buf;
        pipe.InitBuffer(buf, 4096);
        GlobalTensor<float> gy;
        gy.SetGlobalBuffer((__gm__ float*)g_y, 16);
        auto t = buf.Get<float>();
        Duplicate(t, 1.0f, 64);
        SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
        DataCopy(gy[16], t, 64);  // WARN: ok_gm_write_past_extent
    }};
    c["gm_extent_read_past_allocation"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECIN> buf;
        pipe.InitBuffer(buf, 4096);
        GlobalTensor<float> gx;
        gx.SetGlobalBuffer((__gm__ float*)g_x + 896, 128);
        auto t = buf.Get<float>();
        DataCopy(t, gx, 256);  // BUG: gm_extent_read_past_allocation
    }};
    c["gm_allocation"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECOUT> buf;
        pipe.InitBuffer(buf, 4096);
        GlobalTensor<float> gs;
        gs.SetGlobalBuffer((__gm__ float*)g_small);
        auto t = buf.Get<float>();
        Duplicate(t, 1.0f, 16);
        DataCopy(gs, t, 16);  // BUG: gm_allocation
    }};
    c["mask_overlap_partial"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> a;
        pipe.InitBuffer(a, 4096);
        auto t = a.Get<float>();
        Duplicate(t, 1.0f, 1024);
        Adds(t[8], t, 1.0f, 64, 1, UnaryRepeatParams(1, 1, 8, 8));  // BUG: mask_overlap_partial
    }};
    c["mask_overlap_across_repeats"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> a;
        pipe.InitBuffer(a, 4096);
        auto t = a.Get<float>();
        Duplicate(t, 1.0f, 1024);
        // repeat 1 reads t[64..128), which repeat 0 wrote
        Muls(t[64], t, 2.0f, 64, 2, UnaryRepeatParams(1, 1, 8, 8));  // BUG: mask_overlap_across_repeats
    }};
    c["ok_mask_overlap"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> a;
        pipe.InitBuffer(a, 4096);
        auto t = a.Get<float>();
        Duplicate(t, 1.0f, 1024);
        Adds(t, t, 1.0f, 64, 4, UnaryRepeatParams(1, 1, 8, 8));  // in place, repeat by repeat
        // accumulate 4 repeats of t[512..768) into t[0..64): dst and src1 with repeat stride 0
        Add(t, t[512], t, 64, 4, BinaryRepeatParams(1, 1, 1, 0, 8, 0));
        auto h = t[768].ReinterpretCast<half>();
        Cast(h, t[512], RoundMode::CAST_RINT, 64, 2, UnaryRepeatParams(1, 1, 4, 8));  // disjoint
    }};
    // Partial source/destination overlap in the APIs outside the elementwise engines: each
    // overlap_<api> case puts the destination 32 bytes (or one element) into a source.
    auto overlap_case = [](std::function<void(LocalTensor<float>&)> body) {
        return [body] {
            TPipe pipe;
            TBuf<TPosition::VECCALC> a;
            pipe.InitBuffer(a, 4096);
            auto t = a.Get<float>();
            Duplicate(t, 1.0f, 1024);
            body(t);
        };
    };
    c["overlap_compare"] = {1, overlap_case([](LocalTensor<float>& t) {
        auto bits = t[32].ReinterpretCast<uint8_t>();  // 8 bytes of bits at byte 128, inside src0
        Compare(bits, t, t[512], CMPMODE::LT, 64);  // BUG: overlap_compare
    })};
    c["overlap_compare_scalar"] = {1, overlap_case([](LocalTensor<float>& t) {
        CompareScalar(t[8].ReinterpretCast<uint8_t>(), t, 0.5f, CMPMODE::GT, 64);  // BUG: overlap_compare_scalar
    })};
    c["overlap_select"] = {1, overlap_case([](LocalTensor<float>& t) {
        auto sel = t[768].ReinterpretCast<uint8_t>();
        Select(t[16], sel, t, t[512], SELMODE::VSEL_TENSOR_TENSOR_MODE, 64);  // BUG: overlap_select
    })};
    c["overlap_reduce_sum"] = {1, overlap_case([](LocalTensor<float>& t) {
        ReduceSum(t[8], t, t[512], 64);  // BUG: overlap_reduce_sum
    })};
    c["overlap_reduce_work"] = {1, overlap_case([](LocalTensor<float>& t) {
        ReduceMax(t[512], t, t[32], 64);  // BUG: overlap_reduce_work
    })};
    c["overlap_whole_reduce"] = {1, overlap_case([](LocalTensor<float>& t) {
        WholeReduceSum(t[16], t, 64, 2, 1, 1, 8);  // BUG: overlap_whole_reduce
    })};
    c["overlap_block_reduce"] = {1, overlap_case([](LocalTensor<float>& t) {
        BlockReduceMax(t[8], t, 1, 64, 1, 1, 8);  // BUG: overlap_block_reduce
    })};
    c["overlap_pair_reduce"] = {1, overlap_case([](LocalTensor<float>& t) {
        PairReduceSum(t[16], t, 1, 64, 1, 1, 8);  // BUG: overlap_pair_reduce
    })};
    c["overlap_gather"] = {1, overlap_case([](LocalTensor<float>& t) {
        auto off = t[768].ReinterpretCast<int32_t>();
        Duplicate(off, 64, 16);  // every element from byte 64 of src: src read [0, 68)
        Gather(t[8], t, off.ReinterpretCast<uint32_t>(), 0, 16);  // BUG: overlap_gather
    })};
    c["overlap_gather_mask"] = {1, overlap_case([](LocalTensor<float>& t) {
        uint64_t kept = 0;
        GatherMask(t[8], t, 7, false, 0, GatherMaskParams(1, 1, 8, 0), kept);  // BUG: overlap_gather_mask
    })};
    c["overlap_brcb"] = {1, overlap_case([](LocalTensor<float>& t) {
        Brcb(t, t[8], 1, BrcbRepeatParams(1, 8));  // BUG: overlap_brcb
    })};
    c["overlap_transpose"] = {1, overlap_case([](LocalTensor<float>& t) {
        auto h = t.ReinterpretCast<half>();
        Transpose(h[16], h);  // BUG: overlap_transpose
    })};
    c["ok_overlap_in_place"] = {1, overlap_case([](LocalTensor<float>& t) {
        // in place (the same start) and disjoint operands are allowed
        WholeReduceSum(t, t, 64, 4, 1, 1, 8);
        BlockReduceSum(t[256], t[256], 2, 64, 1, 1, 8);
        ReduceSum(t[512], t[512], t[768], 128);
        Duplicate(t[768].ReinterpretCast<int32_t>(), 4, 8);
        Gather(t[800], t[512], t[768].ReinterpretCast<uint32_t>(), 0, 8);
        for (int i = 0; i < 4; ++i) Adds(t[i * 64 + 64], t[i * 64], 1.0f, 64);  // one line, disjoint calls
    })};
    for (const char* name : {"cube_mte2_mte1", "cube_mte1_m", "cube_m_fix", "cube_war_m_mte1", "cube_war_fix_m",
                             "ok_cube_flags"})
        c[name] = {1, [name] { cube_product(g_x, g_y, CubeProduct{name, 0, 0, 0, 16, true}); }};
    // A scalar read of a ReduceMax result with no V_S flag: --cce-auto-sync (on by default) has the
    // compiler insert it, so the run passes; with KERNELGEN_AUTO_SYNC=0 it is a pipe-hazard.
    c["scalar_after_reduce"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 4096);
        GlobalTensor<float> gx;
        gx.SetGlobalBuffer((__gm__ float*)g_x, N);
        auto t = buf.Get<float>();
        DataCopy(t, gx, 256);
        PipeBarrier<PIPE_ALL>();
        ReduceMax(t[512], t, t[768], 256);
        float peak = t[512].GetValue(0);  // BUG: scalar_after_reduce
        (void)peak;
    }};
    c["scalar_read_orders_earlier_copies"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 4096);
        GlobalTensor<float> gx, gy;
        gx.SetGlobalBuffer((__gm__ float*)g_x, N);
        gy.SetGlobalBuffer((__gm__ float*)g_y, N);
        auto idx = buf.Get<float>();
        auto vals = idx[256];
        DataCopy(idx, gx, 64);          // MTE2: what the scalar unit reads
        DataCopy(vals, gx[64], 64);     // MTE2: what MTE3 copies out
        float first = idx.GetValue(0);  // auto-sync's MTE2 -> S pair stands just before this read
        (void)first;
        DataCopy(gy, vals, 64);  // BUG: scalar_read_orders_earlier_copies
    }};
    c["ok_gm_read_pad"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECIN> buf;
        pipe.InitBuffer(buf, 4096);
        GlobalTensor<float> gs;
        gs.SetGlobalBuffer((__gm__ float*)g_small);
        auto t = buf.Get<float>();
        DataCopy(t, gs, 16);  // 64 bytes from a 40-byte allocation: inside its 32-byte padding
    }};
    c["gm_read_past_pad"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECIN> buf;
        pipe.InitBuffer(buf, 4096);
        GlobalTensor<float> gs;
        gs.SetGlobalBuffer((__gm__ float*)g_small);
        auto t = buf.Get<float>();
        DataCopy(t, gs, 24);  // BUG: gm_read_past_pad
    }};
    // Past the block, inside the segment: a read lands on mapped memory (a warning), a write
    // would overwrite whatever the allocator placed there, and past the segment nothing is known.
    c["ok_gm_read_past_block"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECIN> buf;
        pipe.InitBuffer(buf, 4096);
        GlobalTensor<float> gs;
        gs.SetGlobalBuffer((__gm__ float*)g_seg);
        auto t = buf.Get<float>();
        DataCopy(t, gs, 256);  // WARN: ok_gm_read_past_block
    }};
    c["gm_read_past_segment"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECIN> buf;
        pipe.InitBuffer(buf, 4096);
        GlobalTensor<float> gs;
        gs.SetGlobalBuffer((__gm__ float*)g_seg);
        auto t = buf.Get<float>();
        DataCopy(t, gs, 520);  // BUG: gm_read_past_segment
    }};
    c["gm_write_past_block"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECOUT> buf;
        pipe.InitBuffer(buf, 4096);
        GlobalTensor<float> gs;
        gs.SetGlobalBuffer((__gm__ float*)g_seg);
        auto t = buf.Get<float>();
        Duplicate(t, 1.0f, 256);
        SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
        DataCopy(gs, t, 136);  // BUG: gm_write_past_block
    }};
    c["gm_scalar_write"] = {1, [] {
        GlobalTensor<float> gx;
        gx.SetGlobalBuffer((__gm__ float*)g_x + N - 16, 16);
        gx.SetValue(16, 1.0f);  // BUG: gm_scalar_write
    }};
    c["two_pipes"] = {1, [] {
        TPipe a;
        TPipe b;  // BUG: two_pipes
    }};
    c["datacopypad_chip"] = {1, [] {
        kernelgen::chip().name = "ascend910";
        kernelgen::chip().has_datacopypad = false;
        TPipe pipe;
        TBuf<TPosition::VECIN> buf;
        pipe.InitBuffer(buf, 1024);
        GlobalTensor<float> gx;
        gx.SetGlobalBuffer((__gm__ float*)g_x, N);
        auto t = buf.Get<float>();
        DataCopyPad(t, gx, DataCopyExtParams(1, 40, 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0));  // BUG: datacopypad_chip
    }};
    c["bf16_chip"] = {1, [] {
        kernelgen::chip().name = "ascend310p";
        kernelgen::chip().has_bf16 = false;
        TPipe pipe;
        TBuf<TPosition::VECCALC> a, b;
        pipe.InitBuffer(a, 1024);
        pipe.InitBuffer(b, 1024);
        auto x = a.Get<float>();
        auto y = b.Get<bfloat16_t>();
        Cast(y, x, RoundMode::CAST_RINT, 64);  // BUG: bf16_chip
    }};
    c["compare_align"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> a, m;
        pipe.InitBuffer(a, 1024);
        pipe.InitBuffer(m, 256);
        auto x = a.Get<float>();
        auto bits = m.Get<uint8_t>();
        Compare(bits, x, x, CMPMODE::LT, 40);  // BUG: compare_align
    }};
    c["gm_call_operator_write"] = {1, [] {
        GlobalTensor<float> gy;
        gy.SetGlobalBuffer((__gm__ float*)g_y);
        gy(N) = 1.0f;  // BUG: gm_call_operator_write
    }};
    c["ub_call_operator_write"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf, next;
        pipe.InitBuffer(buf, 256);
        pipe.InitBuffer(next, 256);  // the write lands in its bytes
        auto t = buf.Get<float>();
        Duplicate(next.Get<float>(), 0.0f, 64);
        t(64) = 1.0f;  // BUG: ub_call_operator_write
        volatile float v = next.Get<float>().GetValue(0);  // the overwritten element, read
        (void)v;
    }};
    c["operator_form"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 1024);
        auto whole = buf.Get<float>();
        auto part = buf.Get<float>(64);
        whole = part
            + part;  // BUG: operator_form
    }};
    c["set_size_past_buffer"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 256);
        auto t = buf.Get<float>();
        t.SetSize(32);
        t.SetSize(64);
        t.SetSize(65);  // BUG: set_size_past_buffer
        Duplicate(t, 0.0f, 65);
    }};
    c["sync_all_early_return"] = {3, [] {
        if (GetBlockIdx() == 2) return;
        SyncAll();  // BUG: sync_all_early_return
    }};
    c["ok_sync_all"] = {4, [] {
        // each block publishes its index, then reads its neighbour's after the barrier
        GlobalTensor<float> gy;
        gy.SetGlobalBuffer((__gm__ float*)g_y, N);
        int64_t idx = GetBlockIdx();
        gy.SetValue(idx, static_cast<float>(10 + idx));
        SyncAll();
        float other = gy.GetValue((idx + 1) % GetBlockNum());
        std::printf("block %lld sees %g\n", (long long)idx, other);
    }};
    c["ok_racing_read_dropped"] = {2, [] {
        // each block stores its 4 floats, then copies the whole 32-byte block in: block 1's copy
        // also reads block 0's stores, unordered (no SyncAll), and keeps only its own lanes
        TPipe pipe;
        TBuf<TPosition::VECIN> buf;
        pipe.InitBuffer(buf, 32);
        GlobalTensor<float> gy;
        gy.SetGlobalBuffer((__gm__ float*)g_y, 8);
        int64_t idx = GetBlockIdx();
        for (int k = 0; k < 4; ++k) gy.SetValue(4 * idx + k, static_cast<float>(4 * idx + k));
        auto t = buf.Get<float>();
        DataCopy(t, gy, 8);  // WARN: ok_racing_read_dropped
        std::printf("block %lld own %g %g other %g\n", (long long)idx, t.GetValue(4 * idx),
                    t.GetValue(4 * idx + 3), t.GetValue(idx == 1 ? 0 : 4));
        if (idx == 1) std::printf("block 1 scalar %g\n", gy.GetValue(1));
    }};
    c["ok_double_buffer"] = {4, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 2> qin;
        TQue<TPosition::VECOUT, 2> qout;
        pipe.InitBuffer(qin, 2, 64 * sizeof(float));
        pipe.InitBuffer(qout, 2, 64 * sizeof(float));
        GlobalTensor<float> gx, gy;
        gx.SetGlobalBuffer((__gm__ float*)g_x + 256 * GetBlockIdx(), 256);
        gy.SetGlobalBuffer((__gm__ float*)g_y + 256 * GetBlockIdx(), 256);
        for (int i = 0; i < 4; ++i) {
            auto t = qin.AllocTensor<float>();
            DataCopy(t, gx[i * 64], 64);
            qin.EnQue(t);
            auto u = qin.DeQue<float>();
            auto o = qout.AllocTensor<float>();
            Muls(o, u, 2.0f, 64);
            qout.EnQue(o);
            qin.FreeTensor(u);
            auto w = qout.DeQue<float>();
            DataCopy(gy[i * 64], w, 64);
            qout.FreeTensor(w);
        }
        float s = gx.GetValue(0);
        gy.SetValue(0, s * 2);
    }};
    return c;
}

int main(int argc, char** argv) {
    auto all = cases();
    const auto& chosen = tio::select_case(all, argc, argv, {3}, "bugs CASE report");
    std::vector<uint8_t> xs(N * sizeof(float));
    for (uint32_t i = 0; i < N; ++i) {
        float v = static_cast<float>(i);
        std::memcpy(&xs[i * 4], &v, 4);
    }
    tio::Gm x(xs, "x"), y(N * sizeof(float), "y"), small(40, "small");
    std::vector<uint8_t> seg(kSegBytes, 0xFF);
    kernelgen::gm_register(seg.data(), kSegTensor, "seg", kSegBlock, kSegBytes);
    g_x = x.addr();
    g_y = y.addr();
    g_small = small.addr();
    g_seg = seg.data();
    tio::run(chosen.blocks, argv[2], chosen.body);
    std::printf("y[0..3] = %g %g %g %g\n", ((float*)g_y)[0], ((float*)g_y)[1], ((float*)g_y)[2], ((float*)g_y)[1023]);
    return 0;
}
