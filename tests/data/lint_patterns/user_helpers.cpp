// Helpers a project writes itself: a function-like macro, a free helper named like an AscendC
// API, a user class with members named like AscendC ones, and a less common AscendC member.
#include "kernel_operator.h"
using namespace AscendC;

#define CEIL_BLOCKS(x, b) (((x) + (b) - 1) / (b))
#define COPY_TILE(dst, src, n) DataCopy(dst, src, n)

__aicore__ inline uint32_t AlignTo(uint32_t x, uint32_t a) { return CEIL_BLOCKS(x, a) * a; }

class Stats {
public:
    __aicore__ inline void Reset() { count = 0; }
    __aicore__ inline void EnQueue(uint32_t n) { count += n; }
    uint32_t count;
};

class KernelCopy {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, TPipe* pipeIn)
    {
        pipe = pipeIn;
        xGm.SetGlobalBuffer((__gm__ half*)x, 4096);
        yGm.SetGlobalBuffer((__gm__ half*)y, 4096);
        pipe->InitBuffer(que, 2, AlignTo(4096 * sizeof(half), 32));
        stats.Reset();
    }
    __aicore__ inline void Process()
    {
        LocalTensor<half> t = que.AllocTensor<half>();
        COPY_TILE(t, xGm, 4096);
        que.EnQue(t);
        stats.EnQueue(1);
        LocalTensor<half> u = que.DeQue<half>();
        DataCopy(yGm, u, 4096);
        que.FreeTensor(u);
        pipe->Reset();
    }

private:
    TPipe* pipe;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 2> que;
    GlobalTensor<half> xGm, yGm;
    Stats stats;
};

extern "C" __global__ __aicore__ void copy_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                  GM_ADDR tiling)
{
    TPipe pipe;
    KernelCopy op;
    op.Init(x, y, &pipe);
    op.Process();
}
