// GELU of a half tensor through the high-level Gelu API in float: Cast up, Gelu, Cast down.
// Tiles of TILE elements with a tail tile; the length is a multiple of 16 halves (32 B).
// kernelgen: block_dim=4
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t TOTAL = 4 * 20000;
constexpr uint32_t BLOCK_DIM = 4;
constexpr uint32_t PER_CORE = TOTAL / BLOCK_DIM;
constexpr uint32_t TILE = 8192;

class KernelGelu {
public:
    __aicore__ inline KernelGelu() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, TPipe* pipeIn)
    {
        pipe = pipeIn;
        xGm.SetGlobalBuffer((__gm__ half*)x + GetBlockIdx() * PER_CORE, PER_CORE);
        yGm.SetGlobalBuffer((__gm__ half*)y + GetBlockIdx() * PER_CORE, PER_CORE);
        pipe->InitBuffer(inQueue, 2, TILE * sizeof(half));
        pipe->InitBuffer(outQueue, 2, TILE * sizeof(half));
        pipe->InitBuffer(upBuf, TILE * sizeof(float));
        pipe->InitBuffer(actBuf, TILE * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        uint32_t fullTiles = PER_CORE / TILE;
        uint32_t tailLength = PER_CORE % TILE;
        for (uint32_t i = 0; i < fullTiles; i++) {
            Step(i * TILE, TILE);
        }
        if (tailLength > 0) {
            Step(fullTiles * TILE, tailLength);
        }
    }

private:
    __aicore__ inline void Step(uint32_t offset, uint32_t len)
    {
        LocalTensor<half> xLocal = inQueue.AllocTensor<half>();
        DataCopy(xLocal, xGm[offset], len);
        inQueue.EnQue(xLocal);
        xLocal = inQueue.DeQue<half>();
        LocalTensor<half> yLocal = outQueue.AllocTensor<half>();
        LocalTensor<float> up = upBuf.Get<float>();
        LocalTensor<float> act = actBuf.Get<float>();
        Cast(up, xLocal, RoundMode::CAST_NONE, len);
        Gelu(act, up, len);
        Cast(yLocal, act, RoundMode::CAST_RINT, len);
        inQueue.FreeTensor(xLocal);
        outQueue.EnQue(yLocal);
        yLocal = outQueue.DeQue<half>();
        DataCopy(yGm[offset], yLocal, len);
        outQueue.FreeTensor(yLocal);
    }

    TPipe* pipe;
    TQue<QuePosition::VECIN, 2> inQueue;
    TQue<QuePosition::VECOUT, 2> outQueue;
    TBuf<QuePosition::VECCALC> upBuf, actBuf;
    GlobalTensor<half> xGm, yGm;
};

extern "C" __global__ __aicore__ void gelu_cast(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    KernelGelu op;
    op.Init(x, y, &pipe);
    op.Process();
}
