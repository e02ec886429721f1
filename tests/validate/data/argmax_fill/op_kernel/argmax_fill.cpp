// Block r reads its row of x, best and the current arg, keeps r where its row hits best and
// what it read elsewhere, and writes that back with SetAtomicMax. Its read of arg is unordered
// with the other blocks' AtomicMax writes (no SyncAll), but whichever value it sees, the
// maximum comes out the same (DrivingSDK scatter_max's argmax pass has this shape).
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void argmax_fill(GM_ADDR x, GM_ADDR best, GM_ADDR arg, GM_ADDR workspace,
                                                  GM_ADDR tiling) {
    GET_TILING_DATA(td, tiling);
    const uint32_t cols = td.cols;
    const float row = static_cast<float>(GetBlockIdx());
    GlobalTensor<float> xGm, bestGm, argGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * cols, cols);
    bestGm.SetGlobalBuffer((__gm__ float*)best, cols);
    argGm.SetGlobalBuffer((__gm__ float*)arg, cols);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> xQ, bestQ, argQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    TBuf<TPosition::VECCALC> maskBuf, rowBuf;
    pipe.InitBuffer(xQ, 1, cols * sizeof(float));
    pipe.InitBuffer(bestQ, 1, cols * sizeof(float));
    pipe.InitBuffer(argQ, 1, cols * sizeof(float));
    pipe.InitBuffer(outQ, 1, cols * sizeof(float));
    pipe.InitBuffer(maskBuf, cols / 8);
    pipe.InitBuffer(rowBuf, cols * sizeof(float));

    LocalTensor<float> xs = xQ.AllocTensor<float>(), bs = bestQ.AllocTensor<float>(), as = argQ.AllocTensor<float>();
    DataCopy(xs, xGm, cols);
    DataCopy(bs, bestGm, cols);
    DataCopy(as, argGm, cols);
    xQ.EnQue(xs);
    bestQ.EnQue(bs);
    argQ.EnQue(as);
    xs = xQ.DeQue<float>();
    bs = bestQ.DeQue<float>();
    as = argQ.DeQue<float>();

    LocalTensor<uint8_t> hit = maskBuf.Get<uint8_t>();
    LocalTensor<float> rows = rowBuf.Get<float>();
    LocalTensor<float> out = outQ.AllocTensor<float>();
    Compare(hit, xs, bs, CMPMODE::EQ, cols);
    Duplicate(rows, row, cols);
    Select(out, hit, rows, as, SELMODE::VSEL_TENSOR_TENSOR_MODE, cols);
    outQ.EnQue(out);
    xQ.FreeTensor(xs);
    bestQ.FreeTensor(bs);
    argQ.FreeTensor(as);

    out = outQ.DeQue<float>();
    SetAtomicMax<float>();
    DataCopy(argGm, out, cols);
    SetAtomicNone();
    outQ.FreeTensor(out);
}
