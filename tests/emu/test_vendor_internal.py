"""CANN's undocumented helpers (vendor_internal.json) as the emulator provides them: unqualified in
kernels, with plain integer semantics, next to the vector Ceil, and without colliding with a
project's own DivCeil / AlignUp / Ceil / likely (defined before or after kernel_operator.h, in
the project's namespace or at global scope): where both fit, the project's own is called."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ascend_tools.toolchain.flags import EMU_INCLUDE

FLAGS = [
    "-std=c++17",
    "-O0",
    "-pthread",
    f"-I{EMU_INCLUDE}",
    "-D__CCE_AICORE__=220",
    "-D__CCE_KT_TEST__=1",
    "-fno-diagnostics-show-caret",
]


def run(tmp_path: Path, source: str) -> subprocess.CompletedProcess:
    """Builds and runs a program; its exit code is the number of failed checks."""
    src, exe = tmp_path / "t.cpp", tmp_path / "t"
    src.write_text(source)
    built = subprocess.run(
        ["g++", *FLAGS, str(src), "-o", str(exe)], capture_output=True, text=True
    )
    assert built.returncode == 0, built.stderr[-3000:]
    return subprocess.run([str(exe)], capture_output=True, text=True)


def test_helpers_compute_integer_ceil_align_and_core_offset(tmp_path: Path) -> None:
    res = run(
        tmp_path,
        """
#include "kernel_operator.h"
using namespace AscendC;
static_assert(DivCeil(100u, 8) == 13 && DivCeil(96, 8) == 12, "compile-time use");
int main() {
    int bad = 0;
    uint32_t boxCount = 10;
    uint16_t repeat = Ceil(boxCount * 8, 64);                   // mixed types, as DrivingSDK
    bad += repeat != 2;
    bad += Ceil(boxCount * 2, static_cast<uint32_t>(64)) != 1;
    bad += AlignUp(boxCount, 7u) != 14 || AlignUp(14u, 7) != 14;
    bad += DivCeil(uint64_t(1) << 40, 3) != ((uint64_t(1) << 40) + 2) / 3;
    bad += !likely(boxCount > 1) || unlikely(boxCount < 1);
    uint8_t gm[64] = {};
    bad += ParamOffset<float>(gm, 4) != gm;                     // block 0 outside a launch
    auto vectorCeil = [](const LocalTensor<float>& d) { Ceil(d, d, 64); };  // still resolves
    (void)vectorCeil;
    return bad;
}
""",
    )
    assert res.returncode == 0, f"{res.returncode} checks failed"


def test_projects_own_helpers_win_and_do_not_collide(tmp_path: Path) -> None:
    # Each own definition returns a sentinel, so the exit code shows which one a call reached.
    res = run(
        tmp_path,
        """
#define unlikely(x) (x)
#include "kernel_operator.h"
#define likely(x) __builtin_expect((x), 1)
using namespace AscendC;
template <typename T> __aicore__ inline T DivCeil(T a, T b) { return 1000; }
namespace mine {
template <typename T> __aicore__ inline T DivCeil(T a, T b) { return 2000; }
template <typename T> __aicore__ inline T Ceil(T a, T b) { return 3000; }
inline uint32_t Blocks(uint32_t n) { return DivCeil(n, 8u) + Ceil(n, 8u); }
}
inline uint32_t AlignUp(uint32_t a, uint32_t b) { return 4000; }
int main() {
    int bad = 0;
    uint32_t n = 100;
    bad += DivCeil(n, 8u) != 1000;      // the global template beats AscendC's (more specialised)
    bad += mine::Blocks(n) != 5000;     // the namespace's own hide AscendC's
    bad += AlignUp(n, 8u) != 4000;      // a plain function beats a template
    bad += DivCeil(n, 8) != 13;         // only AscendC's takes mixed types
    bad += !likely(n == 100) || unlikely(n != 100);
    return bad;
}
""",
    )
    assert res.returncode == 0, f"{res.returncode} checks failed"


def test_ascendc_utils_get_bit_size_counts_the_bits_of_bytes(tmp_path: Path) -> None:
    # as a DrivingSDK kernel sizes a bit mask: bytes of mask per element count, 32-byte blocks
    res = run(
        tmp_path,
        """
#include "kernel_operator.h"
using namespace AscendC;
static_assert(AscendCUtils::GetBitSize(sizeof(uint8_t)) == 8, "compile-time use");
int main() {
    int bad = 0;
    uint32_t elems = 1000;
    uint32_t maskBytes = 32 * Ceil(Ceil(elems, AscendCUtils::GetBitSize(sizeof(uint8_t))), 32);
    bad += maskBytes != 128;
    bad += AscendC::AscendCUtils::GetBitSize(4) != 32;
    return bad;
}
""",
    )
    assert res.returncode == 0, f"{res.returncode} checks failed"


def test_ascendc_utils_set_mask_is_the_mask_a_placeholder_call_uses(tmp_path: Path) -> None:
    # xllm-ops layer_norm_fwd: AscendCUtils::SetMask<float>(n) before
    # WholeReduceSum<float, false>(..., MASK_PLACEHOLDER, ...) sums the first n lanes only.
    res = run(
        tmp_path,
        """
#include "kernel_operator.h"
using namespace AscendC;
int main() {
    int bad = 0;
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    LocalTensor<float> src = buf.Get<float>();
    LocalTensor<float> dst = src[128];
    Duplicate(src, 1.0f, 64);
    AscendCUtils::SetMask<float>(8);
    WholeReduceSum<float, false>(dst, src, MASK_PLACEHOLDER, 1, 1, 1, 8);
    bad += dst.GetValue(0) != 8.0f;
    AscendCUtils::SetMask<float>(0, 0xFFFF);
    WholeReduceSum<float, false>(dst, src, MASK_PLACEHOLDER, 1, 1, 1, 8);
    bad += dst.GetValue(0) != 16.0f;
    return bad;
}
""",
    )
    assert res.returncode == 0, f"{res.returncode} checks failed: {res.stderr[-2000:]}"


def test_bit_mask_walk_with_sff_value_and_the_compilers_sbitset(tmp_path: Path) -> None:
    # DrivingSDK's scatter_add walks the set bits of a mask: ScalarGetSFFValue<1> (documented
    # scalar API) finds the lowest one, the bisheng intrinsic sbitset0 clears it.
    res = run(
        tmp_path,
        """
#include "kernel_operator.h"
using namespace AscendC;
int main() {
    int bad = 0;
    bad += ScalarGetSFFValue<1>(28) != 2 || ScalarGetSFFValue<0>(28) != 0;
    bad += ScalarGetSFFValue<1>(0) != -1 || ScalarGetSFFValue<0>(~0ULL) != -1;
    bad += ScalarGetSFFValue<0>(0xFFULL) != 8;
    bad += ScalarGetCountOfValue<1>(28) != 3 || ScalarGetCountOfValue<0>(28) != 61;
    bad += ScalarCountLeadingZero(0x0fffffffffffffffULL) != 4 || ScalarCountLeadingZero(0) != 64;
    uint64_t mask = (1ULL << 63) | (1ULL << 5) | 1ULL;
    int64_t seen[4] = {}, n = 0;
    for (int64_t p = ScalarGetSFFValue<1>(mask); p >= 0 && n < 4; p = ScalarGetSFFValue<1>(mask)) {
        seen[n++] = p;
        mask = sbitset0(mask, p);
    }
    bad += n != 3 || seen[0] != 0 || seen[1] != 5 || seen[2] != 63 || mask != 0;
    bad += sbitset1(0, 63) != (1ULL << 63) || sbitset1(4, 2) != 4;
    return bad;
}
""",
    )
    assert res.returncode == 0, f"{res.returncode} checks failed"


def test_unqualified_abs_of_a_float_or_half_keeps_the_fraction(tmp_path: Path) -> None:
    # DrivingSDK's box_iou skips near-parallel edges with `abs(det) <= 1e-14` on a float: the
    # device compiler's abs is the floating one, where C's int abs(int) would make it 0.
    res = run(
        tmp_path,
        """
#include "kernel_operator.h"
using namespace AscendC;
template <class T> T magnitude(T x) { return abs(x); }
int main() {
    int bad = 0;
    float det = -0.25f;
    bad += abs(det) != 0.25f || magnitude(-0.5f) != 0.5f || abs(-2.5) != 2.5;
    bad += abs(det) <= 1e-14f;  // the kernel's test: not parallel
    bad += static_cast<float>(abs(half(-1.5f))) != 1.5f;
    bad += abs(-3) != 3 || abs(int64_t(-4)) != 4;
    return bad;
}
""",
    )
    assert res.returncode == 0, f"{res.returncode} checks failed"


def test_init_output_fills_gm_as_init_global_memory(tmp_path: Path) -> None:
    # InitGlobalMemory's older name, as DrivingSDK's radius kernel zeroes its counters
    res = run(
        tmp_path,
        """
#include "kernel_operator.h"
using namespace AscendC;
int main() {
    int bad = 0;
    int32_t counts[16];
    for (auto& c : counts) c = 7;
    GlobalTensor<int32_t> gm;
    gm.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(counts), 16);
    InitOutput<int32_t>(gm, 8, 0);
    for (int i = 0; i < 16; ++i) bad += counts[i] != (i < 8 ? 0 : 7);
    float feats[4] = {1, 2, 3, 4};
    GlobalTensor<float> fg;
    fg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(feats), 4);
    InitOutput<float>(fg, 4, static_cast<float>(-3.4e38));
    for (float f : feats) bad += f != -3.4e38f;
    return bad;
}
""",
    )
    assert res.returncode == 0, f"{res.returncode} checks failed"
