// Row-wise softmax of a [ROWS, COLS] float matrix with the basic vector APIs:
// max, subtract, exp, sum, scale. Rows are split across cores with a remainder for the first
// cores (big/small core split).
// kernelgen: block_dim=16
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t ROWS = 1000;
constexpr uint32_t COLS = 2048;
constexpr uint32_t BLOCK_DIM = 16;
constexpr int32_t BUFFER_NUM = 2;

class KernelSoftmax {
public:
    __aicore__ inline KernelSoftmax() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, TPipe* pipeIn)
    {
        pipe = pipeIn;
        uint32_t idx = GetBlockIdx();
        uint32_t base = ROWS / BLOCK_DIM;
        uint32_t remain = ROWS % BLOCK_DIM;
        rowCount = base + (idx < remain ? 1 : 0);
        uint32_t firstRow = idx * base + (idx < remain ? idx : remain);
        xGm.SetGlobalBuffer((__gm__ float*)x + firstRow * COLS, rowCount * COLS);
        yGm.SetGlobalBuffer((__gm__ float*)y + firstRow * COLS, rowCount * COLS);
        pipe->InitBuffer(inQueue, BUFFER_NUM, COLS * sizeof(float));
        pipe->InitBuffer(outQueue, BUFFER_NUM, COLS * sizeof(float));
        pipe->InitBuffer(workBuf, COLS * sizeof(float));
        pipe->InitBuffer(scalarBuf, 64);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r = 0; r < rowCount; r++) {
            CopyIn(r);
            Compute();
            CopyOut(r);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t r)
    {
        LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
        DataCopy(xLocal, xGm[r * COLS], COLS);
        inQueue.EnQue(xLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<float> xLocal = inQueue.DeQue<float>();
        LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> red = scalarBuf.Get<float>();
        ReduceMax<float>(red, xLocal, work, COLS);
        event_t eventVS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(eventVS);
        WaitFlag<HardEvent::V_S>(eventVS);
        float rowMax = red.GetValue(0);
        event_t eventSV = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_V));
        SetFlag<HardEvent::S_V>(eventSV);
        WaitFlag<HardEvent::S_V>(eventSV);
        Adds(yLocal, xLocal, -rowMax, COLS);
        Exp(yLocal, yLocal, COLS);
        ReduceSum<float>(red, yLocal, work, COLS);
        SetFlag<HardEvent::V_S>(eventVS);
        WaitFlag<HardEvent::V_S>(eventVS);
        float inv = 1.0f / red.GetValue(0);
        SetFlag<HardEvent::S_V>(eventSV);
        WaitFlag<HardEvent::S_V>(eventSV);
        Muls(yLocal, yLocal, inv, COLS);
        outQueue.EnQue(yLocal);
        inQueue.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t r)
    {
        LocalTensor<float> yLocal = outQueue.DeQue<float>();
        DataCopy(yGm[r * COLS], yLocal, COLS);
        outQueue.FreeTensor(yLocal);
    }

    TPipe* pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue;
    TBuf<QuePosition::VECCALC> workBuf;
    TBuf<QuePosition::VECCALC> scalarBuf;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    uint32_t rowCount = 0;
};

extern "C" __global__ __aicore__ void softmax_rows(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    KernelSoftmax op;
    op.Init(x, y, &pipe);
    op.Process();
}
