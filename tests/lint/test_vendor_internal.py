"""The `vendor-internal` rule: a call to a helper CANN's kernel_operator.h defines but the API
reference does not document (catalog/tables/vendor_internal.json) is a warning naming the
helper and the local definition that replaces it; the project's own helpers of those names, and
the documented vector Ceil, are not reported."""

from __future__ import annotations

from ascend_tools.catalog.vendor import vendor_internal
from ascend_tools.diagnostics import Severity
from ascend_tools.lint.rules import RULE_DOCS
from tests.lint.helpers import lint_texts

KERNEL = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    uint32_t n = DivCeil(100u, 8u);
    uint32_t m = AscendC::AlignUp(n, 8u) + Ceil(n, 4u);
    if (likely(n > 0) && !unlikely(m == 0)) {
        GM_ADDR xo = ParamOffset<half>(x, n);
        (void)xo;
    }
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256 * sizeof(half));
    LocalTensor<half> t = b.Get<half>();
    Ceil(t, t, 128);
}
"""


def _vendor(texts: dict[str, str]) -> dict[str, tuple[int, str]]:
    return {
        d.message.split(" is not in")[0]: (d.line, d.message)
        for d in lint_texts(texts)
        if d.code == "vendor-internal" and d.severity == Severity.WARNING
    }


def test_each_undocumented_helper_is_a_warning_with_its_replacement() -> None:
    found = _vendor({"/p/k.cpp": KERNEL})
    assert {k: v[0] for k, v in found.items()} == {
        "DivCeil": 4,
        "AlignUp": 5,
        "Ceil on scalars": 5,
        "likely": 6,
        "unlikely": 6,
        "ParamOffset": 7,
    }
    for name, (_, message) in found.items():
        entry = vendor_internal()[name.removesuffix(" on scalars")]
        assert entry["replacement"] in message and entry["vendor_file"] in message
    assert "vendor_internal.json" in RULE_DOCS["vendor-internal"]


def test_vector_ceil_and_unknown_api_do_not_report_the_helpers() -> None:
    diags = lint_texts({"/p/k.cpp": KERNEL})
    assert not [d for d in diags if d.code == "unknown-api"], diags
    assert [
        d.line
        for d in diags
        if d.code == "vendor-internal" and d.message.startswith("Ceil on scalars")
    ] == [5]


def test_projects_own_definitions_are_not_vendor_helpers() -> None:
    own = (
        "#define likely(x) __builtin_expect(!!(x), 1)\n"
        "template <typename T> __aicore__ inline T DivCeil(T a, T b) { return a / b; }\n"
        'extern "C"'
    )
    found = _vendor({"/p/k.cpp": KERNEL.replace('extern "C"', own, 1)})
    assert "DivCeil" not in found and "likely" not in found
    assert {"AlignUp", "unlikely", "ParamOffset"} <= set(found)


STATIC_MEMBER = """#include "kernel_operator.h"
using namespace AscendC;
struct MyUtils { static int64_t GetBitSize(int64_t n) { return n; } };
inline int64_t GetBitSize(int64_t n) { return n; }
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    uint32_t bits = AscendCUtils::GetBitSize(sizeof(uint8_t));
    uint32_t more = AscendC::AscendCUtils::GetBitSize(2);
    uint32_t own = MyUtils::GetBitSize(3) + GetBitSize(4);
    (void)bits; (void)more; (void)own;
}
"""


def test_a_static_member_helper_is_reported_only_through_its_class() -> None:
    diags = lint_texts({"/p/k.cpp": STATIC_MEMBER})
    found = [d for d in diags if d.code == "vendor-internal"]
    assert [(d.line, d.severity) for d in found] == [(6, Severity.WARNING), (7, Severity.WARNING)]
    entry = vendor_internal()["GetBitSize"]
    assert found[0].message.startswith("AscendCUtils::GetBitSize is not in")
    assert entry["replacement"] in found[0].message
    assert not [d for d in diags if d.code == "unknown-api"], diags


PI_KERNEL = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256 * sizeof(float));
    LocalTensor<float> t = b.Get<float>();
    // scale by PI (a comment: not a use)
    Muls(t, t, PI / 2, 64);
    Adds(t, t, -AscendC::PI, 64);
}
"""


def test_a_use_of_pi_the_project_never_declares_is_a_warning() -> None:
    # CANN's headers declare PI (vendor_internal.json, form `constant`); the emulator supplies
    # it only to a build that fails without it, so lint names its first use, the others and the
    # local definition.
    found = [d for d in lint_texts({"/p/k.cpp": PI_KERNEL}) if d.code == "vendor-internal"]
    assert [(d.line, d.column, d.severity) for d in found] == [(9, 16, Severity.WARNING)]
    assert found[0].message.startswith("PI is not declared by the project")
    assert found[0].message.endswith("Also used at line 10 of this file.")
    assert vendor_internal()["PI"]["replacement"] in found[0].message


def test_a_project_that_declares_pi_gets_no_warning() -> None:
    for own in ("constexpr float PI = 3.14159265f;", "#define PI 3.14159265f"):
        text = PI_KERNEL.replace("using namespace AscendC;", f"using namespace AscendC;\n{own}")
        found = [d for d in lint_texts({"/p/k.cpp": text}) if d.code == "vendor-internal"]
        assert found == [], (own, found)


def test_include_of_a_cann_internal_header_is_a_warning_naming_it() -> None:
    # DrivingSDK's msda.h includes TPipe's implementation header by name (kernel_operator.h
    # already includes it on CANN); a commented-out include and other headers are not reported.
    kernel = (
        '#include "kernel_operator.h"\n'
        '#include "kernel_tpipe_impl.h"\n'
        '// #include "kernel_tpipe_impl.h"\n'
        "#include <cstdint>\n" + KERNEL.split("\n", 1)[1]
    )
    found = [d for d in lint_texts({"/p/k.cpp": kernel})
             if d.code == "vendor-internal" and "#include" in d.message]
    assert [(d.line, d.column, d.severity) for d in found] == [(2, 11, Severity.WARNING)]
    assert "kernel_tpipe_impl.h" in found[0].message
    assert "impl/basic_api/kernel_tpipe_impl.h" in found[0].message


def test_a_helper_used_many_times_is_reported_once_with_its_other_lines() -> None:
    """One warning a dependency, at its first use, naming the other lines (DrivingSDK's msda.h
    drew 53 warnings for AlignUp and DivCeil); the same for a vendor constant."""
    text = KERNEL.replace(
        "    TPipe pipe;",
        "    n = DivCeil(n, 4u);\n    n = DivCeil(n, 2u) + PI + PI;\n    TPipe pipe;")
    found = [d for d in lint_texts({"/p/k.cpp": text}) if d.code == "vendor-internal"]
    divceil = [d for d in found if d.message.startswith("DivCeil ")]
    assert [d.line for d in divceil] == [4]
    assert divceil[0].message.endswith("Also used at lines 10, 11 of this file.")
    pi = [d for d in found if d.message.startswith("PI ")]
    assert [d.line for d in pi] == [11]
    assert pi[0].message.endswith("Also used at line 11 of this file.")
