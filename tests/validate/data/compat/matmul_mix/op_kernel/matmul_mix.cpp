// C = A x B with the Matmul API and no KERNEL_TASK_TYPE: each of the two AIVs (GetBlockIdx 0
// and 1) computes its singleCoreM rows.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void matmul_mix(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR workspace,
                                                 GM_ADDR tiling) {
    GET_TILING_DATA(td, tiling);
    const TCubeTiling& t = td.cube;
    TPipe pipe;
    matmul::Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>,
                   MatmulType<TPosition::GM, CubeFormat::ND, float>>
        mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> cGm;
    uint32_t row = GetBlockIdx() * t.singleCoreM;
    aGm.SetGlobalBuffer((__gm__ half*)a + row * t.Ka, t.singleCoreM * t.Ka);
    bGm.SetGlobalBuffer((__gm__ half*)b, t.Kb * t.N);
    cGm.SetGlobalBuffer((__gm__ float*)c + row * t.N, t.singleCoreM * t.N);
    mm.SetTensorA(aGm);
    mm.SetTensorB(bGm);
    mm.IterateAll(cGm);
    mm.End();
}
