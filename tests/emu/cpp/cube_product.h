// One 16 x 16 x 16 half product on the low-level cube path, shared by bugs.cpp (its pipe-hazard
// cases) and cube_rules.cpp (its alignment cases and counters): GM -> L1 (MTE2), L1 -> L0A/L0B
// (LoadData, MTE1), Mmad into L0C (M), Fixpipe to GM (FIX), and with `reload` L0A loaded again
// for a second product. `skip` leaves out the flag pair of that name (the failing call carries
// that case's BUG marker); the offsets (in elements) move A's L1 source, its L0A copy and the
// L0C result off their memory's alignment. A call's markers name every case that fails there.
#pragma once

#include <string>

#include "kernel_operator.h"

struct CubeProduct {
    std::string skip;                 // cube_mte2_mte1, cube_mte1_m, cube_m_fix, cube_war_*
    uint32_t a1 = 0, a2 = 0, c1 = 0;  // operand offsets
    uint16_t k = 16;
    bool reload = false;              // the second product (write-after-read pairs)
};

inline void cube_product(GM_ADDR x, GM_ADDR y, const CubeProduct& p) {
    using namespace AscendC;
    TPipe pipe;
    TBuf<TPosition::A1> ba1;
    TBuf<TPosition::B1> bb1;
    TBuf<TPosition::A2> ba2;
    TBuf<TPosition::B2> bb2;
    TBuf<TPosition::CO1> bc1;
    pipe.InitBuffer(ba1, 1024);
    pipe.InitBuffer(bb1, 512);
    pipe.InitBuffer(ba2, 1024);
    pipe.InitBuffer(bb2, 512);
    pipe.InitBuffer(bc1, 2048);
    GlobalTensor<half> ga;
    ga.SetGlobalBuffer((__gm__ half*)x, 512);
    GlobalTensor<float> gc;
    gc.SetGlobalBuffer((__gm__ float*)y, 256);
    auto a1 = ba1.Get<half>(), b1 = bb1.Get<half>(), a2 = ba2.Get<half>(), b2 = bb2.Get<half>();
    auto c1 = bc1.Get<float>();
    DataCopy(a1, ga, Nd2NzParams(1, 16, 16, 0, 16, 16, 1, 0));
    DataCopy(b1, ga[256], Nd2NzParams(1, 16, 16, 0, 16, 16, 1, 0));
    if (p.skip != "cube_mte2_mte1") {
        SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    }
    LoadData(a2[p.a2], a1[p.a1], LoadData2DParams(0, 1, 1, 0, 0, false, 0));  // BUG: cube_mte2_mte1; BUG: load_data_l0a_unaligned
    LoadData(b2, b1, LoadData2DParams(0, 1, 1, 0, 0, true, 0));
    if (p.skip != "cube_mte1_m") {
        SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
        WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    }
    MmadParams mp;
    mp.m = 16;
    mp.n = 16;
    mp.k = p.k;
    Mmad(c1[p.c1], a2, b2, mp);  // BUG: cube_mte1_m; BUG: mmad_l0c_unaligned
    if (p.skip != "cube_m_fix") {
        SetFlag<HardEvent::M_FIX>(EVENT_ID0);
        WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    }
    FixpipeParamsV220 fp;
    fp.nSize = 16;
    fp.mSize = 16;
    fp.srcStride = 16;
    fp.dstStride = 16;
    Fixpipe<float, float, CFG_ROW_MAJOR>(gc, c1, fp);  // BUG: cube_m_fix
    if (!p.reload) return;
    if (p.skip != "cube_war_m_mte1") {
        SetFlag<HardEvent::M_MTE1>(EVENT_ID1);
        WaitFlag<HardEvent::M_MTE1>(EVENT_ID1);
    }
    LoadData(a2, a1, LoadData2DParams(0, 1, 1, 0, 0, false, 0));  // BUG: cube_war_m_mte1
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    if (p.skip != "cube_war_fix_m") {  // L0C is rewritten: Fixpipe must have read it
        SetFlag<HardEvent::FIX_M>(EVENT_ID0);
        WaitFlag<HardEvent::FIX_M>(EVENT_ID0);
    }
    Mmad(c1, a2, b2, mp);  // BUG: cube_war_fix_m
}
