// The CO1 -> CO2 (L0C -> UB) copy of the enhanced DataCopy in BLOCK_MODE_MATRIX:
// `co1_to_co2 CASE x.bin y.bin report`. x holds A (32 x 16 half) then B (16 x 16 half); the
// low-level path leaves C = A B (32 x 16 float) in L0C as two 16 x 16 fractals, which one
// DataCopy moves to UB with blockCount 2, blockLen 1 (one fractal), srcStride 0 and dstStride 2
// (two 32-byte blocks, 16 floats, of gap; the rest of UB holds -1), and y gets 528 floats of UB.
// Cases: `coupled` (an Ascend 310P-like chip, where the path exists; `coupled_co2` with the
// product in a CO2 buffer, which the vector APIs take there) and `split` (the default
// split-core chip, which has no L0C -> UB path: the copy carries `// BUG: split`).
#include <functional>
#include <map>

#include "kernel_operator.h"
#include "test_io.h"

using namespace AscendC;

static GM_ADDR g_x, g_y;

// `C2Pos`: where the product lands in UB: a vector position, or CO2, which is UB itself on the
// chips without separate cube and vector cores, so a vector API takes it there too.
template <TPosition C2Pos = TPosition::VECCALC>
static void product_to_ub() {
    TPipe pipe;
    TBuf<TPosition::A1> ba1;
    TBuf<TPosition::B1> bb1;
    TBuf<TPosition::A2> ba2;
    TBuf<TPosition::B2> bb2;
    TBuf<TPosition::CO1> bc1;
    TBuf<C2Pos> bc2;  // UB: CO2 and the vector positions share it
    pipe.InitBuffer(ba1, 1024);
    pipe.InitBuffer(bb1, 512);
    pipe.InitBuffer(ba2, 1024);
    pipe.InitBuffer(bb2, 512);
    pipe.InitBuffer(bc1, 2048);
    pipe.InitBuffer(bc2, 528 * 4);
    GlobalTensor<half> gx;
    gx.SetGlobalBuffer((__gm__ half*)g_x, 768);
    GlobalTensor<float> gy;
    gy.SetGlobalBuffer((__gm__ float*)g_y, 528);
    auto a1 = ba1.Get<half>(), b1 = bb1.Get<half>(), a2 = ba2.Get<half>(), b2 = bb2.Get<half>();
    auto c1 = bc1.Get<float>();
    auto c2 = bc2.template Get<float>();
    DataCopy(a1, gx, Nd2NzParams(1, 32, 16, 0, 16, 32, 1, 0));
    DataCopy(b1, gx[512], Nd2NzParams(1, 16, 16, 0, 16, 16, 1, 0));
    Duplicate(c2, -1.0f, 528);
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    LoadData(a2, a1, LoadData2DParams(0, 2, 1, 0, 0, false, 0));
    LoadData(b2, b1, LoadData2DParams(0, 1, 1, 0, 0, true, 0));
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    MmadParams mp;
    mp.m = 32;
    mp.n = 16;
    mp.k = 16;
    Mmad(c1, a2, b2, mp);
    SetFlag<HardEvent::M_V>(EVENT_ID0);
    WaitFlag<HardEvent::M_V>(EVENT_ID0);
    DataCopyParams dp;
    dp.blockCount = 2;
    dp.blockLen = 1;
    dp.srcStride = 0;
    dp.dstStride = 2;
    DataCopyEnhancedParams ep;
    ep.blockMode = BlockMode::BLOCK_MODE_MATRIX;
    DataCopy(c2, c1, dp, ep);  // BUG: split
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(gy, c2, 528);
}

static std::map<std::string, std::function<void()>> cases() {
    std::map<std::string, std::function<void()>> c;
    c["coupled"] = [] {
        kernelgen::chip().name = "ascend310p";
        kernelgen::chip().split_cores = false;
        product_to_ub();
    };
    c["coupled_co2"] = [] {
        kernelgen::chip().name = "ascend310p";
        kernelgen::chip().split_cores = false;
        product_to_ub<TPosition::CO2>();
    };
    c["split"] = [] { product_to_ub(); };
    return c;
}

int main(int argc, char** argv) {
    auto all = cases();
    const auto& body = tio::select_case(all, argc, argv, {5}, "co1_to_co2 CASE x.bin y.bin report");
    tio::Gm x(tio::read_bytes(argv[2]), "x"), y(528 * 4, "y");
    g_x = x.addr();
    g_y = y.addr();
    tio::run(1, argv[4], body);
    tio::write_bytes(argv[3], y.bytes.data(), y.bytes.size());
    return 0;
}
