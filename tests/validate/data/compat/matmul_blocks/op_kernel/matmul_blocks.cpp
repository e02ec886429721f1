// C = A x B block by block: each Iterate<true>() leaves one baseM x baseN block in UB, copied out
// with a row stride of N - baseN. Only `using namespace matmul;`: the basic API's names
// (DataCopyParams, DataCopy, TPipe) are visible through it.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "matmul_blocks_tiling.h"

using namespace matmul;

extern "C" __global__ __aicore__ void matmul_blocks(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR workspace,
                                                   GM_ADDR tiling) {
    REGISTER_TILING_DEFAULT(MatmulBlocksTilingData);
    GET_TILING_DATA(td, tiling);
    const TCubeTiling& t = td.cube;
    if (GetBlockIdx() >= td.blocks) return;
    TPipe pipe;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>,
           MatmulType<TPosition::VECIN, CubeFormat::ND, float>>
        mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    const uint32_t mBlocks = (t.M + t.singleCoreM - 1) / t.singleCoreM;
    const uint32_t mIdx = GetBlockIdx() % mBlocks, nIdx = GetBlockIdx() / mBlocks;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a + mIdx * t.singleCoreM * t.Ka, t.singleCoreM * t.Ka);
    bGm.SetGlobalBuffer((__gm__ half*)b + nIdx * t.singleCoreN, t.Kb * t.N);
    cGm.SetGlobalBuffer((__gm__ float*)c + mIdx * t.singleCoreM * t.N + nIdx * t.singleCoreN, t.singleCoreM * t.N);
    TQue<TPosition::VECOUT, 1> outQ;
    pipe.InitBuffer(outQ, 1, t.baseM * t.baseN * sizeof(float));
    mm.SetTensorA(aGm);
    mm.SetTensorB(bGm);
    const uint32_t roundM = t.singleCoreM / t.baseM;
    uint32_t round = 0;
    while (mm.template Iterate<true>()) {
        LocalTensor<float> block = outQ.AllocTensor<float>();
        mm.template GetTensorC<true>(block, false, true);
        outQ.EnQue(block);
        block = outQ.DeQue<float>();
        const uint32_t offset = round % roundM * t.baseM * t.N + round / roundM * t.baseN;
        DataCopyParams params{static_cast<uint16_t>(t.baseM), static_cast<uint16_t>(t.baseN * sizeof(float) / 32), 0,
                              static_cast<uint16_t>((t.N - t.baseN) * sizeof(float) / 32)};
        DataCopy(cGm[offset], block, params);
        outQ.FreeTensor(block);
        ++round;
    }
    mm.End();
}
