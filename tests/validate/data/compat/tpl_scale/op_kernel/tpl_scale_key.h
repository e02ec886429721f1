// The op's template arguments, shared by host and kernel: the element type (float only is
// built), a factor (declared 1-3 and 7, built for 2-3), and a sign.
#ifndef TPL_SCALE_KEY_H
#define TPL_SCALE_KEY_H
#include "ascendc/host_api/tiling/template_argument.h"

#define TPL_FP32 20
#define TPL_FP16 10

ASCENDC_TPL_ARGS_DECL(TplScale,
    ASCENDC_TPL_DTYPE_DECL(D_T, TPL_FP16, TPL_FP32),
    ASCENDC_TPL_UINT_DECL(FACTOR, ASCENDC_TPL_4_BW, ASCENDC_TPL_UI_MIX, 1, 1, 3, 7),
    ASCENDC_TPL_BOOL_DECL(NEG, 0, 1));

ASCENDC_TPL_SEL(
    ASCENDC_TPL_ARGS_SEL(
        ASCENDC_TPL_DTYPE_SEL(D_T, TPL_FP32),
        ASCENDC_TPL_UINT_SEL(FACTOR, ASCENDC_TPL_UI_RANGE, 1, 2, 3)));
#endif
