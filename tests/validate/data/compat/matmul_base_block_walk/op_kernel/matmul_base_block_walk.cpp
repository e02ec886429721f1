// C = A x B one base block at a time: each vector core takes every `cores`-th base block, points
// A and B at its panels and sets the single-core shape from a cursor whose sizes it never fills
// in (0 x 0 x K), then runs one Iterate() and one GetTensorC, ignoring what Iterate returns.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "matmul_base_block_walk_tiling.h"

using namespace AscendC;
using namespace matmul;

struct BlockCursor {
    uint32_t index = 0;
    uint32_t rows = 0;  // meant to be the block's size; left 0
    uint32_t cols = 0;
};

extern "C" __global__ __aicore__ void matmul_base_block_walk(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR workspace,
                                                             GM_ADDR tiling) {
    REGISTER_TILING_DEFAULT(MatmulBaseBlockWalkTilingData);
    GET_TILING_DATA(td, tiling);
    const TCubeTiling& t = td.cube;
    TPipe pipe;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>,
           MatmulType<TPosition::GM, CubeFormat::ND, float>>
        mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, t.M * t.Ka);
    bGm.SetGlobalBuffer((__gm__ half*)b, t.Kb * t.N);
    cGm.SetGlobalBuffer((__gm__ float*)c, t.M * t.N);
    const uint32_t blocksN = t.N / t.baseN, blocks = t.M / t.baseM * blocksN;
    BlockCursor cur;
    for (cur.index = GetBlockIdx(); cur.index < blocks; cur.index += td.cores) {
        const uint32_t bm = cur.index / blocksN, bn = cur.index % blocksN;
        mm.SetSingleShape(cur.rows, cur.cols, t.singleCoreK);
        mm.SetTensorA(aGm[bm * t.baseM * t.Ka]);
        mm.SetTensorB(bGm[bn * t.baseN]);
        mm.Iterate();
        mm.GetTensorC(cGm[bm * t.baseM * t.N + bn * t.baseN]);
    }
    mm.End();
}
