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
    event_t inReady = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_V));
    SetFlag<HardEvent::MTE2_V>(inReady);
    WaitFlag<HardEvent::MTE2_V>(inReady);
    Muls(t, t, td.alpha, td.perCore);
    event_t outReady = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_MTE3));
    SetFlag<HardEvent::V_MTE3>(outReady);
    WaitFlag<HardEvent::V_MTE3>(outReady);
    DataCopy(yGm, t, td.perCore);
}
