// Real-kernel idioms (section 9 of docs/ASCENDC_SPEC.md) in small kernels that must compile unchanged
// and compute the right thing: `compat CASE a b out report`.
#include <map>

#include "lib/matmul_intf.h"
#include "test_io.h"
#include "tiling/tiling_api.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

// Softmax over rows written the way hand-written kernels do it: ReduceMax, Duplicate/Adds, Exp,
// ReduceSum, Muls, with events and barriers between pipes.
class KernelRowSoftmax {
  public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, uint32_t rows, uint32_t cols, TPipe* pipe) {
        rows_ = rows;
        cols_ = cols;
        pipe_ = pipe;
        xGm.SetGlobalBuffer((__gm__ float*)x, rows * cols);
        yGm.SetGlobalBuffer((__gm__ float*)y, rows * cols);
        GM_ADDR user = GetUserWorkspace(workspace);
        (void)user;
        pipe_->InitBuffer(inQueue, BUFFER_NUM, cols * sizeof(float));
        pipe_->InitBuffer(outQueue, BUFFER_NUM, cols * sizeof(float));
        pipe_->InitBuffer(workBuf, cols * sizeof(float));
        pipe_->InitBuffer(scalarBuf, 64);
    }
    __aicore__ inline void Process() {
        for (uint32_t r = 0; r < rows_; ++r) {
            LocalTensor<float> x = inQueue.AllocTensor<float>();
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(cols_ * sizeof(float)), 0, 0, 0};
            DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
            DataCopyPad(x, xGm[r * cols_], copyParams, padParams);
            inQueue.EnQue(x);
            x = inQueue.DeQue<float>();
            LocalTensor<float> work = workBuf.Get<float>();
            LocalTensor<float> s = scalarBuf.Get<float>();
            ReduceMax<float>(s, x, work, cols_, false);
            event_t eventId = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
            SetFlag<HardEvent::V_S>(eventId);
            WaitFlag<HardEvent::V_S>(eventId);
            float mx = s.GetValue(0);
            LocalTensor<float> y = outQueue.AllocTensor<float>();
            Adds(y, x, -mx, cols_);
            PipeBarrier<PIPE_V>();
            Exp(y, y, cols_);
            ReduceSum(s, y, work, cols_);
            SetFlag<HardEvent::V_S>(eventId);
            WaitFlag<HardEvent::V_S>(eventId);
            float sum = s.GetValue(0);
            Muls(y, y, 1.0f / sum, cols_);
            outQueue.EnQue<float>(y);
            inQueue.FreeTensor(x);
            y = outQueue.DeQue<float>();
            DataCopy(yGm[r * cols_], y, cols_);
            outQueue.FreeTensor(y);
        }
    }

  private:
    TPipe* pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue;
    TBuf<> workBuf;
    TBuf<TPosition::VECCALC> scalarBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t rows_, cols_;
};

extern "C" __global__ __aicore__ void row_softmax(GM_ADDR x, GM_ADDR y, GM_ADDR workspace) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    if ASCEND_IS_AIC {
        return;
    }
    TPipe pipe;
    KernelRowSoftmax op;
    op.Init(x, y, workspace, 8, 64, &pipe);
    op.Process();
}

// High-level SoftMax with the tiling struct, and SoftmaxFlashV2 updating from a previous tile.
extern "C" __global__ __aicore__ void api_softmax(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bsum, bmax, bsum2, bmax2, bexp;
    pipe.InitBuffer(bx, 8 * 64 * 4);
    pipe.InitBuffer(by, 8 * 64 * 4);
    for (auto* b : {&bsum, &bmax, &bsum2, &bmax2, &bexp}) pipe.InitBuffer(*b, 8 * 32);
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer((__gm__ float*)x, 2 * 8 * 64);
    gy.SetGlobalBuffer((__gm__ float*)y, 3 * 8 * 64);
    auto lx = bx.Get<float>();
    auto ly = by.Get<float>();
    DataCopy(lx, gx, 8 * 64);
    PipeBarrier<PIPE_ALL>();
    SoftMaxTiling tiling;  // as the host makes it (SoftMax Tiling usage, docs/ASCENDC_SPEC.md 4)
    ge::Shape shape({8, 64});
    SoftMaxTilingFunc(shape, sizeof(float), GetSoftMaxMaxTmpSize(shape, sizeof(float), false), tiling);
    SoftMax<float>(ly, bsum.Get<float>(), bmax.Get<float>(), lx, tiling);
    PipeBarrier<PIPE_ALL>();
    DataCopy(gy, ly, 8 * 64);
    PipeBarrier<PIPE_ALL>();  // the copy out of ly must finish before ly is rewritten
    SoftMaxShapeInfo info{8, 64, 8, 64};
    SoftmaxFlashV2<float, false>(ly, bsum.Get<float>(), bmax.Get<float>(), lx, bexp.Get<float>(), bsum.Get<float>(),
                                 bmax.Get<float>(), tiling, info);
    PipeBarrier<PIPE_ALL>();  // the copy into lx must not overtake the V ops still reading it
    DataCopy(lx, gx[8 * 64], 8 * 64);
    PipeBarrier<PIPE_ALL>();
    SoftmaxFlashV2<float, true>(ly, bsum2.Get<float>(), bmax2.Get<float>(), lx, bexp.Get<float>(), bsum.Get<float>(),
                                bmax.Get<float>(), tiling, info);
    PipeBarrier<PIPE_ALL>();
    DataCopy(gy[8 * 64], ly, 8 * 64);
    PipeBarrier<PIPE_ALL>();
    // row statistics: new max, new sum, exp(old max - new max) per row (first element of each block)
    auto stats = by.Get<float>();
    for (int r = 0; r < 8; ++r) {
        stats.SetValue(r, bmax2.Get<float>().GetValue(r * 8));
        stats.SetValue(8 + r, bsum2.Get<float>().GetValue(r * 8));
        stats.SetValue(16 + r, bexp.Get<float>().GetValue(r * 8));
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(gy[2 * 8 * 64], stats, 24 * 8);
}

// Matmul high-level API: C[32, 48] = A[32, 64] x B (B given as [48, 64], transposed) + bias.
// One AIV does the whole product: mix 1:1 (with no kernel type a Matmul kernel runs as mix 1:2,
// and two AIVs writing the same C would race).
extern "C" __global__ __aicore__ void matmul_custom(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR c2) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);
    using aType = matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>;
    using bType = matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half, true>;
    using cType = matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>;
    using biasType = matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>;
    TPipe pipe;
    TCubeTiling tiling;
    tiling.M = 32, tiling.N = 48, tiling.Ka = 64, tiling.Kb = 64;
    tiling.singleCoreM = 32, tiling.singleCoreN = 48, tiling.singleCoreK = 64;
    tiling.baseM = 16, tiling.baseN = 16;
    matmul::Matmul<aType, bType, cType, biasType> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gbias, gc, gc2;
    ga.SetGlobalBuffer((__gm__ half*)a, 32 * 64);
    gb.SetGlobalBuffer((__gm__ half*)b, 48 * 64);
    gbias.SetGlobalBuffer((__gm__ float*)bias, 48);
    gc.SetGlobalBuffer((__gm__ float*)c, 32 * 48);
    gc2.SetGlobalBuffer((__gm__ float*)c2, 32 * 48);
    mm.SetTensorA(ga);
    mm.SetTensorB(gb, true);
    mm.SetBias(gbias);
    mm.IterateAll(gc);
    mm.End();
    mm.SetTail(32, 48, 64);
    mm.ClearBias();
    while (mm.Iterate()) mm.GetTensorC(gc2);
    mm.End();
}

// The same product through a custom Norm template, as DrivingSDK's deformable_conv2d declares its
// Matmul: `constexpr MatmulConfig CFG = GetNormalConfig();` (unqualified, AscendC names), B's
// MatmulType with all six parameters (LayoutMode, IBSHARE) and `IterateAll<false>`.
constexpr MatmulConfig NORM_CFG = GetNormalConfig();
static_assert(NORM_CFG.iterateOrder == IterateOrder::UNDEF && NORM_CFG.enUnitFlag, "GetNormalConfig defaults");
static_assert(GetNormalConfig(true).intrinsicsCheck && !NORM_CFG.intrinsicsCheck, "intrinsicsLimit sets intrinsicsCheck");
extern "C" __global__ __aicore__ void matmul_norm_config(GM_ADDR a, GM_ADDR b, GM_ADDR c) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);
    using aType = matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>;
    using bType = matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half, true, LayoutMode::NONE, true>;
    using cType = matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>;
    TPipe pipe;
    TCubeTiling tiling;
    tiling.M = 32, tiling.N = 48, tiling.Ka = 64, tiling.Kb = 64;
    tiling.singleCoreM = 32, tiling.singleCoreN = 48, tiling.singleCoreK = 64;
    tiling.baseM = 16, tiling.baseN = 16;
    matmul::Matmul<aType, bType, cType, cType, NORM_CFG> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gc;
    ga.SetGlobalBuffer((__gm__ half*)a, 32 * 64);
    gb.SetGlobalBuffer((__gm__ half*)b, 48 * 64);
    gc.SetGlobalBuffer((__gm__ float*)c, 32 * 48);
    mm.SetTensorA(ga);
    mm.SetTensorB(gb, true);
    mm.template IterateAll<false>(gc);
    mm.End();
}

// Low-level cube path as 910B kernels write it: GM -> L1 (Nd2Nz), L1 -> L0A/L0B (LoadData),
// Mmad into L0C, Fixpipe back to GM as ND. C[32, 48] = A[32, 64] x B[64, 48], half -> float.
extern "C" __global__ __aicore__ void cube_matmul(GM_ADDR a, GM_ADDR b, GM_ADDR c) {
    constexpr uint16_t M = 32, K = 64, N = 48, C0 = 16, M1 = M / 16, K1 = K / C0, N1 = N / 16;
    TPipe pipe;
    TQue<TPosition::A1, 1> qa1;
    TQue<TPosition::B1, 1> qb1;
    TQue<TPosition::A2, 1> qa2;
    TQue<TPosition::B2, 1> qb2;
    TQue<TPosition::CO1, 1> qc1;
    pipe.InitBuffer(qa1, 1, M * K * sizeof(half));
    pipe.InitBuffer(qb1, 1, K * N * sizeof(half));
    pipe.InitBuffer(qa2, 1, M * K * sizeof(half));
    pipe.InitBuffer(qb2, 1, K * N * sizeof(half));
    pipe.InitBuffer(qc1, 1, M * N * sizeof(float));
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gc;
    ga.SetGlobalBuffer((__gm__ half*)a, M * K);
    gb.SetGlobalBuffer((__gm__ half*)b, K * N);
    gc.SetGlobalBuffer((__gm__ float*)c, M * N);

    auto a1 = qa1.AllocTensor<half>();
    auto b1 = qb1.AllocTensor<half>();
    DataCopy(a1, ga, Nd2NzParams(1, M, K, 0, K, M, 1, 0));
    DataCopy(b1, gb, Nd2NzParams(1, K, N, 0, N, K, 1, 0));
    qa1.EnQue(a1);
    qb1.EnQue(b1);
    a1 = qa1.DeQue<half>();
    b1 = qb1.DeQue<half>();

    auto a2 = qa2.AllocTensor<half>();
    for (uint16_t fm = 0; fm < M1; ++fm)
        LoadData(a2[fm * K1 * 256], a1, LoadData2DParams(fm, K1, M1, 0, 0, false, 0));
    // L1 holds B "Nz" (fractal (fk, fn) at fn * K1 + fk); L0B wants "Zn" (fk * N1 + fn), each
    // fractal transposed: per K fractal row, N1 fractals K1 apart in L1.
    auto b2 = qb2.AllocTensor<half>();
    for (uint16_t fk = 0; fk < K1; ++fk) {
        LoadData2dParams bParams;  // CANN 7.0.0's name of LoadData2DParams, set field by field
        bParams.startIndex = fk;
        bParams.repeatTimes = N1;
        bParams.srcStride = K1;
        bParams.ifTranspose = true;
        LoadData(b2[fk * N1 * 256], b1, bParams);
    }
    qa1.FreeTensor(a1);
    qb1.FreeTensor(b1);
    qa2.EnQue(a2);  // the loads (MTE1) complete before Mmad (M) reads L0A/L0B
    qb2.EnQue(b2);
    a2 = qa2.DeQue<half>();
    b2 = qb2.DeQue<half>();

    auto c1 = qc1.AllocTensor<float>();
    MmadParams mp;
    mp.m = M;
    mp.n = N;
    mp.k = K;
    Mmad(c1, a2, b2, mp);
    qa2.FreeTensor(a2);
    qb2.FreeTensor(b2);
    qc1.EnQue(c1);
    c1 = qc1.DeQue<float>();
    FixpipeParamsV220 fp;
    fp.nSize = N;
    fp.mSize = M;
    fp.srcStride = M;
    fp.dstStride = N;
    fp.quantPre = QuantMode_t::NoQuant;
    Fixpipe<float, float, CFG_ROW_MAJOR>(gc, c1, fp);
    qc1.FreeTensor(c1);
}

// The enhanced Transpose as ms_custom_ops' grid_sample_ms calls it: uint32_t views of float data,
// the parameters as a braced list, the source's bytes passed as sharedTmpBuffer. y holds x
// [2, 3, 1, 16] as NHWC, then that converted back to NCHW.
extern "C" __global__ __aicore__ void transpose_nchw(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 3 * 512);
    LocalTensor<float> src = buf.GetWithOffset<float>(96, 0);
    LocalTensor<float> nhwc = buf.GetWithOffset<float>(96, 512);
    LocalTensor<float> back = buf.GetWithOffset<float>(96, 1024);
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer((__gm__ float*)x, 96);
    gy.SetGlobalBuffer((__gm__ float*)y, 192);
    DataCopy(src, gx, 96);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::Transpose<uint32_t>(nhwc.ReinterpretCast<uint32_t>(), src.ReinterpretCast<uint32_t>(),
                                 src.ReinterpretCast<uint8_t>(), {2, 3, 1, 16, AscendC::TransposeType::TRANSPOSE_NCHW2NHWC});
    Transpose(back, nhwc, nhwc.ReinterpretCast<uint8_t>(), TransposeParamsExt(2, 3, 1, 16, TransposeType::TRANSPOSE_NHWC2NCHW));
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(gy, nhwc, 96);
    DataCopy(gy[96], back, 96);
}

// The math library's whole-tensor forms (no count): Sin(dst, src) and Cos(dst, src, tmp) cover
// the whole source tensor, here a 64-float TBuf; y holds sin(x) then cos(x).
extern "C" __global__ __aicore__ void whole_tensor_math(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bs, bc, btmp;
    pipe.InitBuffer(bx, 64 * sizeof(float));
    pipe.InitBuffer(bs, 64 * sizeof(float));
    pipe.InitBuffer(bc, 64 * sizeof(float));
    pipe.InitBuffer(btmp, 1024);
    LocalTensor<float> src = bx.Get<float>();
    LocalTensor<float> s = bs.Get<float>();
    LocalTensor<float> c = bc.Get<float>();
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer((__gm__ float*)x, 64);
    gy.SetGlobalBuffer((__gm__ float*)y, 128);
    DataCopy(src, gx, 64);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Sin(s, src);
    Cos(c, src, btmp.Get<uint8_t>());
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(gy, s, 64);
    DataCopy(gy[64], c, 64);
}

// ScalarCast in every documented form, on 16 scalars read from GM: y holds floor, ceil, round,
// rint (float -> int32_t) and CAST_ODD (float -> half), each widened back to float.
extern "C" __global__ __aicore__ void scalar_cast(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer((__gm__ float*)x, 16);
    gy.SetGlobalBuffer((__gm__ float*)y, 80);
    for (int i = 0; i < 16; ++i) {
        float v = gx.GetValue(i);
        gy.SetValue(i, static_cast<float>(ScalarCast<float, int32_t, RoundMode::CAST_FLOOR>(v)));
        gy.SetValue(16 + i, static_cast<float>(ScalarCast<float, int32_t, RoundMode::CAST_CEIL>(v)));
        gy.SetValue(32 + i, static_cast<float>(ScalarCast<float, int32_t, RoundMode::CAST_ROUND>(v)));
        gy.SetValue(48 + i, static_cast<float>(ScalarCast<float, int32_t, RoundMode::CAST_RINT>(v)));
        gy.SetValue(64 + i, static_cast<float>(ScalarCast<float, half, RoundMode::CAST_ODD>(v)));
    }
}

// Scalar abs on device floats, as box-geometry kernels write it (abs(cross) / 2): y holds
// abs(x) in float, then abs of x rounded to half.
extern "C" __global__ __aicore__ void scalar_abs(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer((__gm__ float*)x, 16);
    gy.SetGlobalBuffer((__gm__ float*)y, 32);
    for (int i = 0; i < 16; ++i) {
        float v = gx.GetValue(i);
        gy.SetValue(i, abs(v));
        gy.SetValue(16 + i, static_cast<float>(abs(static_cast<half>(v))));
    }
}

// Ten VECCALC queue tensors held at once, as kernels with many intermediates write them
// (DrivingSDK's roi_align_rotated_v2 holds 18): y[k] = x[k] * (1 + 2 + ... + 10).
extern "C" __global__ __aicore__ void veccalc_queues(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TQue<TPosition::VECCALC, 1> q[10];
    for (auto& one : q) pipe.InitBuffer(one, 1, 64 * sizeof(float));
    LocalTensor<float> t[10];
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer((__gm__ float*)x, 64);
    gy.SetGlobalBuffer((__gm__ float*)y, 64);
    for (int i = 0; i < 10; ++i) t[i] = q[i].AllocTensor<float>();
    DataCopy(t[0], gx, 64);
    PipeBarrier<PIPE_ALL>();
    for (int i = 1; i < 10; ++i) Muls(t[i], t[0], static_cast<float>(i + 1), 64);
    for (int i = 1; i < 10; ++i) Add(t[0], t[0], t[i], 64);
    PipeBarrier<PIPE_ALL>();
    DataCopy(gy, t[0], 64);
    PipeBarrier<PIPE_ALL>();
    for (int i = 0; i < 10; ++i) q[i].FreeTensor(t[i]);
}

// The CCE intrinsics set_flag/wait_flag with integer event ids, as DrivingSDK's scatter grad
// kernels write them (set_flag(PIPE_MTE3, PIPE_V, 0), a uint64_t eventId): y = x + 1, its
// MTE2->V and V->MTE3 flags set on ids[0] and ids[1] and waited on ids[2] and ids[3] (x's last
// four elements; a mismatched pair leaves the read unordered).
extern "C" __global__ __aicore__ void integer_event_ids(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64 * sizeof(float));
    LocalTensor<float> t = buf.Get<float>();
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer((__gm__ float*)x, 68);
    gy.SetGlobalBuffer((__gm__ float*)y, 64);
    uint64_t ids[4];
    for (int i = 0; i < 4; ++i) ids[i] = static_cast<uint64_t>(gx.GetValue(64 + i));
    DataCopy(t, gx, 64);
    set_flag(PIPE_MTE2, PIPE_V, ids[0]);  // BUG: event id range
    wait_flag(PIPE_MTE2, PIPE_V, ids[2]);
    Adds(t, t, 1.0f, 64);
    set_flag(PIPE_V, PIPE_MTE3, ids[1]);
    wait_flag(PIPE_V, PIPE_MTE3, ids[3]);
    // Unordered after Adds when ids[1] != ids[3]:
    DataCopy(gy, t, 64);  // BUG: integer_event_ids
    set_flag(PIPE_MTE3, PIPE_S, 0);
    wait_flag(PIPE_MTE3, PIPE_S, 0);
}

// RepeatReduceSum over two 64-float repeats of x with a 48-lane mask (DrivingSDK's
// geometric_kernel_attn_grad sums its corner products so): y[0] and y[2] (dstRepStride 2) are
// the sums of x[0:48] and x[64:112], y[1] stays as the kernel left it (-1); then the mask in
// x[128] (a second call, 1 repeat into y[4]: 64 lanes is the whole float repeat).
extern "C" __global__ __aicore__ void repeat_reduce_sum(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by;
    pipe.InitBuffer(bx, 128 * sizeof(float));
    pipe.InitBuffer(by, 8 * sizeof(float));
    LocalTensor<float> src = bx.Get<float>();
    LocalTensor<float> dst = by.Get<float>();
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer((__gm__ float*)x, 129);
    gy.SetGlobalBuffer((__gm__ float*)y, 8);
    int32_t mask = static_cast<int32_t>(gx.GetValue(128));
    DataCopy(src, gx, 128);
    Duplicate(dst, -1.0f, 8);
    PipeBarrier<PIPE_ALL>();
    RepeatReduceSum<float>(dst, src, 2, 48, 0, 1, 2, 8);
    RepeatReduceSum<float>(dst[4], src, 1, mask, 0, 1, 1, 8);  // BUG: repeat_reduce_sum mask
    PipeBarrier<PIPE_ALL>();
    DataCopy(gy, dst, 8);
}

// Gather's mask form, as DrivingSDK's multi_scale_deformable_attn_grad reorders its gradients
// in place: two repeats of 64 floats, lane k of repeat r taking src element 127 - (64 r + k)
// (byte offsets from x[128:256]), dstRepStride 8 (one repeat apart): y[0:128] reverses x[0:128].
// Then a 16-lane bit mask over the second repeat's offsets: y[128:144] = x[63 - k], y[144:] keeps -1.
extern "C" __global__ __aicore__ void gather_mask_form(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bo, bd;
    pipe.InitBuffer(bs, 128 * sizeof(float));
    pipe.InitBuffer(bo, 128 * sizeof(uint32_t));
    pipe.InitBuffer(bd, 192 * sizeof(float));
    LocalTensor<float> src = bs.Get<float>();
    LocalTensor<uint32_t> off = bo.Get<uint32_t>();
    LocalTensor<float> dst = bd.Get<float>();
    GlobalTensor<float> gx, gy;
    GlobalTensor<uint32_t> go;
    gx.SetGlobalBuffer((__gm__ float*)x, 256);
    go.SetGlobalBuffer((__gm__ uint32_t*)x + 128, 128);
    gy.SetGlobalBuffer((__gm__ float*)y, 192);
    DataCopy(src, gx, 128);
    DataCopy(off, go, 128);
    Duplicate(dst, -1.0f, 192);
    PipeBarrier<PIPE_ALL>();
    Gather(dst, src, off, 0, 64, 2, 8);
    uint64_t lanes[2] = {0xFFFF, 0};
    Gather(dst[128], src, off[64], 0, lanes, 1, 8);
    PipeBarrier<PIPE_ALL>();
    DataCopy(gy, dst, 192);
}

// CreateVecIndex's high-dimension forms: y[0:64] from an int32 index over the first 32 lanes
// of one repeat (the rest left at -1), y[64:192] a float index over two whole repeats, and
// y[192:256] a float index from a bit mask holding the first 16 lanes (the rest left at -1).
extern "C" __global__ __aicore__ void vec_index_mask(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bi, bf, bb, bo;
    pipe.InitBuffer(bi, 64 * sizeof(int32_t));
    pipe.InitBuffer(bf, 128 * sizeof(float));
    pipe.InitBuffer(bb, 64 * sizeof(float));
    pipe.InitBuffer(bo, 64 * sizeof(float));
    LocalTensor<int32_t> idx = bi.Get<int32_t>();
    LocalTensor<float> fidx = bf.Get<float>();
    LocalTensor<float> bidx = bb.Get<float>();
    LocalTensor<float> out = bo.Get<float>();
    GlobalTensor<float> gy;
    gy.SetGlobalBuffer((__gm__ float*)y, 256);
    Duplicate(idx, -1, 64);
    Duplicate(bidx, -1.0f, 64);
    CreateVecIndex(idx, 5, 32, 1, 1, 8);
    CreateVecIndex(fidx, 0.0f, 64, 2, 1, 8);
    uint64_t bits[2] = {0xFFFF, 0};
    CreateVecIndex(bidx, 100.0f, bits, 1, 1, 8);
    Cast(out, idx, RoundMode::CAST_NONE, 64);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(gy, out, 64);
    DataCopy(gy[64], fidx, 128);
    DataCopy(gy[192], bidx, 64);
}

// UnPad: 4 rows of `width` floats lose their last 3 columns; the tiling comes from the host's
// UnPadTilingFunc for the [4, width] source, as real host code fills it.
extern "C" __global__ __aicore__ void unpad_rows(GM_ADDR x, GM_ADDR y, UnPadTiling tiling) {
    const uint32_t rows = tiling.srcHeight, width = tiling.srcWidth, keep = width - 3;
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    pipe.InitBuffer(inQ, 1, rows * width * sizeof(float));
    pipe.InitBuffer(outQ, 1, rows * width * sizeof(float));
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer((__gm__ float*)x, rows * width);
    gy.SetGlobalBuffer((__gm__ float*)y, rows * keep);
    LocalTensor<float> in = inQ.AllocTensor<float>();
    DataCopyExtParams load{1, static_cast<uint32_t>(rows * width * sizeof(float)), 0, 0, 0};
    DataCopyPad(in, gx, load, DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
    inQ.EnQue(in);
    in = inQ.DeQue<float>();
    LocalTensor<float> out = outQ.AllocTensor<float>();
    UnPadParams params;
    params.rightPad = 3;
    UnPad(out, in, params, tiling);
    outQ.EnQue(out);
    inQ.FreeTensor(in);
    out = outQ.DeQue<float>();
    DataCopyExtParams copy{1, static_cast<uint32_t>(rows * keep * sizeof(float)), 0, 0, 0};
    DataCopyPad(gy, out, copy);
    outQ.FreeTensor(out);
}

// Pad: the tiling is a field of the op's own tiling struct (TILING_DATA_FIELD_DEF_STRUCT, as
// real host code declares it), filled by PadTilingFunc and read back from the saved bytes.
namespace optiling {
BEGIN_TILING_DATA_DEF(PadCaseTiling)
TILING_DATA_FIELD_DEF(uint32_t, rightPad);
TILING_DATA_FIELD_DEF(int32_t, padValue);
TILING_DATA_FIELD_DEF(uint32_t, tmpBytes);
TILING_DATA_FIELD_DEF_STRUCT(PadTiling, pad);
END_TILING_DATA_DEF;
}  // namespace optiling

// Rows of `srcWidth` floats (packed) padded to 32-byte aligned rows: y holds them, 16 floats each.
// tmpBytes != 0 passes a sharedTmpBuffer of that size.
extern "C" __global__ __aicore__ void pad_rows(GM_ADDR x, GM_ADDR y, GM_ADDR tilingGm) {
    optiling::PadCaseTiling t;
    std::memcpy(&t, tilingGm, sizeof(t));
    const uint32_t rows = t.pad.srcHeight, width = t.pad.srcWidth, aligned = 16;
    TPipe pipe;
    TBuf<TPosition::VECCALC> bin, bout, btmp;
    pipe.InitBuffer(bin, rows * aligned * sizeof(float));
    pipe.InitBuffer(bout, rows * aligned * sizeof(float));
    pipe.InitBuffer(btmp, t.tmpBytes ? t.tmpBytes : 32);
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer((__gm__ float*)x, rows * width);
    gy.SetGlobalBuffer((__gm__ float*)y, rows * aligned);
    LocalTensor<float> in = bin.Get<float>(), out = bout.Get<float>();
    DataCopyExtParams load{1, static_cast<uint32_t>(rows * width * sizeof(float)), 0, 0, 0};
    DataCopyPad(in, gx, load, DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
    PipeBarrier<PIPE_ALL>();
    PadParams params{0, static_cast<uint16_t>(t.rightPad), t.padValue};
    if (t.tmpBytes) {
        LocalTensor<uint8_t> tmp = btmp.Get<uint8_t>();
        Pad(out, in, params, tmp, t.pad);
    } else {
        Pad(out, in, params, t.pad);
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(gy, out, rows * aligned);
}

// SoftMax without the row max/sum outputs (DisentangleAttention's form): the first [8, 64] tile
// through a sharedTmpBuffer with the shape info, the second in place with neither.
extern "C" __global__ __aicore__ void api_softmax_no_stats(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, btmp;
    ge::Shape shape({8, 64});
    const uint32_t tmpBytes = GetSoftMaxMaxTmpSize(shape, sizeof(float), false);
    pipe.InitBuffer(bx, 8 * 64 * 4);
    pipe.InitBuffer(by, 8 * 64 * 4);
    pipe.InitBuffer(btmp, tmpBytes);
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer((__gm__ float*)x, 2 * 8 * 64);
    gy.SetGlobalBuffer((__gm__ float*)y, 2 * 8 * 64);
    LocalTensor<float> lx = bx.Get<float>(), ly = by.Get<float>();
    LocalTensor<uint8_t> tmp = btmp.Get<uint8_t>();
    SoftMaxTiling tiling;
    SoftMaxTilingFunc(shape, sizeof(float), tmpBytes, tiling);
    SoftMaxShapeInfo info{8, 64, 8, 64};
    DataCopy(lx, gx, 8 * 64);
    PipeBarrier<PIPE_ALL>();
    SoftMax<float, false>(ly, lx, tmp, tiling, info);
    PipeBarrier<PIPE_ALL>();
    DataCopy(gy, ly, 8 * 64);
    DataCopy(lx, gx[8 * 64], 8 * 64);
    PipeBarrier<PIPE_ALL>();
    SoftMax<float>(lx, lx, tiling);
    PipeBarrier<PIPE_ALL>();
    DataCopy(gy[8 * 64], lx, 8 * 64);
}

// TransDataTo5HD, three ways (x: 512 halves, 256 floats, 512 bytes; y: the same layout):
//  - half, address lists as DisentangleAttention builds them: a [16, 32] tile transposed to
//    [32, 16] in 2 repeats (source rows one block on, destination 16 blocks on);
//  - float, LocalTensor lists, 1 repeat with srcRepStride 1: the second block of each of 16
//    rows of 16 floats (a single repeat starts one stride on);
//  - uint8, 1 repeat, dstHighHalf and srcHighHalf: high half of dst blocks from the high half of
//    src blocks, the low halves left at 0xFF.
// misaligned: dstList[0] two bytes into a block.
extern "C" __global__ __aicore__ void trans5hd(GM_ADDR x, GM_ADDR y, bool misaligned) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bhi, bho, bfi, bfo, bbi, bbo;
    pipe.InitBuffer(bhi, 512 * 2);
    pipe.InitBuffer(bho, 512 * 2);
    pipe.InitBuffer(bfi, 256 * 4);
    pipe.InitBuffer(bfo, 128 * 4);
    pipe.InitBuffer(bbi, 512);
    pipe.InitBuffer(bbo, 512);
    GlobalTensor<uint8_t> gx, gy;
    gx.SetGlobalBuffer((__gm__ uint8_t*)x, 3072);
    gy.SetGlobalBuffer((__gm__ uint8_t*)y, 2048);
    LocalTensor<half> hin = bhi.Get<half>(), hout = bho.Get<half>();
    LocalTensor<float> fin = bfi.Get<float>(), fout = bfo.Get<float>();
    LocalTensor<uint8_t> bin = bbi.Get<uint8_t>(), bout = bbo.Get<uint8_t>();
    DataCopy(bhi.Get<uint8_t>(), gx, 1024);
    DataCopy(bfi.Get<uint8_t>(), gx[1024], 1024);
    DataCopy(bin, gx[2048], 512);
    Duplicate(bbo.Get<int16_t>(), static_cast<int16_t>(-1), 256);
    PipeBarrier<PIPE_ALL>();

    constexpr uint32_t rows = 16, cols = 32;
    uint64_t dstList[16], srcList[16];
    for (int j = 0; j < 16; ++j) {
        srcList[j] = (uint64_t)(hin[j * cols].GetPhyAddr());
        dstList[j] = (uint64_t)(hout[j * rows].GetPhyAddr());
    }
    if (misaligned) dstList[0] = (uint64_t)(hout[1].GetPhyAddr());
    TransDataTo5HDParams hp = {false, false, static_cast<uint8_t>(cols / 16), static_cast<uint16_t>(16 * rows * 2 / 32),
                               static_cast<uint16_t>(16 * 2 / 32)};
    TransDataTo5HD<half>(dstList, srcList, hp);

    LocalTensor<float> fdst[16], fsrc[16];
    for (int j = 0; j < 16; ++j) {
        fsrc[j] = fin[j * 16];
        fdst[j] = fout[j * 8];
    }
    TransDataTo5HD<float>(fdst, fsrc, TransDataTo5HDParams(false, false, 1, 0, 1));

    LocalTensor<uint8_t> bdst[16], bsrc[16];
    for (int j = 0; j < 16; ++j) {
        bsrc[j] = bin[j * 32];
        bdst[j] = bout[j * 32];
    }
    TransDataTo5HD<uint8_t>(bdst, bsrc, TransDataTo5HDParams(true, true, 1, 0, 0));
    PipeBarrier<PIPE_ALL>();
    DataCopy(gy, bho.Get<uint8_t>(), 1024);
    DataCopy(gy[1024], bfo.Get<uint8_t>(), 512);
    DataCopy(gy[1536], bout, 512);
}

static std::vector<uint8_t> slice(const std::vector<uint8_t>& v, size_t from, size_t n) {
    return std::vector<uint8_t>(v.begin() + from, v.begin() + from + n);
}

int main(int argc, char** argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: compat CASE a b out report\n");
        return 2;
    }
    std::string c = argv[1];
    auto a = tio::read_bytes(argv[2]);
    auto b = tio::read_bytes(argv[3]);
    if (c == "row_softmax") {
        tio::Gm x(a, "x"), y(a.size(), "y"), ws(kernelgen::kSysWorkspaceBytes + 1024, "workspace");
        SetSysWorkspace(ws.addr());
        tio::run(1, argv[5], [&] { row_softmax(x.addr(), y.addr(), ws.addr()); });
        tio::write_bytes(argv[4], y.bytes.data(), y.bytes.size());
    } else if (c == "api_softmax") {
        tio::Gm x(a, "x"), y(3 * 8 * 64 * 4, "y");
        tio::run(1, argv[5], [&] { api_softmax(x.addr(), y.addr()); });
        tio::write_bytes(argv[4], y.bytes.data(), y.bytes.size());
    } else if (c == "api_softmax_no_stats") {
        tio::Gm x(a, "x"), y(2 * 8 * 64 * 4, "y");
        tio::run(1, argv[5], [&] { api_softmax_no_stats(x.addr(), y.addr()); });
        tio::write_bytes(argv[4], y.bytes.data(), y.bytes.size());
    } else if (c == "trans5hd" || c == "trans5hd_misaligned") {
        tio::Gm x(a, "x"), y(2048, "y");
        tio::run(1, argv[5], [&] { trans5hd(x.addr(), y.addr(), c == "trans5hd_misaligned"); });
        tio::write_bytes(argv[4], y.bytes.data(), y.bytes.size());
    } else if (c == "matmul") {
        tio::Gm ga(slice(a, 0, 32 * 64 * 2), "a"), gb(slice(a, 32 * 64 * 2, 48 * 64 * 2), "b"), gbias(b, "bias");
        tio::Gm gc(32 * 48 * 4, "c"), gc2(32 * 48 * 4, "c2");
        tio::run(1, argv[5], [&] { matmul_custom(ga.addr(), gb.addr(), gbias.addr(), gc.addr(), gc2.addr()); });
        std::vector<uint8_t> out(gc.bytes);
        out.insert(out.end(), gc2.bytes.begin(), gc2.bytes.end());
        tio::write_bytes(argv[4], out.data(), out.size());
    } else if (c == "matmul_norm_config") {
        tio::Gm ga(slice(a, 0, 32 * 64 * 2), "a"), gb(slice(a, 32 * 64 * 2, 48 * 64 * 2), "b"), gc(32 * 48 * 4, "c");
        tio::run(1, argv[5], [&] { matmul_norm_config(ga.addr(), gb.addr(), gc.addr()); });
        tio::write_bytes(argv[4], gc.bytes.data(), gc.bytes.size());
    } else if (c == "cube_matmul") {
        tio::Gm ga(slice(a, 0, 32 * 64 * 2), "a"), gb(slice(a, 32 * 64 * 2, 64 * 48 * 2), "b"), gc(32 * 48 * 4, "c");
        tio::run(1, argv[5], [&] { cube_matmul(ga.addr(), gb.addr(), gc.addr()); });
        tio::write_bytes(argv[4], gc.bytes.data(), gc.bytes.size());
    } else if (c == "transpose_nchw") {
        tio::Gm x(a, "x"), y(192 * 4, "y");
        tio::run(1, argv[5], [&] { transpose_nchw(x.addr(), y.addr()); });
        tio::write_bytes(argv[4], y.bytes.data(), y.bytes.size());
    } else if (c == "whole_tensor_math") {
        tio::Gm x(a, "x"), y(128 * 4, "y");
        tio::run(1, argv[5], [&] { whole_tensor_math(x.addr(), y.addr()); });
        tio::write_bytes(argv[4], y.bytes.data(), y.bytes.size());
    } else if (c == "scalar_cast") {
        tio::Gm x(a, "x"), y(80 * 4, "y");
        tio::run(1, argv[5], [&] { scalar_cast(x.addr(), y.addr()); });
        tio::write_bytes(argv[4], y.bytes.data(), y.bytes.size());
    } else if (c == "scalar_abs") {
        tio::Gm x(a, "x"), y(32 * 4, "y");
        tio::run(1, argv[5], [&] { scalar_abs(x.addr(), y.addr()); });
        tio::write_bytes(argv[4], y.bytes.data(), y.bytes.size());
    } else if (c == "integer_event_ids") {
        tio::Gm x(a, "x"), y(64 * 4, "y");
        tio::run(1, argv[5], [&] { integer_event_ids(x.addr(), y.addr()); });
        tio::write_bytes(argv[4], y.bytes.data(), y.bytes.size());
    } else if (c == "repeat_reduce_sum") {
        tio::Gm x(a, "x"), y(8 * 4, "y");
        tio::run(1, argv[5], [&] { repeat_reduce_sum(x.addr(), y.addr()); });
        tio::write_bytes(argv[4], y.bytes.data(), y.bytes.size());
    } else if (c == "gather_mask_form") {
        tio::Gm x(a, "x"), y(192 * 4, "y");
        tio::run(1, argv[5], [&] { gather_mask_form(x.addr(), y.addr()); });
        tio::write_bytes(argv[4], y.bytes.data(), y.bytes.size());
    } else if (c == "vec_index_mask") {
        tio::Gm x(a, "x"), y(256 * 4, "y");
        tio::run(1, argv[5], [&] { vec_index_mask(x.addr(), y.addr()); });
        tio::write_bytes(argv[4], y.bytes.data(), y.bytes.size());
    } else if (c == "veccalc_queues") {
        tio::Gm x(a, "x"), y(64 * 4, "y");
        tio::run(1, argv[5], [&] { veccalc_queues(x.addr(), y.addr()); });
        tio::write_bytes(argv[4], y.bytes.data(), y.bytes.size());
    } else if (c == "unpad" || c == "unpad_unaligned") {
        const uint32_t width = c == "unpad" ? 16 : 13;
        UnPadTiling tiling;
        uint32_t most = 0, least = 0;
        GetUnPadMaxMinTmpSize(platform_ascendc::PlatformAscendC(), ge::Shape({4, width}), sizeof(float),
                              most, least);
        UnPadTilingFunc(ge::Shape({4, width}), least, sizeof(float), tiling);
        tio::Gm x(a, "x"), y(4 * (width - 3) * 4, "y");
        tio::run(1, argv[5], [&] { unpad_rows(x.addr(), y.addr(), tiling); });
        tio::write_bytes(argv[4], y.bytes.data(), y.bytes.size());
    } else if (c.rfind("pad_", 0) == 0) {
        // pad_aligned: [4, 16] with 13 valid columns, the last 3 set to 7; pad_widen: [4, 13]
        // widened by 3 columns of -2 through a sharedTmpBuffer of the minimum size;
        // pad_overwrite: rightPad 3 where only 2 columns are redundant.
        const bool widen = c == "pad_widen";
        const uint32_t width = widen ? 13 : 16, valid = c == "pad_overwrite" ? 14 : 13;
        optiling::PadCaseTiling t;
        t.rightPad = 3;
        t.padValue = widen ? -2 : 7;
        uint32_t most = 0, least = 0;
        GetPadMaxMinTmpSize(ge::Shape({4, width}), sizeof(float), most, least);
        t.tmpBytes = widen ? least : 0;
        optiling::PadTilingFunc(ge::Shape({4, width}), ge::Shape({4, valid}), most, sizeof(float), t.pad);
        std::vector<uint8_t> saved(t.GetDataSize());
        t.SaveToBuffer(saved.data(), saved.size());
        tio::Gm x(a, "x"), y(4 * 16 * 4, "y"), tiling(saved, "tiling");
        tio::run(1, argv[5], [&] { pad_rows(x.addr(), y.addr(), tiling.addr()); });
        tio::write_bytes(argv[4], y.bytes.data(), y.bytes.size());
    } else {
        std::fprintf(stderr, "unknown case %s\n", argv[1]);
        return 2;
    }
    return 0;
}
