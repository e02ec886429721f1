#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void host_vendor(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA(td, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + td.perCore * GetBlockIdx(), td.perCore);
    yGm.SetGlobalBuffer((__gm__ float*)y + td.perCore * GetBlockIdx(), td.perCore);
    pipe.InitBuffer(buf, td.perCore * sizeof(float));
    LocalTensor<float> t = buf.Get<float>();
    DataCopy(t, xGm, td.perCore);
    Muls(t, t, td.alpha, td.perCore);
    DataCopy(yGm, t, td.perCore);
}
