// The cube's img2col path: `img2col CASE report [x w out H W C Cout KH KW stride pad dil kchunks mchunk]`.
// conv_a2: the feature map (NC1HWC0 in GM) goes to A1, Load3D turns it into the img2col matrix
// in L0A (in K chunks of kStartPt/kExtension, M chunks of mStartPt/mExtension), the weight
// fractals go GM -> L0B, Mmad multiplies into L0C (later K chunks accumulate) and Fixpipe writes
// out[Ho * Wo, Cout]. conv_b2 loads the img2col matrix into L0B instead, the weight into L0A,
// and writes out[Cout, Ho * Wo] (NCHW). conv_regs takes the feature map and a pad value of 1
// from SetFmatrix / SetLoadDataPaddingValue (IsResetLoad3dConfig {false, false}). The seeded
// bugs' offending calls carry `// BUG: <case>`.
#include <cstdlib>
#include <functional>
#include <map>

#include "lib/matmul_intf.h"
#include "test_io.h"

using namespace AscendC;

struct Conv {
    uint16_t H = 8, W = 8, C = 16, Cout = 16, KH = 3, KW = 3;
    uint8_t stride = 1, pad = 1, dil = 1;
    uint16_t kchunks = 1, mchunk = 0;  // mchunk 0: the whole M at once
    uint16_t Ho() const { return (H + 2 * pad - dil * (KH - 1) - 1) / stride + 1; }
    uint16_t Wo() const { return (W + 2 * pad - dil * (KW - 1) - 1) / stride + 1; }
    uint32_t K() const { return uint32_t(C) * KH * KW; }
};

static GM_ADDR g_x, g_w, g_out;
static Conv g_conv;
constexpr uint32_t C0 = 16;  // half

static uint16_t up16(uint32_t v) { return uint16_t((v + 15) / 16 * 16); }

// Load3D params for rows [m0, m0 + mExt) and columns [k0, k0 + kExt) of the img2col matrix.
static LoadData3DParamsV2<half> load3d(const Conv& c, uint16_t m0, uint16_t mExt, uint16_t k0, uint16_t kExt) {
    LoadData3DParamsV2<half> p;
    for (int i = 0; i < 4; ++i) p.padList[i] = c.pad;
    p.l1H = c.H, p.l1W = c.W, p.channelSize = c.C;
    p.kStartPt = k0, p.kExtension = kExt, p.mStartPt = m0, p.mExtension = mExt;
    p.strideW = p.strideH = c.stride;
    p.filterW = c.KW, p.filterH = c.KH;
    p.dilationFilterW = p.dilationFilterH = c.dil;
    return p;
}

// Load3D reads the feature map and pad value from SetFmatrix / SetLoadDataPaddingValue.
static constexpr IsResetLoad3dConfig kRegs = {false, false};
static constexpr IsResetLoad3dConfig kFmatrixRegs = {false, true};

// The conv on the low-level cube path; `b2` puts the img2col matrix in L0B, `regs` takes the
// feature map and pad value from the registers.
template <bool b2, bool regs = false>
static void conv(const Conv& c) {
    TPipe pipe;
    TBuf<TPosition::A1> ba1;
    TBuf<TPosition::A2> ba2;
    TBuf<TPosition::B2> bb2;
    TBuf<TPosition::CO1> bc1;
    const uint32_t M = uint32_t(c.Ho()) * c.Wo(), K = c.K(), kc = K / c.kchunks;
    const uint32_t mc = c.mchunk ? c.mchunk : M;
    pipe.InitBuffer(ba1, uint32_t(c.C) * c.H * c.W * sizeof(half));
    const uint32_t col_bytes = up16(mc) * kc * sizeof(half), w_bytes = up16(c.Cout) * kc * sizeof(half);
    pipe.InitBuffer(ba2, b2 ? w_bytes : col_bytes);
    pipe.InitBuffer(bb2, b2 ? col_bytes : w_bytes);
    pipe.InitBuffer(bc1, up16(mc) * up16(c.Cout) * sizeof(float));
    GlobalTensor<half> gx, gw;
    GlobalTensor<float> gout;
    gx.SetGlobalBuffer((__gm__ half*)g_x, uint32_t(c.C) * c.H * c.W);
    gw.SetGlobalBuffer((__gm__ half*)g_w, uint32_t(up16(c.Cout)) * K);
    gout.SetGlobalBuffer((__gm__ float*)g_out, M * c.Cout);
    auto a1 = ba1.Get<half>(), a2 = ba2.Get<half>(), b2t = bb2.Get<half>();
    auto c1 = bc1.Get<float>();
    DataCopy(a1, gx, uint32_t(c.C) * c.H * c.W);
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    if (regs) {
        const uint8_t pads[4] = {c.pad, c.pad, c.pad, c.pad};
        SetFmatrix(c.H, c.W, pads, FmatrixMode::FMATRIX_LEFT);
        SetLoadDataPaddingValue(half(1.0f));
    }
    auto col = b2 ? b2t : a2;
    auto wl0 = b2 ? a2 : b2t;
    for (uint32_t m0 = 0; m0 < M; m0 += mc) {
        const uint16_t mExt = uint16_t(std::min(mc, M - m0));
        for (uint32_t j = 0; j < c.kchunks; ++j) {
            // The weight fractals of this K chunk ([Cout/16][K/16][16][16] in GM). L0A (A[Cout, K],
            // zZ) takes them in that order; L0B (B[K, Cout], ZN) K-fractal-row by row: fractal
            // (fk, fn) at fk * Cout1 + fn, read K/16 apart in GM.
            const uint16_t cout1 = up16(c.Cout) / 16, kc1 = uint16_t(kc / C0), k1 = uint16_t(K / C0);
            if (b2) {
                for (uint16_t fm = 0; fm < cout1; ++fm)
                    LoadData(wl0[fm * kc1 * 256], gw, LoadData2DParams(uint16_t(fm * k1 + j * kc1), uint8_t(kc1), 1, 0, 0,
                                                                      false, 0));
            } else {
                for (uint16_t fk = 0; fk < kc1; ++fk)
                    LoadData(wl0[fk * cout1 * 256], gw, LoadData2DParams(uint16_t(j * kc1 + fk), uint8_t(cout1), k1, 0, 0,
                                                                        false, 0));
            }
            auto p = load3d(c, uint16_t(m0), mExt, uint16_t(j * kc), uint16_t(kc));
            if (regs) {
                p.l1H = p.l1W = 1;  // ignored: the registers hold the feature map
                p.padValue = half(0.0f);
                LoadData<half, kRegs>(col, a1, p);
            } else {
                LoadData(col, a1, p);
            }
            SetFlag<HardEvent::MTE2_M>(EVENT_ID0);
            WaitFlag<HardEvent::MTE2_M>(EVENT_ID0);
            SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
            WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
            MmadParams mp;
            mp.m = b2 ? c.Cout : mExt;
            mp.n = b2 ? mExt : c.Cout;
            mp.k = uint16_t(kc);
            mp.cmatrixInitVal = j == 0;
            Mmad(c1, b2 ? a2 : col, b2 ? col : b2t, mp);
            SetFlag<HardEvent::M_MTE1>(EVENT_ID0);
            WaitFlag<HardEvent::M_MTE1>(EVENT_ID0);
            SetFlag<HardEvent::M_MTE2>(EVENT_ID0);
            WaitFlag<HardEvent::M_MTE2>(EVENT_ID0);
        }
        SetFlag<HardEvent::M_FIX>(EVENT_ID0);
        WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
        FixpipeParamsV220 fp;
        fp.mSize = b2 ? c.Cout : mExt;
        fp.nSize = b2 ? mExt : c.Cout;
        fp.srcStride = up16(fp.mSize);
        fp.dstStride = b2 ? M : c.Cout;
        Fixpipe<float, float, CFG_ROW_MAJOR>(b2 ? gout[m0] : gout[m0 * c.Cout], c1, fp);
        SetFlag<HardEvent::FIX_M>(EVENT_ID0);
        WaitFlag<HardEvent::FIX_M>(EVENT_ID0);
    }
}

// An A1 feature map and an L0A tile for the seeded Load3D bugs (8 x 8 x 16 halves, 3x3, pad 1).
struct Tiles {
    TPipe pipe;
    TBuf<TPosition::A1> ba1;
    TBuf<TPosition::A2> ba2;
    LocalTensor<half> a1, a2;
    explicit Tiles(uint32_t l1_halves = 16 * 8 * 8 + 64, uint32_t l0_halves = 64 * 144) {
        pipe.InitBuffer(ba1, l1_halves * sizeof(half));
        pipe.InitBuffer(ba2, l0_halves * sizeof(half));
        a1 = ba1.Get<half>();
        a2 = ba2.Get<half>();
    }
};

using MM = matmul::Matmul<matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>,
                          matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>,
                          matmul::MatmulType<TPosition::GM, CubeFormat::ND, float>>;
using MMScm = matmul::Matmul<matmul::MatmulType<TPosition::TSCM, CubeFormat::NZ, half>,
                             matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>,
                             matmul::MatmulType<TPosition::GM, CubeFormat::ND, float>>;

// A 32 x 32 x 32 single-block tiling: one Iterate is the whole result (enPartialSum allowed).
static TCubeTiling single_block() {
    TCubeTiling t{};
    t.M = 32, t.N = 32, t.Ka = 32, t.Kb = 32;
    t.singleCoreM = 32, t.singleCoreN = 32, t.singleCoreK = 32;
    t.baseM = 32, t.baseN = 32, t.baseK = 32;
    t.depthA1 = t.depthB1 = 1;
    return t;
}

static std::map<std::string, std::pair<uint32_t, std::function<void()>>> cases() {
    std::map<std::string, std::pair<uint32_t, std::function<void()>>> c;
    c["conv_a2"] = {1, [] { conv<false>(g_conv); }};
    c["conv_b2"] = {1, [] { conv<true>(g_conv); }};
    c["conv_regs"] = {1, [] { conv<false, true>(g_conv); }};
    // C = A0 B0 + A1 B1 with two Iterates, the second with enPartialSum: x holds A0|A1 (two
    // 32 x 32 halves), w holds B0|B1.
    c["ok_partial_sum"] = {1, [] {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);
        TCubeTiling t = single_block();
        TPipe pipe;
        MM mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        GlobalTensor<half> a, b;
        GlobalTensor<float> cg;
        a.SetGlobalBuffer((__gm__ half*)g_x, 2 * 32 * 32);
        b.SetGlobalBuffer((__gm__ half*)g_w, 2 * 32 * 32);
        cg.SetGlobalBuffer((__gm__ float*)g_out, 32 * 32);
        for (int part = 0; part < 2; ++part) {
            mm.SetTensorA(a[part * 32 * 32]);
            mm.SetTensorB(b[part * 32 * 32]);
            mm.Iterate(part > 0);
        }
        mm.GetTensorC(cg);
        mm.End();
    }};
    c["partial_sum_first"] = {1, [] {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);
        TCubeTiling t = single_block();
        TPipe pipe;
        MM mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        GlobalTensor<half> a, b;
        a.SetGlobalBuffer((__gm__ half*)g_x, 32 * 32);
        b.SetGlobalBuffer((__gm__ half*)g_w, 32 * 32);
        mm.SetTensorA(a);
        mm.SetTensorB(b);
        mm.Iterate(true);  // BUG: partial_sum_first
    }};
    c["partial_sum_many_blocks"] = {1, [] {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);
        TCubeTiling t = single_block();
        t.baseM = 16;  // two blocks along M: CO1 holds only one of them
        TPipe pipe;
        MM mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        GlobalTensor<half> a, b;
        a.SetGlobalBuffer((__gm__ half*)g_x, 32 * 32);
        b.SetGlobalBuffer((__gm__ half*)g_w, 32 * 32);
        mm.SetTensorA(a);
        mm.SetTensorB(b);
        mm.Iterate(false);
        mm.SetTensorA(a);
        mm.Iterate(true);  // BUG: partial_sum_many_blocks
    }};
    // A TSCM operand at one tap's element offset (8 halves = 16 B) breaks L1's 32-byte start.
    c["tscm_tap_offset"] = {1, [] {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);
        TCubeTiling t = single_block();
        TPipe pipe;
        MMScm mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        TBuf<TPosition::TSCM> scm;
        pipe.InitBuffer(scm, 2 * 32 * 32 * sizeof(half));
        mm.SetTensorA(scm.Get<half>()[8]);  // BUG: tscm_tap_offset
    }};
    c["load3d_l1_unaligned"] = {1, [] {
        Tiles t;
        LoadData(t.a2, t.a1[8], load3d(Conv{}, 0, 64, 0, 144));  // BUG: load3d_l1_unaligned
    }};
    // The feature map claims 9 rows; the L1 tensor holds 8 (+ 4 spare halves).
    c["load3d_reads_past_l1"] = {1, [] {
        Tiles t(16 * 8 * 8 + 16);
        Conv c9;
        c9.H = 9;
        LoadData(t.a2, t.a1, load3d(c9, 0, 64, 0, 144));  // BUG: load3d_reads_past_l1
    }};
    c["load3d_l0a_too_small"] = {1, [] {
        Tiles t(16 * 8 * 8, 64 * 128);
        LoadData(t.a2, t.a1, load3d(Conv{}, 0, 64, 0, 144));  // BUG: load3d_l0a_too_small
    }};
    c["load3d_k_start_unaligned"] = {1, [] {
        Tiles t;
        LoadData(t.a2, t.a1, load3d(Conv{}, 0, 64, 8, 128));  // BUG: load3d_k_start_unaligned
    }};
    c["load3d_k_past_matrix"] = {1, [] {
        Tiles t;
        LoadData(t.a2, t.a1, load3d(Conv{}, 0, 16, 128, 32));  // BUG: load3d_k_past_matrix
    }};
    c["load3d_stride_range"] = {1, [] {
        Tiles t;
        Conv c64;
        c64.stride = 64;
        LoadData(t.a2, t.a1, load3d(c64, 0, 16, 0, 144));  // BUG: load3d_stride_range
    }};
    c["load3d_repeats"] = {1, [] {
        Tiles t;
        LoadDataRepeatParam rp;
        rp.repeatTime = 1;
        SetLoadDataRepeat(rp);
        LoadData(t.a2, t.a1, load3d(Conv{}, 0, 16, 0, 144));  // one iteration: the default
        rp.repeatTime = 2;
        rp.repeatStride = 1;
        SetLoadDataRepeat(rp);
        LoadData(t.a2, t.a1, load3d(Conv{}, 0, 16, 0, 144));  // BUG: load3d_repeats
    }};
    // 910B documents no 8-bit types for B1 -> B2 (A1 -> A2 has them).
    c["load3d_int8_into_l0b"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::B1> bb1;
        TBuf<TPosition::B2> bb2;
        pipe.InitBuffer(bb1, 32 * 8 * 8);
        pipe.InitBuffer(bb2, 64 * 288);
        LoadData3DParamsV2<int8_t> p;
        p.l1H = p.l1W = 8, p.channelSize = 32, p.kExtension = 288, p.mExtension = 64;
        for (int i = 0; i < 4; ++i) p.padList[i] = 1;
        p.filterW = p.filterH = 3;
        LoadData(bb2.Get<int8_t>(), bb1.Get<int8_t>(), p);  // BUG: load3d_int8_into_l0b
    }};
    // Ascend 910 (dav-c100) documents Load3Dv1 only.
    c["load3d_on_910"] = {1, [] {
        kernelgen::chip().name = "ascend910";
        kernelgen::chip().cce_aicore = 100;
        kernelgen::chip().split_cores = false;
        Tiles t;
        LoadData(t.a2, t.a1, load3d(Conv{}, 0, 64, 0, 144));  // BUG: load3d_on_910
    }};
    c["load3d_fmatrix_unset"] = {1, [] {
        Tiles t;
        LoadData<half, kFmatrixRegs>(t.a2, t.a1, load3d(Conv{}, 0, 64, 0, 144));  // BUG: load3d_fmatrix_unset
    }};
    // InitConstValue fills L0A with 2.0 (4 fractals = 64 x 16): the product with B = ones is 32.
    c["ok_init_const"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::A2> ba2;
        TBuf<TPosition::B2> bb2;
        TBuf<TPosition::CO1> bc1;
        pipe.InitBuffer(ba2, 64 * 16 * sizeof(half));
        pipe.InitBuffer(bb2, 16 * 16 * sizeof(half));
        pipe.InitBuffer(bc1, 64 * 16 * sizeof(float));
        auto a2 = ba2.Get<half>(), b2 = bb2.Get<half>();
        auto c1 = bc1.Get<float>();
        InitConstValue(a2, InitConstValueParams<half>(1, 4, 0, half(2.0f)));
        InitConstValue(b2, InitConstValueParams<half>(1, 1, 0, half(1.0f)));
        MmadParams mp;
        mp.m = 64, mp.n = 16, mp.k = 16;
        Mmad(c1, a2, b2, mp);
        SetFlag<HardEvent::M_FIX>(EVENT_ID0);
        WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
        GlobalTensor<float> gout;
        gout.SetGlobalBuffer((__gm__ float*)g_out, 64 * 16);
        FixpipeParamsV220 fp;
        fp.mSize = 64, fp.nSize = 16, fp.srcStride = 64, fp.dstStride = 16;
        Fixpipe<float, float, CFG_ROW_MAJOR>(gout, c1, fp);
    }};
    c["init_const_l0a_unaligned"] = {1, [] {
        Tiles t;
        InitConstValue(t.a2[16], InitConstValueParams<half>(1, 1, 0, half(0.0f)));  // BUG: init_const_l0a_unaligned
    }};
    c["init_const_past_tensor"] = {1, [] {
        Tiles t(16, 256);
        InitConstValue(t.a2, InitConstValueParams<half>(2, 1, 0, half(0.0f)));  // BUG: init_const_past_tensor
    }};
    return c;
}

int main(int argc, char** argv) {
    auto all = cases();
    const auto& chosen = tio::select_case(all, argc, argv, {3, 6, 17}, "img2col CASE report [x w out [conv params]]");
    std::vector<uint8_t> none(8192, 0);
    tio::Gm x(argc > 3 ? tio::read_bytes(argv[3]) : none, "x"), w(argc > 4 ? tio::read_bytes(argv[4]) : none, "w");
    if (argc == 17) {
        Conv& c = g_conv;
        uint16_t* fields[] = {&c.H, &c.W, &c.C, &c.Cout, &c.KH, &c.KW};
        for (int i = 0; i < 6; ++i) *fields[i] = uint16_t(std::atoi(argv[6 + i]));
        c.stride = uint8_t(std::atoi(argv[12]));
        c.pad = uint8_t(std::atoi(argv[13]));
        c.dil = uint8_t(std::atoi(argv[14]));
        c.kchunks = uint16_t(std::atoi(argv[15]));
        c.mchunk = uint16_t(std::atoi(argv[16]));
    }
    const size_t out_bytes = argc == 17 ? size_t(g_conv.Ho()) * g_conv.Wo() * g_conv.Cout * 4 : 64 * 16 * 4;
    tio::Gm out(out_bytes, "out");
    g_x = x.addr();
    g_w = w.addr();
    g_out = out.addr();
    tio::run(chosen.first, argv[2], chosen.second);
    if (argc > 5) tio::write_bytes(argv[5], out.bytes.data(), out.bytes.size());
    return 0;
}
