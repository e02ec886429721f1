// Real-code queue patterns: a template kernel class taking the TPipe by pointer, AllocTensor /
// EnQue in CopyIn and DeQue / FreeTensor in Compute, a scratch tensor allocated before the loop
// and freed after it, a TBuf read with Get<T>(), and a queue handed to a helper by reference.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
__aicore__ inline void FillFromQueue(TQue<QuePosition::VECIN, BUFFER_NUM>& que, GlobalTensor<T>& gm,
                                     uint32_t n)
{
    LocalTensor<T> t = que.AllocTensor<T>();
    DataCopy(t, gm, n);
    que.EnQue(t);
}

template <typename T>
class KernelScale {
public:
    __aicore__ inline KernelScale() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t tile, TPipe* pipeIn)
    {
        pipe = pipeIn;
        tileLen = tile;
        tileNum = total / tile;
        xGm.SetGlobalBuffer((__gm__ T*)x + GetBlockIdx() * total, total);
        yGm.SetGlobalBuffer((__gm__ T*)y + GetBlockIdx() * total, total);
        pipe->InitBuffer(inQueue, BUFFER_NUM, tile * sizeof(T));
        pipe->InitBuffer(outQueue, BUFFER_NUM, tile * sizeof(T));
        pipe->InitBuffer(scratchQueue, 1, tile * sizeof(float));
        pipe->InitBuffer(biasQueue, 1, tile * sizeof(T));
        pipe->InitBuffer(calcBuf, tile * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        scratch = scratchQueue.AllocTensor<float>();
        FillFromQueue(biasQueue, xGm, tileLen);
        for (uint32_t i = 0; i < tileNum; i++) {
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
        LocalTensor<T> bias = biasQueue.DeQue<T>();
        biasQueue.FreeTensor(bias);
        scratchQueue.FreeTensor(scratch);
    }

private:
    __aicore__ inline void CopyIn(uint32_t i)
    {
        LocalTensor<T> xLocal = inQueue.AllocTensor<T>();
        DataCopy(xLocal, xGm[i * tileLen], tileLen);
        inQueue.EnQue(xLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<T> xLocal = inQueue.DeQue<T>();
        LocalTensor<T> yLocal = outQueue.AllocTensor<T>();
        LocalTensor<float> tmp = calcBuf.Get<float>();
        Muls(yLocal, xLocal, (T)2, tileLen);
        outQueue.EnQue<T>(yLocal);
        inQueue.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t i)
    {
        LocalTensor<T> yLocal = outQueue.DeQue<T>();
        DataCopy(yGm[i * tileLen], yLocal, tileLen);
        outQueue.FreeTensor(yLocal);
    }

    TPipe* pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue;
    TQue<QuePosition::VECIN, BUFFER_NUM> biasQueue;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue;
    TQue<QuePosition::VECCALC, 1> scratchQueue;
    TBuf<QuePosition::VECCALC> calcBuf;
    GlobalTensor<T> xGm;
    GlobalTensor<T> yGm;
    LocalTensor<float> scratch;
    uint32_t tileLen;
    uint32_t tileNum;
};

extern "C" __global__ __aicore__ void scale_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                   GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    TPipe pipe;
    KernelScale<half> op;
    op.Init(x, y, tilingData.totalLength, tilingData.tileLength, &pipe);
    op.Process();
}
