#include "kernel_operator.h"
#include "lib/matmul_intf.h"
using namespace AscendC;
using namespace matmul;

template <typename AType, typename BType, typename CType>
class MatmulKernel {
public:
    __aicore__ inline MatmulKernel() {}
    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR c, const TCubeTiling& t)
    {
        tiling = t;
        aGm.SetGlobalBuffer(reinterpret_cast<__gm__ AType*>(a), tiling.M * tiling.Ka);
        bGm.SetGlobalBuffer(reinterpret_cast<__gm__ BType*>(b), tiling.Kb * tiling.N);
        cGm.SetGlobalBuffer(reinterpret_cast<__gm__ CType*>(c), tiling.M * tiling.N);
        uint32_t mBlocks = (tiling.M + tiling.singleCoreM - 1) / tiling.singleCoreM;
        uint32_t mIdx = GetBlockIdx() % mBlocks;
        uint32_t nIdx = GetBlockIdx() / mBlocks;
        uint32_t offsetA = mIdx * tiling.Ka * tiling.singleCoreM;
        uint32_t offsetB = nIdx * tiling.singleCoreN;
        uint32_t offsetC = mIdx * tiling.N * tiling.singleCoreM + nIdx * tiling.singleCoreN;
        aGm = aGm[offsetA];
        bGm = bGm[offsetB];
        cGm = cGm[offsetC];
        int32_t tailM = tiling.M - mIdx * tiling.singleCoreM;
        int32_t tailN = tiling.N - nIdx * tiling.singleCoreN;
        tailM = tailM < tiling.singleCoreM ? tailM : tiling.singleCoreM;
        tailN = tailN < tiling.singleCoreN ? tailN : tiling.singleCoreN;
        this->tailM = tailM;
        this->tailN = tailN;
    }
    __aicore__ inline void Process()
    {
        matmulObj.SetTensorA(aGm);
        matmulObj.SetTensorB(bGm);
        matmulObj.SetTail(tailM, tailN);
        matmulObj.IterateAll(cGm);
        matmulObj.End();
    }

    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, AType>,
           MatmulType<TPosition::GM, CubeFormat::ND, BType>,
           MatmulType<TPosition::GM, CubeFormat::ND, CType>> matmulObj;
    TCubeTiling tiling;

private:
    GlobalTensor<AType> aGm;
    GlobalTensor<BType> bGm;
    GlobalTensor<CType> cGm;
    int32_t tailM = 0;
    int32_t tailN = 0;
};

extern "C" __global__ __aicore__ void matmul_custom(GM_ADDR a, GM_ADDR b, GM_ADDR c,
                                                    GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    MatmulKernel<half, half, float> op;
    TPipe pipe;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), op.matmulObj, &tilingData.cubeTilingData);
    op.Init(a, b, c, tilingData.cubeTilingData);
    op.Process();
}
