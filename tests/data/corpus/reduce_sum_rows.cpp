// Row sums of a [ROWS, COLS] float matrix: each core takes ROWS / BLOCK_DIM rows (ROWS is a
// multiple of BLOCK_DIM), reduces each row with ReduceSum, and writes its 8 sums (32 B) at once.
// kernelgen: block_dim=8
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t ROWS = 64;
constexpr uint32_t COLS = 1024;
constexpr uint32_t BLOCK_DIM = 8;
constexpr uint32_t ROWS_PER_CORE = ROWS / BLOCK_DIM;
constexpr int32_t BUFFER_NUM = 2;

class KernelReduceSum {
public:
    __aicore__ inline KernelReduceSum() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, TPipe* pipeIn)
    {
        pipe = pipeIn;
        xGm.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * ROWS_PER_CORE * COLS,
                            ROWS_PER_CORE * COLS);
        yGm.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * ROWS_PER_CORE, ROWS_PER_CORE);
        pipe->InitBuffer(inQueue, BUFFER_NUM, COLS * sizeof(float));
        pipe->InitBuffer(outQueue, 1, ROWS_PER_CORE * sizeof(float));
        pipe->InitBuffer(workBuf, COLS * sizeof(float));
        pipe->InitBuffer(sumBuf, 32);
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
        for (uint32_t r = 0; r < ROWS_PER_CORE; r++) {
            CopyIn(r);
            Compute(r, yLocal);
        }
        outQueue.EnQue(yLocal);
        CopyOut();
    }

private:
    __aicore__ inline void CopyIn(uint32_t r)
    {
        LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
        DataCopy(xLocal, xGm[r * COLS], COLS);
        inQueue.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t r, LocalTensor<float>& yLocal)
    {
        LocalTensor<float> xLocal = inQueue.DeQue<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> sum = sumBuf.Get<float>();
        ReduceSum<float>(sum, xLocal, work, COLS);
        event_t eventVS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(eventVS);
        WaitFlag<HardEvent::V_S>(eventVS);
        yLocal.SetValue(r, sum.GetValue(0));
        inQueue.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut()
    {
        LocalTensor<float> yLocal = outQueue.DeQue<float>();
        DataCopy(yGm, yLocal, ROWS_PER_CORE);
        outQueue.FreeTensor(yLocal);
    }

    TPipe* pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    TBuf<QuePosition::VECCALC> workBuf;
    TBuf<QuePosition::VECCALC> sumBuf;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
};

extern "C" __global__ __aicore__ void reduce_sum_rows(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    KernelReduceSum op;
    op.Init(x, y, &pipe);
    op.Process();
}
