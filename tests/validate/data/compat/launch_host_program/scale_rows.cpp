// A kernel-launch sample whose tiling lives in a GM buffer that only the sample's host program
// fills (GenerateTiling in scale_rows_tiling.cpp, called from main.cpp), launched on a block count
// main() computes from that tiling, with a tiling key it sets: the shape of Ascend/samples'
// matmul kernel launches.
#include "kernel_operator.h"
using namespace AscendC;

struct ScaleRowsTiling {
    uint32_t rows;
    uint32_t cols;
    uint32_t rowsPerCore;
    float scale;
};

extern "C" __global__ __aicore__ void scale_rows(GM_ADDR x, GM_ADDR y, GM_ADDR tilingGm) {
    ScaleRowsTiling t;
    auto* words = reinterpret_cast<__gm__ uint32_t*>(tilingGm);
    t.rows = words[0];
    t.cols = words[1];
    t.rowsPerCore = words[2];
    t.scale = *reinterpret_cast<__gm__ float*>(words + 3);
    const float factor = TILING_KEY_IS(2) ? t.scale * 2 : t.scale;
    const uint32_t count = t.rowsPerCore * t.cols;
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, count * sizeof(float));
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x) + count * GetBlockIdx(), count);
    yGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + count * GetBlockIdx(), count);
    LocalTensor<float> v = buf.Get<float>();
    DataCopy(v, xGm, count);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Muls(v, v, factor, count);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(yGm, v, count);
}
