#include "kernel_operator.h"
using namespace AscendC;

class KernelScaleTail {
public:
    __aicore__ inline KernelScaleTail() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, ScaleTailTilingData* td)
    {
        tileLength = td->tileLength;
        tileNum = td->tileNum;
        lastLength = td->lastLength;
        uint32_t share = (tileNum - 1) * tileLength + lastLength;
        xGm.SetGlobalBuffer((__gm__ float*)x + share * GetBlockIdx(), share);
        yGm.SetGlobalBuffer((__gm__ float*)y + share * GetBlockIdx(), share);
        pipe.InitBuffer(inQueue, 2, tileLength * sizeof(float));
        pipe.InitBuffer(outQueue, 2, tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i + 1 < tileNum; ++i) {
            Step(i, tileLength);
        }
        Step(tileNum - 1, lastLength);
    }

private:
    __aicore__ inline void Step(uint32_t i, uint32_t length)
    {
        LocalTensor<float> x = inQueue.AllocTensor<float>();
        DataCopy(x, xGm[i * tileLength], length);
        inQueue.EnQue(x);
        x = inQueue.DeQue<float>();
        LocalTensor<float> y = outQueue.AllocTensor<float>();
        Muls(y, x, 2.0f, length);
        outQueue.EnQue(y);
        inQueue.FreeTensor(x);
        y = outQueue.DeQue<float>();
        DataCopy(yGm[i * tileLength], y, length);
        outQueue.FreeTensor(y);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQueue;
    TQue<QuePosition::VECOUT, 2> outQueue;
    GlobalTensor<float> xGm, yGm;
    uint32_t tileLength;
    uint32_t tileNum;
    uint32_t lastLength;
};

extern "C" __global__ __aicore__ void scale_tail(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelScaleTail op;
    op.Init(x, y, &tilingData);
    op.Process();
}
