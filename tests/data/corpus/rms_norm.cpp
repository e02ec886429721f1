// RMSNorm over the last axis of a [ROWS, COLS] half tensor, computed in float:
// y = x / sqrt(mean(x^2) + eps) * gamma. gamma is loaded once into a TBuf.
// kernelgen: block_dim=8
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t ROWS = 256;
constexpr uint32_t COLS = 4096;
constexpr uint32_t BLOCK_DIM = 8;
constexpr uint32_t ROWS_PER_CORE = ROWS / BLOCK_DIM;
constexpr float EPS = 1e-6f;
constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelRmsNorm {
public:
    __aicore__ inline KernelRmsNorm() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, TPipe* pipeIn)
    {
        pipe = pipeIn;
        xGm.SetGlobalBuffer((__gm__ T*)x + GetBlockIdx() * ROWS_PER_CORE * COLS, ROWS_PER_CORE * COLS);
        yGm.SetGlobalBuffer((__gm__ T*)y + GetBlockIdx() * ROWS_PER_CORE * COLS, ROWS_PER_CORE * COLS);
        gammaGm.SetGlobalBuffer((__gm__ T*)gamma, COLS);
        pipe->InitBuffer(inQueue, BUFFER_NUM, COLS * sizeof(T));
        pipe->InitBuffer(outQueue, BUFFER_NUM, COLS * sizeof(T));
        pipe->InitBuffer(gammaBuf, COLS * sizeof(float));
        pipe->InitBuffer(xFloatBuf, COLS * sizeof(float));
        pipe->InitBuffer(sqBuf, COLS * sizeof(float));
        pipe->InitBuffer(redBuf, 32);
    }
    __aicore__ inline void Process()
    {
        LoadGamma();
        for (uint32_t r = 0; r < ROWS_PER_CORE; r++) {
            CopyIn(r);
            Compute();
            CopyOut(r);
        }
    }

private:
    __aicore__ inline void LoadGamma()
    {
        LocalTensor<T> gIn = inQueue.AllocTensor<T>();
        DataCopy(gIn, gammaGm, COLS);
        inQueue.EnQue(gIn);
        LocalTensor<T> g = inQueue.DeQue<T>();
        LocalTensor<float> gammaF = gammaBuf.Get<float>();
        Cast(gammaF, g, RoundMode::CAST_NONE, COLS);
        inQueue.FreeTensor(g);
    }
    __aicore__ inline void CopyIn(uint32_t r)
    {
        LocalTensor<T> xLocal = inQueue.AllocTensor<T>();
        DataCopy(xLocal, xGm[r * COLS], COLS);
        inQueue.EnQue(xLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<T> xLocal = inQueue.DeQue<T>();
        LocalTensor<T> yLocal = outQueue.AllocTensor<T>();
        LocalTensor<float> xf = xFloatBuf.Get<float>();
        LocalTensor<float> sq = sqBuf.Get<float>();
        LocalTensor<float> red = redBuf.Get<float>();
        LocalTensor<float> gammaF = gammaBuf.Get<float>();
        Cast(xf, xLocal, RoundMode::CAST_NONE, COLS);
        Mul(sq, xf, xf, COLS);
        ReduceSum<float>(red, sq, sq, COLS);
        event_t eventVS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(eventVS);
        WaitFlag<HardEvent::V_S>(eventVS);
        float meanSq = red.GetValue(0) / COLS;
        event_t eventSV = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_V));
        SetFlag<HardEvent::S_V>(eventSV);
        WaitFlag<HardEvent::S_V>(eventSV);
        Duplicate(red, meanSq + EPS, 8);
        Sqrt(red, red, 8);
        SetFlag<HardEvent::V_S>(eventVS);
        WaitFlag<HardEvent::V_S>(eventVS);
        float inv = 1.0f / red.GetValue(0);
        SetFlag<HardEvent::S_V>(eventSV);
        WaitFlag<HardEvent::S_V>(eventSV);
        Muls(xf, xf, inv, COLS);
        Mul(xf, xf, gammaF, COLS);
        Cast(yLocal, xf, RoundMode::CAST_RINT, COLS);
        outQueue.EnQue(yLocal);
        inQueue.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t r)
    {
        LocalTensor<T> yLocal = outQueue.DeQue<T>();
        DataCopy(yGm[r * COLS], yLocal, COLS);
        outQueue.FreeTensor(yLocal);
    }

    TPipe* pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue;
    TBuf<QuePosition::VECCALC> gammaBuf, xFloatBuf, sqBuf, redBuf;
    GlobalTensor<T> xGm, gammaGm, yGm;
};

extern "C" __global__ __aicore__ void rms_norm(GM_ADDR x, GM_ADDR gamma, GM_ADDR y)
{
    TPipe pipe;
    KernelRmsNorm<half> op;
    op.Init(x, gamma, y, &pipe);
    op.Process();
}
