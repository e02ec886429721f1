// The bias table (BT, TPosition C2): DataCopy L1 -> C2 (half -> float on the way, or float as
// it is) and Mmad with a C2 bias: `bias_table CASE x.bin y.bin report`. x holds A (16 x 32 half),
// B (32 x N half, N = 32 or 64 by case) and the bias (half, or float for `float_gap`); GM -> L1
// by Nd2Nz (A, B) and a count copy (bias), L1 -> L0A/L0B by LoadData, the bias L1 -> BT by one
// DataCopy with the case's DataCopyParams, then Mmad(C, A, B, bias) with cmatrixInitVal false
// and Fixpipe of C (16 x N float) into y. The failing call of a case carries `// BUG: <case>`.
#include <functional>
#include <map>

#include "kernel_operator.h"
#include "test_io.h"

using namespace AscendC;

static GM_ADDR g_x, g_y;

struct BiasCase {
    uint16_t n = 32;              // columns of B and C
    uint32_t bias_elems = 32;     // bias elements in GM and L1
    DataCopyParams copy{1, 1, 0, 0};
    uint32_t bt_offset = 0;       // elements of the BT tensor before the copy's destination
    bool sync_bt = true;          // the MTE1 -> M flag pair after the BT copy
    bool init_val = false;        // MmadParams.cmatrixInitVal
};

constexpr uint16_t kM = 16, kK = 32;

// The BT copy and the Mmad of one case; U is the bias type in GM and L1.
template <class U>
static void bias_product(const BiasCase& c) {
    TPipe pipe;
    TBuf<TPosition::A1> ba1;
    TBuf<TPosition::B1> bb1;
    TBuf<TPosition::C1> bbias1;
    TBuf<TPosition::A2> ba2;
    TBuf<TPosition::B2> bb2;
    TBuf<TPosition::C2> bbt;
    TBuf<TPosition::CO1> bc1;
    pipe.InitBuffer(ba1, kM * kK * 2);
    pipe.InitBuffer(bb1, kK * c.n * 2);
    pipe.InitBuffer(bbias1, c.bias_elems * sizeof(U));
    pipe.InitBuffer(ba2, kM * kK * 2);
    pipe.InitBuffer(bb2, kK * c.n * 2);
    pipe.InitBuffer(bbt, 512);
    pipe.InitBuffer(bc1, kM * c.n * 4);
    GlobalTensor<half> ga, gb;
    ga.SetGlobalBuffer((__gm__ half*)g_x, kM * kK);
    gb.SetGlobalBuffer((__gm__ half*)g_x + kM * kK, kK * c.n);
    GlobalTensor<U> gbias;
    gbias.SetGlobalBuffer((__gm__ U*)((__gm__ half*)g_x + kM * kK + kK * c.n), c.bias_elems);
    GlobalTensor<float> gy;
    gy.SetGlobalBuffer((__gm__ float*)g_y, kM * c.n);
    auto a1 = ba1.Get<half>(), b1 = bb1.Get<half>(), a2 = ba2.Get<half>(), b2 = bb2.Get<half>();
    auto bias1 = bbias1.Get<U>();
    auto bt = bbt.Get<float>();
    auto c1 = bc1.Get<float>();
    // A (16 x 32) and B (32 x N) as Nz: 16-element columns, M or K rows each.
    DataCopy(a1, ga, Nd2NzParams(1, kM, kK, 0, kK, kM, 1, 0));
    DataCopy(b1, gb, Nd2NzParams(1, kK, c.n, 0, c.n, kK, 1, 0));
    DataCopy(bias1, gbias, c.bias_elems);
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    // L0A: A's two fractals in order; L0B: each k-block row of B's fractals, transposed.
    LoadData(a2, a1, LoadData2DParams(0, kK / 16, 1, 0, 0, false, 0));
    for (uint16_t i = 0; i < kK / 16; ++i)
        LoadData(b2[i * c.n * 16], b1[i * 256], LoadData2DParams(0, c.n / 16, kK / 16, 0, 0, true, 0));
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    DataCopy(bt[c.bt_offset], bias1, c.copy);  // BUG: bt_unaligned
    if (c.sync_bt) {
        SetFlag<HardEvent::MTE1_M>(EVENT_ID1);
        WaitFlag<HardEvent::MTE1_M>(EVENT_ID1);
    }
    MmadParams mp;
    mp.m = kM;
    mp.n = c.n;
    mp.k = kK;
    mp.cmatrixInitVal = c.init_val;
    Mmad(c1, a2, b2, bt, mp);  // BUG: no_sync
    SetFlag<HardEvent::M_FIX>(EVENT_ID0);
    WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    FixpipeParamsV220 fp;
    fp.nSize = c.n;
    fp.mSize = kM;
    fp.srcStride = kM;
    fp.dstStride = c.n;
    Fixpipe(gy, c1, fp);
}

static std::map<std::string, std::function<void()>> cases() {
    std::map<std::string, std::function<void()>> c;
    // one 64-byte unit of halves: 32 floats in BT
    c["half_bias"] = [] { bias_product<half>({}); };
    // two bursts of 32 halves with a 64-byte (two 32-byte units) gap between them in L1
    c["strided"] = [] {
        BiasCase k;
        k.n = 64;
        k.bias_elems = 128;
        k.copy = DataCopyParams(2, 1, 2, 0);
        bias_product<half>(k);
    };
    // float as it is: two bursts of 16 floats, one 64-byte unit (16 floats) of gap in BT
    c["float_gap"] = [] {
        BiasCase k;
        k.n = 64;
        k.bias_elems = 64;
        k.copy = DataCopyParams(2, 1, 0, 1);
        bias_product<float>(k);
    };
    c["init_val_true"] = [] {
        BiasCase k;
        k.init_val = true;
        bias_product<half>(k);
    };
    c["bt_unaligned"] = [] {
        BiasCase k;
        k.bt_offset = 8;  // 32 bytes: BT operands start on 64-byte boundaries
        bias_product<half>(k);
    };
    c["no_sync"] = [] {
        BiasCase k;
        k.sync_bt = false;
        bias_product<half>(k);
    };
    c["bf16_pair"] = [] {
        TPipe pipe;
        TBuf<TPosition::C1> bl1;
        TBuf<TPosition::C2> bbt;
        pipe.InitBuffer(bl1, 64);
        pipe.InitBuffer(bbt, 128);
        DataCopy(bbt.Get<float>(), bl1.Get<bfloat16_t>(), DataCopyParams(1, 1, 0, 0));  // BUG: bf16_pair
    };
    c["ub_source"] = [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bub;
        TBuf<TPosition::C2> bbt;
        pipe.InitBuffer(bub, 64);
        pipe.InitBuffer(bbt, 128);
        DataCopy(bbt.Get<float>(), bub.Get<half>(), DataCopyParams(1, 1, 0, 0));  // BUG: ub_source
    };
    c["half_bias_in_bt"] = [] {
        TPipe pipe;
        TBuf<TPosition::A2> ba2;
        TBuf<TPosition::B2> bb2;
        TBuf<TPosition::C2> bbt;
        TBuf<TPosition::CO1> bc1;
        pipe.InitBuffer(ba2, 512);
        pipe.InitBuffer(bb2, 512);
        pipe.InitBuffer(bbt, 64);
        pipe.InitBuffer(bc1, 1024);
        MmadParams mp(16, 16, 16, 0, false, false);
        Mmad(bc1.Get<float>(), ba2.Get<half>(), bb2.Get<half>(), bbt.Get<half>(), mp);  // BUG: half_bias_in_bt
    };
    c["chip_310p"] = [] {
        kernelgen::chip().name = "ascend310p";
        kernelgen::chip().cce_aicore = 200;
        kernelgen::chip().split_cores = false;
        TPipe pipe;
        TBuf<TPosition::C1> bl1;
        TBuf<TPosition::C2> bbt;
        pipe.InitBuffer(bl1, 64);
        pipe.InitBuffer(bbt, 128);
        DataCopy(bbt.Get<float>(), bl1.Get<half>(), DataCopyParams(1, 1, 0, 0));  // BUG: chip_310p
    };
    return c;
}

int main(int argc, char** argv) {
    auto all = cases();
    const auto& body = tio::select_case(all, argc, argv, {5}, "bias_table CASE x.bin y.bin report");
    tio::Gm x(tio::read_bytes(argv[2]), "x"), y(kM * 64 * 4, "y");
    g_x = x.addr();
    g_y = y.addr();
    tio::run(1, argv[4], body);
    tio::write_bytes(argv[3], y.bytes.data(), y.bytes.size());
    return 0;
}
