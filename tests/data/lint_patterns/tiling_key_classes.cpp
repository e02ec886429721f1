// Several kernel classes, each with its own TPipe (and one Matmul each), selected by tiling key;
// and a second kernel function in the same file with its own TPipe.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
using namespace AscendC;
using namespace matmul;

class KernelSmall {
public:
    __aicore__ inline void Init(GM_ADDR x, uint32_t n)
    {
        xGm.SetGlobalBuffer((__gm__ half*)x, n);
        pipe.InitBuffer(que, 2, 4096);
    }
    __aicore__ inline void Process()
    {
        LocalTensor<half> t = que.AllocTensor<half>();
        DataCopy(t, xGm, 2048);
        que.EnQue(t);
        LocalTensor<half> u = que.DeQue<half>();
        DataCopy(xGm, u, 2048);
        que.FreeTensor(u);
    }

private:
    TPipe pipe;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 2> que;
    GlobalTensor<half> xGm;
};

class KernelLarge {
public:
    __aicore__ inline void Init(GM_ADDR x, uint32_t n)
    {
        xGm.SetGlobalBuffer((__gm__ float*)x, n);
        pipe.InitBuffer(que, 2, 8192);
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> t = que.AllocTensor<float>();
        DataCopy(t, xGm, 2048);
        que.EnQue(t);
        LocalTensor<float> u = que.DeQue<float>();
        DataCopy(xGm, u, 2048);
        que.FreeTensor(u);
    }

private:
    TPipe pipe;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 2> que;
    GlobalTensor<float> xGm;
};

template <typename T>
class KernelMm {
public:
    using A = MatmulType<TPosition::GM, CubeFormat::ND, T>;
    using C = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    Matmul<A, A, C, C> mm0;
    Matmul<A, A, C, C> mm1;
    Matmul<A, A, C, C> mm2;
    TPipe pipe;
};

class KernelMm2 {
public:
    using A = MatmulType<TPosition::GM, CubeFormat::ND, half>;
    using C = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    Matmul<A, A, C, C> mm0;
    Matmul<A, A, C, C> mm1;
    TPipe pipe;
};

extern "C" __global__ __aicore__ void keyed_custom(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelSmall op;
        op.Init(x, tilingData.totalLength);
        op.Process();
    } else if (TILING_KEY_IS(2)) {
        KernelLarge op;
        op.Init(x, tilingData.totalLength);
        op.Process();
    } else if (TILING_KEY_IS(3)) {
        KernelMm<half> op;
        REGIST_MATMUL_OBJ(&op.pipe, GetSysWorkSpacePtr(), op.mm0, &tilingData.cube, op.mm1,
                          &tilingData.cube, op.mm2, &tilingData.cube);
    } else {
        KernelMm2 op;
        REGIST_MATMUL_OBJ(&op.pipe, GetSysWorkSpacePtr(), op.mm0, &tilingData.cube, op.mm1,
                          &tilingData.cube);
    }
}

extern "C" __global__ __aicore__ void keyed_custom_v2(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling)
{
    KernelSmall op;
    op.Init(x, 2048);
    op.Process();
}
