// y[r, c] = x[r, c] * rowScale[r] + ROW_BIAS: the tiling's nested struct and array, and a
// constant of the kernel's own consts.h. CPU debug mode's trace uses std::cout, which that mode's
// headers bring.
#include "kernel_operator.h"
#include "consts.h"

#ifdef __CCE_KT_TEST__
inline void TraceRows(uint32_t rows) { std::cout << "rows " << rows << std::endl; }
#endif

extern "C" __global__ __aicore__ void guarded_consts(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA(t, tiling);
    AscendC::GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, t.total);
    yg.SetGlobalBuffer((__gm__ float*)y, t.total);
    for (uint32_t r = 0; r < t.shape.rows && r < MAX_ROWS; ++r) {
        for (uint32_t c = 0; c < t.shape.cols; ++c) {
            const uint32_t i = r * t.shape.cols + c;
            yg.SetValue(i, xg.GetValue(i) * t.rowScale[r] + ROW_BIAS);
        }
    }
}
