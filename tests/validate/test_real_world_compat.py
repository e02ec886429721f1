"""Operator projects written the way real ones are (issue #8) build and validate unchanged.

Class 2 (host headers as the vendor's): host code uses the std library without including it,
framework stand-in headers (acl/acl.h, log/ops_log.h, ...), its own logging macros with another
arity next to the framework's, and includes rooted at the op's folder; a header that really is
missing is named with what the project wanted from it. Class 3 (device syntax): bisheng's
`__forceinline__ [aicore]`, system functions unqualified in templates, ASSERT, printf/PRINTF/
DumpTensor, two tiling keys, the tiling struct named at global scope, min()/max(), `tik2`,
whole-tensor comparison operators, tiling macros without ';', an entry named like a C library
function. Run semantics: in-place outputs share their input's buffer, TBuf<GM> is global memory,
a Matmul API kernel with no kernel type runs as mix 1:2, a launch sample's block count comes
from its launch. The fixture projects under
data/compat are written for these tests; `bench compat` runs over the same copies.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ascend_tools.lint import lint_path
from ascend_tools.parse import Document, KernelModel
from ascend_tools.project import ProjectError, block_dim_of, load_project
from ascend_tools.toolchain import compat, tpl
from ascend_tools.validate import ValidationInputError, validate_project
from bench import compat_bench

DATA = Path(__file__).resolve().parent / "data" / "compat"


@pytest.fixture(scope="session")
def projects(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One session copy of the fixture projects (same paths, so builds are cached across tests)."""
    root = tmp_path_factory.mktemp("compat") / "projects"
    shutil.copytree(DATA, root)
    return root


def _line_of(path: Path, needle: str) -> int:
    return next(i for i, t in enumerate(path.read_text().splitlines(), 1) if needle in t)


def _variant(projects: Path, tmp_path: Path, name: str, *edits: tuple[str, str, str]) -> Path:
    """A copy of fixture project `name` with each edit (file relative to the project, text that
    must occur there, its replacement, once) applied in order."""
    p = tmp_path / name
    shutil.copytree(projects / name, p)
    for rel, old, new in edits:
        path = p / rel
        text = path.read_text()
        assert old in text, (rel, old)
        path.write_text(text.replace(old, new, 1))
    return p


def test_host_code_builds_on_vendor_headers_next_to_its_own_log_macros(projects: Path) -> None:
    p = projects / "host_vendor"
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, report.cases
    # the project's OP_LOGE/OP_CHECK_IF never met ours: no redefinition warning either
    assert not [d for d in report.compile.diagnostics if "redefined" in d.message]


def test_missing_header_is_named_with_what_the_project_used_from_it(
    projects: Path, tmp_path: Path
) -> None:
    p = tmp_path / "host_vendor"
    shutil.copytree(projects / "host_vendor", p)
    src = p / "op_host" / "host_vendor_tiling.cpp"
    text = src.read_text().replace(
        '#include "acl/acl.h"', '#include "acl/acl.h"\n#include "vendor/trace_log.h"'
    ).replace(
        "    HostVendorTilingData tiling;",
        '    TRACE_LOG_INFO("tiling %u", total);\n    HostVendorTilingData tiling;',
    )
    src.write_text(text)
    report = validate_project(p, p / "ref.py")
    assert not report.compile.ok
    [d] = [d for d in report.compile.diagnostics if "vendor/trace_log.h" in d.message]
    assert (d.file, d.line) == ("op_host/host_vendor_tiling.cpp", _line_of(src, "trace_log.h"))
    assert "the project uses from it: TRACE_LOG_INFO" in d.message


def test_header_msopgen_would_generate_and_nothing_uses_builds_empty_with_a_warning(
    projects: Path, tmp_path: Path
) -> None:
    # #8: Ascend/samples' DumpTensorCube includes the `<op>_tiling.h` skeleton `msopgen gen`
    # writes before its install script copies op_host over it; the sample uses nothing from it.
    p = _variant(
        projects, tmp_path, "host_vendor",
        ("op_host/host_vendor_tiling.cpp", '#include "acl/acl.h"',
         '#include "acl/acl.h"\n#include "host_vendor_skeleton.h"'),
        ("op_kernel/host_vendor.cpp", '#include "kernel_operator.h"',
         '#include "kernel_operator.h"\n#include "kernel_skeleton.h"'),
    )
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, report.cases
    found = {d.message.split(":")[0]: d for d in report.compile.diagnostics
             if "built as an empty file" in d.message}
    assert set(found) == {"host_vendor_skeleton.h", "kernel_skeleton.h"}
    assert all(d.severity == "warning" for d in found.values())
    host = found["host_vendor_skeleton.h"]
    assert (host.file, host.line) == (
        "op_host/host_vendor_tiling.cpp",
        _line_of(p / "op_host" / "host_vendor_tiling.cpp", "host_vendor_skeleton.h"))


def test_host_code_logging_through_acl_app_log_builds(projects: Path, tmp_path: Path) -> None:
    # #8: DrivingSDK's host code includes its include/log/log.h, which takes aclLogLevel and
    # aclAppLog from <acl/acl_base.h>; before, the stand-in ACL header had neither.
    p = tmp_path / "host_vendor"
    shutil.copytree(projects / "host_vendor", p)
    src = p / "op_host" / "host_vendor_tiling.cpp"
    log = '    aclAppLog(ACL_INFO, __FILE__, __FUNCTION__, __LINE__, "tiling %u", total);\n'
    text = src.read_text().replace('#include "acl/acl.h"', "#include <acl/acl_base.h>")
    anchor = "    HostVendorTilingData tiling;"
    src.write_text(text.replace(anchor, log + anchor))
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, report.cases


def test_host_code_on_the_ops_logging_family_and_untyped_compile_info_builds(
    projects: Path, tmp_path: Path
) -> None:
    # #8: vllm-ascend's transpose_kv_cache_by_block / copy_and_expand_eagle_inputs take OPS_LOG_*,
    # OPS_CHECK and OP_CHECK from log/ops_log.h or tiling_base/error_log.h, and read
    # GetCompileInfo() untyped; before, none of these built.
    checks = (
        "    OPS_LOG_E_IF_NULL(context, context->GetAttrs(), return ge::GRAPH_FAILED);\n"
        "    OPS_CHECK(total == 0, OPS_LOG_E(context->GetNodeName(), \"empty\"),\n"
        "              return ge::GRAPH_FAILED);\n"
        "    OP_CHECK(total % 8 != 0, OPS_LOG_E_WITHOUT_REPORT(context, \"%u\", total),\n"
        "             return ge::GRAPH_FAILED);\n"
        "    OPS_LOG_I(context, \"compile info %p\", context->GetCompileInfo());\n"
        "    OPS_LOG_D(\"HostVendor\", \"total %u\", total);\n"
        "    OPS_LOG_E_IF(total == 0, context, return ge::GRAPH_FAILED, \"total %u\", total);\n"
    )
    tiling, anchor = "op_host/host_vendor_tiling.cpp", "    HostVendorTilingData tiling;"
    p = _variant(
        projects, tmp_path, "host_vendor",
        (tiling, '#include "log/ops_log.h"', '#include "tiling_base/error_log.h"'),
        (tiling, anchor, checks + anchor),
    )
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, report.cases


def test_infer_shape_asking_for_an_undeclared_output_is_warned_not_a_crash(
    projects: Path, tmp_path: Path
) -> None:
    # #8: Ascend/samples ScatterMax updates its input in place (no OpDef output) and kept a
    # template's `*context->GetOutputShape(0) = ...`: GE would hand it nullptr, but the aclnn
    # single-op path never runs InferShape, so the op works on the NPU. Before: SIGSEGV.
    line = "    *context->GetOutputShape(0) = *context->GetInputShape(0);"
    p = _variant(projects, tmp_path, "host_vendor", (
        "op_host/host_vendor.cpp", line, line + "\n" + line.replace("(0) =", "(3) =")))
    report = validate_project(p, p / "ref.py")
    assert report.ok, report.cases
    warned = [n for n in report.notes if "[infer-shape]" in n]
    assert any("output 3, which the OpDef does not declare" in n for n in warned), report.notes


@pytest.mark.parametrize(
    ("file", "anchor", "crash", "where"),
    [
        (
            "op_host/host_vendor_tiling.cpp",
            "    HostVendorTilingData tiling;",
            "    volatile uint32_t none = 0;\n    cores = total / none;\n",
            "SIGFPE (an integer division by zero?) in the op's tiling function",
        ),
        (
            "op_host/host_vendor.cpp",
            "    *context->GetOutputShape(0) = *context->GetInputShape(0);",
            "    *static_cast<volatile int*>(nullptr) = 1;\n",
            "SIGSEGV (an invalid memory access) in the op's InferShape",
        ),
        (
            "op_kernel/host_vendor.cpp",
            "    DataCopy(yGm, t, td.perCore);",
            "    if (GetBlockIdx() == 1) *static_cast<volatile int*>(nullptr) = 1;\n",
            "SIGSEGV (an invalid memory access) in the kernel, block 1",
        ),
    ],
)
def test_a_crash_names_the_code_it_happened_in(
    projects: Path, tmp_path: Path, file: str, anchor: str, crash: str, where: str
) -> None:
    p = _variant(projects, tmp_path, "host_vendor", (file, anchor, crash + anchor))
    report = validate_project(p, p / "ref.py")
    assert not report.ok
    assert where in report.cases[0].message, report.cases[0].message


def test_a_projects_own_tolerances_replace_the_dtype_defaults_and_the_caller_s_win(
    projects: Path, tmp_path: Path
) -> None:
    # #8: Ascend/samples' verify_result.py accepts an absolute error of 1e-2 on float16 outputs;
    # fast_gelu computed in float16 steps is that far off and passes on the NPU's test.
    p = _variant(projects, tmp_path, "host_vendor", ("ref.py", "x * 2.0", "x * 2.0 + 0.004"))
    assert not validate_project(p, p / "ref.py").ok
    (p / "kernelgen.toml").write_text("atol = 1e-2\nrtol = 1e-2\n")
    assert validate_project(p, p / "ref.py").ok
    assert not validate_project(p, p / "ref.py", atol=1e-3, rtol=1e-3).ok


def test_compact_data_copy_pad_packs_rows_and_register_h_builds(
    projects: Path, tmp_path: Path
) -> None:
    # #8: RecSDK multislice_concat copies rows in and out with DataCopyPad<T,
    # PaddingMode::Compact> and its host includes register/register.h. Rows of 16 bytes: packed,
    # the 8 rows fill the 32-float buffer exactly (Normal mode would pad each to 32 bytes).
    kernel = "op_kernel/host_vendor.cpp"
    rows = (
        "    DataCopyExtParams rows{static_cast<uint16_t>(td.perCore / 4), 4 * sizeof(float),"
        " 0, 0, 0};\n"
    )
    p = _variant(
        projects, tmp_path, "host_vendor",
        ("op_host/host_vendor.cpp", "#include", '#include "register/register.h"\n#include'),
        (kernel, "    DataCopy(t, xGm, td.perCore);",
         rows + "    DataCopyPad<float, PaddingMode::Compact>(t, xGm, rows, {false, 0, 0, 0});"),
        (kernel, "    DataCopy(yGm, t, td.perCore);",
         "    DataCopyPad<float, PaddingMode::Compact>(yGm, t, rows);"),
    )
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, (report.runtime_errors, report.cases)
    assert not any("count-exceeds-tensor" in n for n in report.notes), report.notes


def test_device_idioms_run_both_tiling_keys_and_assert_stops_at_its_line(projects: Path) -> None:
    p = projects / "device_idioms"
    # 128 elements: tiling key 2 (GET_TILING_DATA_WITH_STRUCT); 48: key 1 (GET_TILING_DATA after
    # REGISTER_TILING_DEFAULT); 36: 18 per core, which the kernel's ASSERT refuses.
    report = validate_project(p, p / "ref.py", shapes=[[[48]], [[36]]])
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert [c.ok for c in report.cases] == [True, True, False]
    [err] = report.runtime_errors
    kernel = p / "op_kernel" / "device_idioms.cpp"
    assert (err.code, err.file, err.line) == (
        "assert-failed", "op_kernel/device_idioms.cpp", _line_of(kernel, "ASSERT(")
    )
    assert "share 18 is not a whole number" in err.message


def test_spellings_of_recsdk_xllm_and_early_samples_build_in_one_device_idioms_variant(
    projects: Path, tmp_path: Path
) -> None:
    """#8, one build for several real-world spellings (each was a compile error before):
    - xllm-ops: KERNEL_TYPE_MIX_VECTOR_CORE (KernelMetaType's Atlas inference types, declared for
      ascend910b), the vendor's PRELOAD(8) prefetch macro beside the documented ICachePreLoad,
      the host's AscendC::GetSortTmpSize, and an op_host/<op>_proto.cpp (graph-mode prototype)
      whose typo the repository's own build never compiles: left out with a warning;
    - RecSDK: ASCENDC_ASSERT(cond, "message") from kernel_log.h, float16_t as an element type;
    - early Ascend/samples: a kernel class inside `namespace tik2 { ... }`."""
    kernel = "op_kernel/device_idioms.cpp"
    host = "op_host/device_idioms.cpp"
    p = _variant(
        projects, tmp_path, "device_idioms",
        (kernel, '#include "kernel_operator.h"',
         '#include "kernel_operator.h"\n#include "kernel_log.h"\n'
         "namespace tik2 {\nstruct HalfProbe {\n    float16_t h;\n};\n}  // namespace tik2"),
        (kernel, "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);",
         "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_VECTOR_CORE);\n    PRELOAD(8);\n"
         "    AscendC::ICachePreLoad(2);"),
        (kernel, "        ASSERT(share % 8 == 0,",
         '        ASCENDC_ASSERT((sizeof(tik2::HalfProbe) == 2), "float16_t is two bytes");\n'
         '        ASCENDC_ASSERT((share % 8 == 0), "share is not a whole number of blocks");\n'
         "        ASSERT(share % 8 == 0,"),
        (host, '#include "register/op_def_registry.h"',
         '#include "register/op_def_registry.h"\n#include "tiling/platform/platform_ascendc.h"\n'
         '#include "tiling/tiling_api.h"'),
        (host, "    t.set_factor(2.0f);",
         "    auto plat = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());\n"
         "    t.set_factor(AscendC::GetSortTmpSize(plat, 128, 4) >= 128 * 4 ? 2.0f : 0.0f);"),
    )
    (p / "op_host" / "device_idioms_proto.cpp").write_text(
        '#include "register/op_def_registry.h"\n'
        "namespace ge {\n"
        "static ge::graphStatus InferShape(gert::InferShapeContext* context) {\n"
        "    *context->GetOutputShape(0) = *context->GetInputShape(0);\n"
        "    return GRAPH_SUCCESS;\n"
        "}\n"
        "IMPL_OP(DeviceIdioms).InferShape(InperShape);\n"
        "}  // namespace ge\n"
    )
    report = validate_project(p, p / "ref.py", shapes=[[[48]], [[36]]])
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert [c.ok for c in report.cases] == [True, True, False]
    [err] = report.runtime_errors
    assert (err.code, err.line) == ("assert-failed", _line_of(p / kernel, "ASCENDC_ASSERT((share"))
    [left_out] = [d for d in report.compile.diagnostics if "left out of the build" in d.message]
    assert left_out.severity == "warning" and left_out.file == "op_host/device_idioms_proto.cpp"
    assert "InperShape" in left_out.message
    lint = lint_path(p)
    vendor = " ".join(d.message for d in lint if d.code == "vendor-internal")
    assert "PRELOAD" in vendor and "ICachePreLoad" in vendor and "ASCENDC_ASSERT" in vendor, lint
    assert not [d for d in lint if d.severity == "error"], lint


def test_spellings_of_mamba_kernels_build_in_one_device_idioms_variant(
    projects: Path, tmp_path: Path
) -> None:
    """#8, mamba-ascendc (each a compile error before): the count form of ReduceSum/Max/Min with
    its `isSetMask` template argument; CANN's high-level header lib/pad/broadcast.h; and a
    header nobody ships next to DEFAULT_C0_SIZE, which CANN's kernel headers declare: the missing
    header is built empty (a warning) and the constant supplied (a warning), where before the
    constant was blamed on the header."""
    kernel = "op_kernel/device_idioms.cpp"
    probe = """#include "lib/pad/broadcast.h"
#include "mamba_scaffold/never_shipped.h"

__aicore__ inline void ReduceProbe(AscendC::LocalTensor<float>& d, AscendC::LocalTensor<float>& s,
                                   AscendC::LocalTensor<float>& w) {
    AscendC::ReduceSum<float, true>(d, s, w, 64);
    AscendC::ReduceMax<float, true>(d, s, w, 64, true);
    AscendC::ReduceMin<float, false>(d, s, w, 64);
}
static_assert(DEFAULT_C0_SIZE == 32, "C0 is 32 bytes");
"""
    p = _variant(projects, tmp_path, "device_idioms",
                 (kernel, '#include "kernel_operator.h"\n',
                  '#include "kernel_operator.h"\n' + probe))
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, report.cases
    warnings = [d.message for d in report.compile.diagnostics if d.severity == "warning"]
    assert any("never_shipped.h: not found" in w for w in warnings), warnings
    assert any("supplied 'DEFAULT_C0_SIZE'" in w for w in warnings), warnings


def test_an_output_declared_with_a_datatypelist_takes_the_dtype_the_reference_returns(
    projects: Path, tmp_path: Path
) -> None:
    """#8, fbgemm-ascend segment_sum_csr: an output's DataTypeList combines with every input
    type, so the caller picks; the first listed type (half here) was taken although the
    reference returns float32, and the kernel's float stores overran a half-sized buffer."""
    host = "op_host/host_vendor.cpp"
    p = _variant(projects, tmp_path, "host_vendor",
                 (host, 'this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT})',
                  'this->Output("y").ParamType(REQUIRED)'
                  ".DataTypeList({ge::DT_FLOAT16, ge::DT_FLOAT})"))
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, (report.runtime_errors, report.cases)


def test_macros_the_projects_build_script_defines_are_stated_in_kernelgen_toml(
    projects: Path, tmp_path: Path
) -> None:
    """#8, fbgemm-ascend jagged_to_padded_dense: its run.sh writes `#define
    INT64_TYPE_USED_COPY_PADDING_UB` into a kernel header before building, so the `#else` branch
    (a Duplicate on int64_t, which A2 lacks) is never compiled; lint flagged it as an error.
    `defines` in kernelgen.toml states such macros: the emulator compiles with them and lint
    judges `#ifdef` branches by them."""
    kernel = "op_kernel/device_idioms.cpp"
    probe = """
__aicore__ inline void PadProbe(AscendC::LocalTensor<int64_t>& t) {
#ifdef PAD_WITH_INT32
    (void)t;
#else
    AscendC::Duplicate<int64_t>(t, 0, 8);
#error "the project's build script defines PAD_WITH_INT32"
#endif
}
"""
    include = '#include "kernel_operator.h"\n'
    p = _variant(projects, tmp_path, "device_idioms", (kernel, include, include + probe))
    without = [d for d in lint_path(p) if d.severity == "error"]
    assert [d.code for d in without] == ["dtype-support"], without
    (p / "kernelgen.toml").write_text('defines = ["PAD_WITH_INT32"]\n')
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, report.cases
    assert not [d for d in lint_path(p) if d.severity == "error"]


def test_kernel_assert_with_a_message_stops_at_its_line(projects: Path, tmp_path: Path) -> None:
    # #8: the kernel debug API `assert(expr, fmt, args...)` (RecSDK's embedding lookups,
    # Ascend/samples' 3_assert matmul): before, "'assert' was not declared in this scope".
    kernel = "op_kernel/device_idioms.cpp"
    p = _variant(projects, tmp_path, "device_idioms",
                 (kernel, "        ASSERT(share % 8 == 0,", "        assert(share % 8 == 0,"))
    report = validate_project(p, p / "ref.py", shapes=[[[48]], [[36]]])
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert [c.ok for c in report.cases] == [True, True, False]
    [err] = report.runtime_errors
    assert (err.code, err.line) == ("assert-failed", _line_of(p / kernel, "assert(share"))
    assert err.message.startswith("assert(share % 8 == 0) failed: share 18 is not a whole")


def test_block_size_and_ub_size_names_and_an_assert_glued_to_an_expression_build(
    projects: Path, tmp_path: Path
) -> None:
    # #8: vllm-ascend transpose_kv_cache_by_block sizes buffers with GetDataBlockSizeInBytes()
    # and an undeclared TOTAL_UB_SIZE; three Ascend/samples kernels write `n = tileNum
    # ASSERT(...)` with no `;` (the NPU's ASSERT is empty); others use DEFAULT_C0_SIZE, a
    # GlobalTensor's public `address_` and AscendC::Std::max/min; RecSDK's embedding lookups
    # the type name float32_t, Ascend/samples' .asc matmul AscendC::DEFAULT_C0_SIZE. Before:
    # compile errors, each.
    kernel = "op_kernel/device_idioms.cpp"
    line = "        share = Share<T>(total);"
    glued = (
        "        uint32_t each = Share<T>(total);\n"
        "        share = each ASSERT(each != 0 && \"no share\");\n"
        "        ASSERT(AscendC::GetDataBlockSizeInBytes() == 32);\n"
        "        ASSERT(TOTAL_UB_SIZE == 192 * 1024 && TOTAL_UB_SIZE / 2 > share * sizeof(T));\n"
        "        ASSERT(DEFAULT_C0_SIZE == 32);\n"
        "        ASSERT(AscendC::DEFAULT_C0_SIZE == 32 && sizeof(float32_t) == 4);\n"
        "        ASSERT(AscendC::Std::max(3u, 5) == 5u && AscendC::Std::min(2.5f, 1) == 1.0f);"
    )
    after = "        yGm.SetGlobalBuffer((__gm__ T*)y + Start<T>(share), share);"
    public_address = after + "\n        ASSERT(yGm.address_ == yGm.GetPhyAddr());"
    p = _variant(projects, tmp_path, "device_idioms", (kernel, line, glued),
                 (kernel, after, public_address))
    report = validate_project(p, p / "ref.py", shapes=[[[48]]])
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, report.cases
    assert any("TOTAL_UB_SIZE" in n for n in report.notes), report.notes  # vendor-internal


def test_compile_errors_after_aicore_attribute_keep_their_line(
    projects: Path, tmp_path: Path
) -> None:
    p = tmp_path / "device_idioms"
    shutil.copytree(projects / "device_idioms", p)
    kernel = p / "op_kernel" / "device_idioms.cpp"
    kernel.write_text(kernel.read_text().replace("share * GetBlockIdx()", "share * GetBlokIdx()"))
    report = validate_project(p, p / "ref.py")
    hits = [(d.file, d.line) for d in report.compile.diagnostics if "GetBlokIdx" in d.message]
    assert hits and set(hits) == {("op_kernel/device_idioms.cpp", _line_of(kernel, "GetBlokIdx"))}


def test_aicore_attribute_is_blanked_in_place() -> None:
    text = "__forceinline__ [aicore] void f();\nint a[aicore_n];\n"
    out = compat.rewrite_source(text)
    assert out == "__forceinline__          void f();\nint a[aicore_n];\n"
    assert compat.rewrite_source("int main() {}\n") is None


def test_the_semicolons_an_assert_statement_lacks_go_in() -> None:
    # Before one glued to an expression (Ascend/samples), after one the next statement follows
    # (RecSDK); nothing where one is there, after a keyword, inside an expression or a #define.
    text = (
        "n = tileNum ASSERT(tileNum != 0);\nuint32_t a = p.ALIGN\nASSERT(a != 0);\n"
        "if (x) ASSERT(y);\nelse ASSERT(z);\n  ASSERT(q);\nv[i] ASSERT(w);\n"
        'ASSERT(n != 0 && "core (n) is zero")\nthis->a = 1;\n{ ASSERT(k) }\n'
        "v = (ASSERT(q), 3);\n#define ASSERT(x) check(x)\n"
    )
    assert compat.rewrite_source(text) == (
        "n = tileNum; ASSERT(tileNum != 0);\nuint32_t a = p.ALIGN;\nASSERT(a != 0);\n"
        "if (x) ASSERT(y);\nelse ASSERT(z);\n  ASSERT(q);\nv[i]; ASSERT(w);\n"
        'ASSERT(n != 0 && "core (n) is zero");\nthis->a = 1;\n{ ASSERT(k); }\n'
        "v = (ASSERT(q), 3);\n#define ASSERT(x) check(x)\n"
    )


def test_a_kernel_type_call_gets_the_semicolon_it_lacks_but_no_directive_does() -> None:
    # RecSDK in_linear_silu: `KERNEL_TASK_TYPE_DEFAULT(...)` with no `;` before REGIST_MATMUL_OBJ.
    # DrivingSDK bev_pool: the call under `#if __CCE_AICORE__ == 220`, whose `220` must not take
    # a `;` (the rewrite did that once and broke every such kernel's build).
    text = (
        "#if __CCE_AICORE__ == 220\n    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);\n#endif\n"
        "    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2)\n    REGIST_MATMUL_OBJ(&p, w, mm);\n"
        "#if X == 1\n    ASSERT(x);\n#endif\n"
    )
    assert compat.rewrite_source(text) == text.replace(
        "KERNEL_TYPE_MIX_AIC_1_2)", "KERNEL_TYPE_MIX_AIC_1_2);"
    )


def test_data_type_names_in_preprocessor_conditions_become_their_numbers() -> None:
    text = "#if (ORIG_DTYPE_X == DT_FLOAT16)\nauto t = ge::DT_FLOAT16;\n#elif X == ge::DT_BF16\n"
    assert compat.rewrite_source(text) == (
        "#if (ORIG_DTYPE_X == 1)\nauto t = ge::DT_FLOAT16;\n#elif X == 27\n"
    )


# xllm-ops rec_constrained_top_k picks its code path by `#if (ORIG_DTYPE_LOGITS == DT_FLOAT)`:
# CANN defines ORIG_DTYPE_<ARG> and the kernel-side DT_* as numbers. A wrong path doubles z.
DTYPE_BRANCH = """Add(zLocal, xLocal, yLocal, length);
        static_assert(ORIG_DTYPE_X == ge::DT_FLOAT || ORIG_DTYPE_X == ge::DT_FLOAT16);
#if (ORIG_DTYPE_X != DT_FLOAT) || (ORIG_DTYPE_Y != ge::DT_FLOAT)
        Muls(zLocal, zLocal, (T)2, length);
#endif"""


@pytest.mark.parametrize(("dtype", "passes"), [("float32", True), ("float16", False)])
def test_kernel_branches_on_orig_dtype_in_preprocessor_conditions(
    example, mutate, dtype: str, passes: bool
) -> None:
    project = example("add_unaligned")
    add = "Add(zLocal, xLocal, yLocal, length);"
    mutate(project / "op_kernel/add_custom.cpp", add, DTYPE_BRANCH)
    report = validate_project(project, project / "ref.py", dtype=dtype)
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok is passes, [c.message for c in report.cases]


def test_log_macro_switches_follow_what_a_unit_defines_and_uses() -> None:
    own = "#define OP_LOGE(a, b) puts(b)\nvoid f() { OP_LOGE(\"x\", \"y\"); OP_LOGD(0, \"z\"); }"
    flags = compat.log_macro_flags([own])
    assert "-DKERNELGEN_PROJECT_DEFINES_OP_LOGE" in flags
    assert flags[-2:] == ["-include", compat.LOG_MACROS_HEADER]  # OP_LOGD used, not defined
    assert compat.log_macro_flags(["// OP_LOGD in a comment\nint x;"]) == []


def test_tiling_structs_in_a_namespace_are_aliased_unless_the_kernel_has_its_own() -> None:
    header = (
        "namespace optiling {\nBEGIN_TILING_DATA_DEF(ATiling)\nEND_TILING_DATA_DEF;\n}\n"
        "BEGIN_TILING_DATA_DEF(GlobalTiling)\nEND_TILING_DATA_DEF;\n"
        "namespace optiling { BEGIN_TILING_DATA_DEF(BTiling)\nEND_TILING_DATA_DEF; }\n"
    )
    assert compat.global_tiling_aliases(header, ["struct BTiling { int a; };"]) == [
        "using ::optiling::ATiling;"
    ]


def test_in_place_output_is_the_input_buffer_and_old_host_callbacks_build(projects: Path) -> None:
    # Output "x" is Input "x": the kernel writes through its input pointer, as on the NPU where
    # both are one tensor. The host registers InferShapeRange and an int32_t check-support
    # callback; the tiling fields and END_TILING_DATA_DEF go without ';'; the kernel uses the
    # whole-tensor `mask = a < b`, the device min() builtin, `using namespace tik2` and a 4 GiB
    # TBuf<GM> (global memory: it takes nothing from UB).
    p = projects / "inplace_min"
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, (report.runtime_errors, report.cases)


def test_an_output_bound_to_a_mutated_input_of_another_name_is_that_input(
    projects: Path, tmp_path: Path
) -> None:
    # xllm-ops cache_unshared_kv: the glue passes the cache as input x and as output x_out, one
    # buffer; the kernel writes through x. x_out is x updated in place: it starts as x and is
    # read from x's buffer (before, a separate poisoned x_out came back unwritten).
    output = 'this->Output("x")'
    p = _variant(projects, tmp_path, "inplace_min",
                 ("op_host/inplace_min.cpp", output, 'this->Output("x_out")'))
    report = validate_project(p, p / "ref.py")
    assert report.ok, (report.runtime_errors, [c.message for c in report.cases])


def test_an_input_updated_in_place_with_no_opdef_output_is_read_back(
    projects: Path, tmp_path: Path
) -> None:
    # xllm-ops convert_kv_cache_format: the OpDef declares inputs only and the kernel updates
    # one of them; the reference's mutated argument is compared with that input after the launch
    # (before: "has no OpDef output to compare with").
    output = (
        '        this->Output("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT})'
        ".Format({ge::FORMAT_ND});\n"
        "        this->SetInferShape(ge::InferShape).SetInferShapeRange(ge::InferShapeRange);\n"
    )
    p = _variant(projects, tmp_path, "inplace_min", ("op_host/inplace_min.cpp", output, ""),
                 ("op_kernel/inplace_min.cpp", "GM_ADDR x_ref, ", ""))
    report = validate_project(p, p / "ref.py")
    assert report.ok, (report.runtime_errors, [c.message for c in report.cases])
    # The comparison is real: a kernel that never writes x back fails it.
    kernel = p / "op_kernel/inplace_min.cpp"
    kernel.write_text(kernel.read_text().replace("DataCopy(xGm[done], xl, n);", ""))
    report = validate_project(p, p / "ref.py")
    assert not report.ok and report.cases[0].mismatches > 0, report.cases


def test_matmul_api_kernel_without_kernel_type_runs_as_mix_1_2(projects: Path) -> None:
    # blockDim 1 (cube cores), tiling split over 2 vector cores: both AIVs must run, or the
    # second half of C is never written.
    p = projects / "matmul_mix"
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, (report.runtime_errors, report.cases)


_AIC_OWN_MATMUL_NZ = """#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace AscendC;

// C = A x B, B stored NZ ([N / 16][K][16] halves): the AIC runs the Matmul object itself (no
// REGIST_MATMUL_OBJ) and tells its AIVs through a mode-2 cross-core flag; no kernel type.
extern "C" __global__ __aicore__ void matmul_mix(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR workspace,
                                                 GM_ADDR tiling) {
    GET_TILING_DATA(td, tiling);
    const TCubeTiling& t = td.cube;
    TPipe pipe;
    matmul::MatmulImpl<MatmulType<TPosition::GM, CubeFormat::ND, half>,
                       MatmulType<TPosition::GM, CubeFormat::NZ, half>,
                       MatmulType<TPosition::GM, CubeFormat::ND, float>,
                       MatmulType<TPosition::GM, CubeFormat::ND, float>, CFG_MDL>
        mm;
    if ASCEND_IS_AIC {
        mm.SetSubBlockIdx(0);
        mm.Init(&t, &pipe);
        GlobalTensor<half> aGm, bGm;
        GlobalTensor<float> cGm;
        aGm.SetGlobalBuffer((__gm__ half*)a, t.M * t.Ka);
        bGm.SetGlobalBuffer((__gm__ half*)b, t.Kb * t.N);
        cGm.SetGlobalBuffer((__gm__ float*)c, t.M * t.N);
        mm.SetOrgShape(t.M, t.N, t.Ka);
        mm.SetSingleShape(t.M, t.N, t.Ka);
        mm.SetTensorA(aGm);
        mm.SetTensorB(bGm);
        mm.IterateAll(cGm);
        CrossCoreSetFlag<2, PIPE_FIX>(5);
    }
    if ASCEND_IS_AIV {
        CrossCoreWaitFlag(5);
    }
}
"""


def test_aic_running_its_own_matmul_on_an_nz_operand_for_flagged_aivs_runs_as_mix(
    projects: Path, tmp_path: Path
) -> None:
    """Ascend/samples 6_group_matmul: no kernel type, the AIC runs its Matmul object itself and
    raises a mode-2 cross-core flag its AIVs wait for, and the weight is NZ. Before, the kernel
    ran on AIVs only (every AIV waited on a flag no core would raise), and the Matmul read every
    operand as ND."""
    p = _variant(projects, tmp_path, "matmul_mix")
    (p / "op_kernel" / "matmul_mix.cpp").write_text(_AIC_OWN_MATMUL_NZ)
    (p / "ref.py").write_text(
        "import torch\n\n\n"
        "class Model(torch.nn.Module):\n"
        "    def forward(self, a, b_nz):\n"
        "        b = b_nz.reshape(2, 32, 16).permute(1, 0, 2).reshape(32, 32)\n"
        "        return torch.matmul(a.float(), b.float())\n\n\n"
        "def get_inputs():\n"
        "    b = torch.randint(-4, 5, (32, 32)).half()\n"
        "    b_nz = b.reshape(32, 2, 16).permute(1, 0, 2).contiguous().reshape(32, 32)\n"
        "    return [torch.randint(-4, 5, (64, 32)).half(), b_nz]\n"
    )
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, (report.runtime_errors, report.cases)


def test_matmul_sample_style_with_fixed_base_blocks_gets_whole_blocks_per_core(
    projects: Path,
) -> None:
    """The newer Ascend/samples matmul style: a plain tiling struct shared through
    `op_kernel/<op>_tiling.h` naming `AscendC::tiling::TCubeTiling`, filled through
    `GetTilingData<T>()` (no SetDataSize), a kernel that says only `using namespace matmul;` and
    walks blocks with `Iterate<true>()` / `GetTensorC<true>()`, copying whole baseN-wide blocks
    out. With baseN fixed, the library's split must give each core whole base blocks: a 48-wide
    core block with baseN 32 would make neighbouring cores overwrite each other."""
    p = projects / "matmul_blocks"
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, (report.runtime_errors, report.cases)


def test_matmul_single_shape_of_zero_computes_one_base_block(projects: Path) -> None:
    """Ascend/samples HighPerfMatMul and MatmulLeakyReluCustom (verified on the NPU) set the
    single-core shape to 0 x 0 x K from members they never fill in, then run one Iterate() and
    GetTensorC and read a whole baseM x baseN block back. The reference gives 0 no meaning; the
    NPU computes one base block, so the emulator does, with a param-range warning at the call.
    Before, Iterate() found nothing to compute and GetTensorC stopped the run ("without a
    block")."""
    p = projects / "matmul_base_block_walk"
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, (report.runtime_errors, report.cases)
    kernel = p / "op_kernel" / "matmul_base_block_walk.cpp"
    [warning] = [w for w in report.warnings if w.code == "param-range"]
    assert warning.line == _line_of(kernel, "mm.SetSingleShape("), warning
    assert "M and N of 0" in warning.message, warning
    assert "baseM = 32, baseN = 64" in warning.message, warning


def test_matmul_declared_through_matmul_impl_with_an_mdl_config_and_callbacks_runs(
    projects: Path, tmp_path: Path
) -> None:
    # #8: Ascend/samples' high-performance matmul declares `MatmulImpl<..., GetMDLConfig(...),
    # MatmulCallBackFunc<nullptr, nullptr, nullptr>>` and calls SetSubBlockIdx and SetHF32;
    # before, none of these names existed.
    old = (
        "    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, "
        "MatmulType<TPosition::GM, CubeFormat::ND, half>,\n"
        "           MatmulType<TPosition::VECIN, CubeFormat::ND, float>>\n"
        "        mm;\n"
    )
    new = (
        "    constexpr static MatmulConfig MDL =\n"
        "        GetMDLConfig(false, false, 0, false, false, false, true);\n"
        "    static_assert(MDL.doMultiDataLoad && !MDL.doNorm && MDL.enUnitFlag);\n"
        "    MatmulImpl<MatmulType<TPosition::GM, CubeFormat::ND, half>, "
        "MatmulType<TPosition::GM, CubeFormat::ND, half>,\n"
        "               MatmulType<TPosition::VECIN, CubeFormat::ND, float>,\n"
        "               MatmulType<TPosition::GM, CubeFormat::ND, float>, MDL,\n"
        "               MatmulCallBackFunc<nullptr, nullptr, nullptr>>\n"
        "        mm;\n"
        "    mm.SetSubBlockIdx(0);\n"
        "    mm.SetHF32(false, 0);\n"
    )
    [kernel] = (projects / "matmul_blocks" / "op_kernel").glob("*.cpp")
    p = _variant(projects, tmp_path, "matmul_blocks", (f"op_kernel/{kernel.name}", old, new))
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, (report.runtime_errors, report.cases)


def test_matmul_spellings_of_recsdk_kernels_build(projects: Path, tmp_path: Path) -> None:
    # #8, RecSDK in_linear_silu and disentangle_attention: MatmulType's seventh parameter
    # (SRCPOS), SetUserDefInfo, lib/matrix/matmul/matmul.h, a KERNEL_TASK_TYPE_DEFAULT call
    # without its `;` before REGIST_MATMUL_OBJ; host EnableBias and DataType::DT_BFLOAT16.
    # Before, each was a compile error.
    [kernel] = (projects / "matmul_blocks" / "op_kernel").glob("*.cpp")
    rel = f"op_kernel/{kernel.name}"
    host = "op_host/matmul_blocks.cpp"
    p = _variant(
        projects, tmp_path, "matmul_blocks",
        (rel, '#include "lib/matmul_intf.h"', '#include "lib/matrix/matmul/matmul.h"'),
        (rel, "MatmulType<TPosition::VECIN, CubeFormat::ND, float>>",
         "MatmulType<TPosition::VECIN, CubeFormat::ND, float, false, LayoutMode::NONE, false,\n"
         "                      TPosition::GM>>"),
        (rel, "    REGIST_MATMUL_OBJ(&pipe,",
         "    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2)\n    REGIST_MATMUL_OBJ(&pipe,"),
        (rel, "    mm.SetTensorA(aGm);", "    mm.SetUserDefInfo(0);\n    mm.SetTensorA(aGm);"),
        (host, "    mm.SetBias(false);",
         "    mm.EnableBias(false);\n"
         "    static_assert(matmul_tiling::DataType::DT_BFLOAT16 == ge::DT_BF16);"),
    )
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, (report.runtime_errors, report.cases)


def test_kernel_tiling_header_shadowing_the_host_one_is_the_kernel_s(projects: Path) -> None:
    """op_kernel/ holds a plain struct under the same file name and include guard as op_host/'s
    BEGIN_TILING_DATA_DEF header (Ascend/samples WholeReduceSumCustom): the kernel build sees
    only its own, as CANN's does, and still has GET_TILING_DATA_WITH_STRUCT; GM tensors take
    an L2 cache hint."""
    p = projects / "kernel_side_tiling"
    report = validate_project(p, p / "ref.py")
    assert report.ok, ([d.message for d in report.compile.diagnostics], report.cases)


def test_tiling_sink_registration_compiles_beside_the_host_tiling(
    projects: Path, tmp_path: Path
) -> None:
    """Tiling sink (Ascend/samples 17_tiling_sink): the TilingFunc is also registered to run on
    the device with DEVICE_IMPL_OP_OPTILING(op).Tiling(f), from
    register/device_op_impl_registry.h."""
    p = tmp_path / "shared_tiling"
    shutil.copytree(projects / "shared_tiling", p)
    host = p / "op_host" / "shared_tiling.cpp"
    host.write_text(host.read_text()
                    .replace('#include "register/op_def_registry.h"',
                             '#include "register/op_def_registry.h"\n'
                             '#include "register/device_op_impl_registry.h"')
                    .replace("}  // namespace optiling",
                             "DEVICE_IMPL_OP_OPTILING(SharedTiling).Tiling(TilingFunc);\n"
                             "}  // namespace optiling"))
    report = validate_project(p, p / "ref.py")
    assert report.ok, ([d.message for d in report.compile.diagnostics], report.cases)


def test_kernel_header_named_like_the_tiling_header_with_its_own_guard_adds_to_it(
    projects: Path, tmp_path: Path
) -> None:
    """DrivingSDK scatter_max keeps its kernel class in op_kernel/scatter_max_v1.h beside the
    host op_host/scatter_max_v1.h tiling header: other include guards, so the kernel build
    sees both (only a header under the same guard replaces the host one)."""
    p = tmp_path / "kernel_side_tiling"
    shutil.copytree(projects / "kernel_side_tiling", p)
    (p / "op_kernel" / "kernel_side_tiling_tiling.h").write_text(
        "#ifndef KERNEL_SIDE_SCALE_H\n#define KERNEL_SIDE_SCALE_H\n"
        "inline float scaled(float v, float s) { return v * s; }\n#endif\n")
    kernel = p / "op_kernel" / "kernel_side_tiling.cpp"
    kernel.write_text(kernel.read_text()
                      .replace("GET_TILING_DATA_WITH_STRUCT(KernelSideTilingData, t, tiling);",
                               "GET_TILING_DATA(t, tiling);")
                      .replace("xg.GetValue(i) * t.scale", "scaled(xg.GetValue(i), t.scale)"))
    report = validate_project(p, p / "ref.py")
    assert report.ok, ([d.message for d in report.compile.diagnostics], report.cases)


def test_tiling_struct_kept_beside_the_kernel_reaches_host_and_kernel(projects: Path) -> None:
    """The newer sample layout: the one tiling struct lives in op_kernel/, the host includes it
    by bare name (op_kernel/ is on its include path) and fills it through GetTilingData<T>(),
    and the kernel names it with REGISTER_TILING_DEFAULT with no op_host/ tiling header."""
    p = projects / "shared_tiling"
    report = validate_project(p, p / "ref.py")
    assert report.ok, ([d.message for d in report.compile.diagnostics], report.cases)


def test_tiling_template_kernel_runs_the_instantiation_its_key_names(
    projects: Path, tmp_path: Path
) -> None:
    """CANN's tiling templates: the entry is `template <int D_T, int FACTOR, int NEG>`, the host
    sets `GET_TPL_TILING_KEY(...)`, and ASCENDC_TPL_SEL lists what is built (Ascend/samples
    AddTemplateCustom). Values the selection leaves out are a tiling-mismatch, not a guess."""
    p = projects / "tpl_scale"
    assert load_project(p).entry.template_params == ["D_T", "FACTOR", "NEG"]
    report = validate_project(p, p / "ref.py")
    assert report.ok, ([d.message for d in report.compile.diagnostics], report.cases)
    unbuilt = tmp_path / "tpl_scale"
    shutil.copytree(p, unbuilt)
    ref = unbuilt / "ref.py"
    ref.write_text(ref.read_text().replace("return [3, True]", "return [7, True]"))
    report = validate_project(unbuilt, ref)
    assert not report.ok
    assert any(e.code == "tiling-mismatch" and "ASCENDC_TPL_SEL" in e.message
               for e in report.runtime_errors), report.runtime_errors


def test_tiling_template_combinations_follow_the_declared_modes() -> None:
    text = """
    ASCENDC_TPL_ARGS_DECL(Op, ASCENDC_TPL_DTYPE_DECL(T, A, B),
        ASCENDC_TPL_UINT_DECL(N, ASCENDC_TPL_8_BW, ASCENDC_TPL_UI_MIX, 2, 0, 1, 4, 5, 9),
        ASCENDC_TPL_BOOL_DECL(S, 0, 1));
    ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_DTYPE_SEL(T, A),
                                         ASCENDC_TPL_UINT_SEL(N, ASCENDC_TPL_UI_LIST, 9),
                                         ASCENDC_TPL_BOOL_SEL(S, 1)),
                    ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_DTYPE_SEL(T, B), ASCENDC_TPL_BOOL_SEL(S, 0)));
    """
    combos = tpl.combinations([text], ["T", "N", "S"])
    assert combos == [("A", "9", "1")] + [("B", n, "0") for n in ["0", "1", "4", "5", "9"]]
    with pytest.raises(tpl.TemplateError, match="declares no M"):
        tpl.combinations([text], ["T", "M"])


def test_launch_sample_takes_its_block_count_from_the_launch_and_may_be_named_fmax(
    projects: Path,
) -> None:
    p = projects / "launch_fmax"
    assert load_project(p).block_dim == 4  # ICPU_RUN_KF(fmax, blockDim, ...) in main.cpp
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, (report.runtime_errors, report.cases)


def test_macro_made_entry_with_by_value_parameters_binds_and_runs_on_its_launch_blocks(
    projects: Path, tmp_path: Path
) -> None:
    """vllm-ascend's kernel files: `DECLARE(half)` expands an entry `scale_rows_half` that takes
    its sizes and scale by value; the values come from `[binding] attrs`, blockDim from the host
    launch's expression of them (4 blocks of 2 rows for 7 rows), and the float output's type from
    `using Y_T = float`. Without the table, the error names the parameters and the table."""
    p = projects / "launch_scalars"
    project = load_project(p)
    assert project.entry.name == "scale_rows_half"
    assert project.entry.scalars == {"rows": "uint32_t", "rowsPerCore": "uint32_t",
                                     "cols": "uint32_t", "scale": "float"}
    assert block_dim_of(project, {"rows": 7, "rowsPerCore": 2}) == 4
    report = validate_project(p, p / "ref.py")
    assert report.ok, ([d.message for d in report.compile.diagnostics], report.cases)
    assert report.counters["block_dim"] == 4
    bare = tmp_path / "launch_scalars"
    shutil.copytree(p, bare)
    (bare / "kernelgen.toml").unlink()
    with pytest.raises(ValidationInputError) as err:
        validate_project(bare, bare / "ref.py")
    assert "rows (uint32_t), rowsPerCore (uint32_t), cols (uint32_t), scale (float) by value" in (
        str(err.value))
    assert "attrs = {rows = ?, rowsPerCore = ?, cols = ?, scale = ?}" in str(err.value)


TORCH_GLUE = """namespace glue {
at::Tensor scale_rows(const at::Tensor& x, int64_t rowsPerCore, double scale)
{
    auto stream = c10_npu::getCurrentNPUStream().stream(false);
    at::Tensor y = at::empty_like(x);
    uint32_t rows = x.size(0), cols = x.size(1);
    uint32_t blockDim = (rows + rowsPerCore - 1) / rowsPerCore;
    scale_rows_half<<<blockDim, nullptr, stream>>>(x.data_ptr(), y.data_ptr(), rows, rowsPerCore,
                                                   cols, static_cast<float>(scale));
    return y;
}
}  // namespace glue

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("scale_rows", &glue::scale_rows, ""); }
"""


def test_kernel_file_carrying_its_torch_extension_builds_without_it(
    projects: Path, tmp_path: Path
) -> None:
    """op-plugin's cpp_extension `.asc` samples: the kernel file also holds the at::Tensor
    function that launches it and its pybind11 module, with torch's headers (not part of a
    kernel build): before, "torch/extension.h: No such file or directory". The glue is left
    out of the build; the launch's block count still comes from it."""
    source = "scale_rows.cpp"
    text = (projects / "launch_scalars" / source).read_text()
    launcher = text[text.index("void scale_rows_launch("):]
    p = _variant(
        projects, tmp_path, "launch_scalars",
        (source, '#include "kernel_operator.h"',
         '#include <torch/extension.h>\n#include "torch_npu/csrc/core/npu/NPUStream.h"\n'
         '#include "kernel_operator.h"'),
        (source, launcher, TORCH_GLUE),
    )
    report = validate_project(p, p / "ref.py")
    assert report.ok, ([d.message for d in report.compile.diagnostics], report.cases)
    assert report.counters["block_dim"] == 4


NON_FINITE_KERNEL = """#include "kernel_operator.h"
extern "C" __global__ __aicore__ void floor_at(GM_ADDR x, GM_ADDR y, float lo, float unset)
{
    AscendC::GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, 64);
    yg.SetGlobalBuffer((__gm__ float*)y, 64);
    const float twice = unset != unset ? 2.0f : 1.0f;
    for (int i = 0; i < 64; ++i) {
        const float v = xg.GetValue(i);
        yg.SetValue(i, (v > lo ? v : lo) * twice);
    }
}
// kernelgen: block_dim=1
"""


def test_by_value_parameters_bound_to_inf_and_nan_reach_the_kernel(tmp_path: Path) -> None:
    """A floor of -inf and a NaN "unset" marker are common by-value arguments; C++ has no
    literal for them, so the wrapper spells them through numeric_limits."""
    (tmp_path / "k.cpp").write_text(NON_FINITE_KERNEL)
    (tmp_path / "ref.py").write_text(TWICE_REF)
    (tmp_path / "kernelgen.toml").write_text("[binding]\nattrs = {lo = -inf, unset = nan}\n")
    report = validate_project(tmp_path, tmp_path / "ref.py")
    assert report.ok, ([d.message for d in report.compile.diagnostics], report.cases)


MASKED_SUM_KERNEL = """#include "kernel_operator.h"
extern "C" __global__ __aicore__ void masked_sum(GM_ADDR x, GM_ADDR y, int32_t n, int32_t weighted)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64 * sizeof(float));
    AscendC::GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, 64);
    yg.SetGlobalBuffer((__gm__ float*)y, 1);
    AscendC::LocalTensor<float> t = buf.Get<float>();
    AscendC::DataCopy(t, xg, 64);  // whole 32-byte blocks: lanes n..63 are the padding
    float acc = 0.0f;
    for (int i = 0; i < 64; ++i) acc += t.GetValue(i) * (weighted && i >= n ? 0.0f : 1.0f);
    yg.SetValue(0, acc);
}
// kernelgen: block_dim=1
"""

SUM_REF = """import torch
class Model(torch.nn.Module):
    def forward(self, x):
        return x.sum().reshape(1)
def get_inputs():
    return [torch.randn(60)]
def get_init_inputs():
    return []
"""


@pytest.mark.parametrize(("weighted", "passes"), [(1, True), (0, False)])
def test_lanes_read_past_an_input_count_only_when_the_kernel_uses_them(
    tmp_path: Path, weighted: int, passes: bool
) -> None:
    """Bilinear kernels (DrivingSDK roi_align_rotated_grad) read whole 32-byte blocks and scale
    the lanes past the tensor by a zero weight: the NPU's leftover values there are finite, so
    the result is right; the padding's poison is finite too, and huge, so a kernel that sums
    those lanes instead is far off."""
    (tmp_path / "k.cpp").write_text(MASKED_SUM_KERNEL)
    (tmp_path / "ref.py").write_text(SUM_REF)
    (tmp_path / "kernelgen.toml").write_text(
        f"[binding]\nattrs = {{n = 60, weighted = {weighted}}}\n"
    )
    report = validate_project(tmp_path, tmp_path / "ref.py")
    assert report.ok is passes, ([d.message for d in report.compile.diagnostics], report.cases)
    if not passes:
        assert report.compile.ok and "mismatch" in str(report.cases).lower(), report.cases


VECTOR_PASS_KERNEL = """#include "ascendc/basic_api/kernel_operator.h"
using namespace AscendC;
#ifdef __DAV_C220_VEC__
extern "C" __global__ __aicore__ void twice(GM_ADDR x, GM_ADDR y)
{
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, 64);
    yg.SetGlobalBuffer((__gm__ float*)y, 64);
    for (int i = 0; i < 64; ++i) yg.SetValue(i, xg.GetValue(i) * 2.0f);
}
#endif
"""

TWICE_REF = """import torch
class Model(torch.nn.Module):
    def forward(self, x):
        return x * 2
def get_inputs():
    return [torch.randn(64)]
def get_init_inputs():
    return []
"""


FILL_KERNEL = """#include "kernel_operator.h"
extern "C" __global__ __aicore__ void plus_one(GM_ADDR x, GM_ADDR y)
{
    AscendC::GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, 64);
    yg.SetGlobalBuffer((__gm__ float*)y, 64);
    AscendC::Fill<float>(yg, 64, 1.0f);
    for (int i = 0; i < 64; ++i) yg.SetValue(i, yg.GetValue(i) + xg.GetValue(i));
}
// kernelgen: block_dim=1
"""

PLUS_ONE_REF = TWICE_REF.replace("x * 2", "x + 1")


def test_fill_is_init_global_memory_under_its_other_name(tmp_path: Path) -> None:
    """`AscendC::Fill(gm, size, value)` (the reference's other name for InitGlobalMemory, used
    by Ascend/samples ReduceMin) fills GM."""
    (tmp_path / "k.cpp").write_text(FILL_KERNEL)
    (tmp_path / "ref.py").write_text(PLUS_ONE_REF)
    report = validate_project(tmp_path, tmp_path / "ref.py")
    assert report.ok, ([d.message for d in report.compile.diagnostics], report.cases)


RELAY_KERNEL = """#include "kernel_operator.h"
struct RelayTiling { uint32_t n; };

template <class T>
__aicore__ inline void relay_flags() {
    int32_t id = static_cast<int32_t>(GetTPipePtr()->FetchEventID(AscendC::HardEvent::V_MTE3));
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(id);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(id);
}

extern "C" __global__ __aicore__ void relay(GM_ADDR x, GM_ADDR y, GM_ADDR sync)
{
    REGISTER_TILING_DEFAULT(RelayTiling);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 32);
    AscendC::LocalTensor<int32_t> ub = buf.Get<int32_t>();
    AscendC::GlobalTensor<float> xg, yg;
    AscendC::GlobalTensor<int32_t> sg;
    xg.SetGlobalBuffer((__gm__ float*)x, 64);
    yg.SetGlobalBuffer((__gm__ float*)y, 128);
    sg.SetGlobalBuffer((__gm__ int32_t*)sync, 32);
    relay_flags<float>();
    if (AscendC::GetBlockIdx() == 0) {
        for (int i = 0; i < 64; ++i) yg.SetValue(i, xg.GetValue(i) * 2.0f);
        AscendC::IBSet(sg, ub, 0, 0);
    } else {
        AscendC::IBWait(sg, ub, 0, 0);
        for (int i = 0; i < 64; ++i) yg.SetValue(64 + i, yg.GetValue(i) + 1.0f);
    }
}
// kernelgen: block_dim=2
"""

RELAY_REF = """import torch
class Model(torch.nn.Module):
    def forward(self, x, sync):
        return torch.cat([x * 2, x * 2 + 1])
def get_inputs():
    return [torch.randn(64), torch.zeros(32, dtype=torch.int32)]
def get_init_inputs():
    return []
"""


def test_ib_wait_orders_a_core_after_another_core_s_ib_set(tmp_path: Path) -> None:
    """Block 1 reads what block 0 wrote once block 0's IBSet is seen (sgl-kernel-npu
    assign_cache_op chains its cores so); without the IBWait the read races: it reads poison,
    with a gm-race warning, and the result it feeds is wrong. The kernel
    also calls GetTPipePtr() unqualified in a template and REGISTER_TILING_DEFAULT in a
    kernel-launch build, as that project does."""
    (tmp_path / "k.cpp").write_text(RELAY_KERNEL)
    (tmp_path / "ref.py").write_text(RELAY_REF)
    report = validate_project(tmp_path, tmp_path / "ref.py", trials=2)
    assert report.ok, ([d.message for d in report.compile.diagnostics], report.cases)
    (tmp_path / "k.cpp").write_text(RELAY_KERNEL.replace("AscendC::IBWait(sg, ub, 0, 0);", ""))
    report = validate_project(tmp_path, tmp_path / "ref.py")
    assert not report.ok and report.cases[0].mismatches > 0, report
    assert any(n.startswith("emulator warning [gm-race]:") for n in report.notes), report.notes


STATIC_ADDRESS_KERNEL = """#include "kernel_operator.h"
extern "C" __global__ __aicore__ void add_at(GM_ADDR x, GM_ADDR y, GM_ADDR z)
{
    AscendC::InitSocState();
    AscendC::LocalTensor<float> a(AscendC::TPosition::VECCALC, 0, 256);
    AscendC::LocalTensor<float> b(AscendC::TPosition::VECCALC, 1024, 256);
    AscendC::GlobalTensor<float> xg, yg, zg;
    xg.SetGlobalBuffer((__gm__ float*)x + 256 * AscendC::GetBlockIdx(), 256);
    yg.SetGlobalBuffer((__gm__ float*)y + 256 * AscendC::GetBlockIdx(), 256);
    zg.SetGlobalBuffer((__gm__ float*)z + 256 * AscendC::GetBlockIdx(), 256);
    AscendC::DataCopy(a, xg, 256);
    AscendC::DataCopy(b, yg, 256);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::Add(a, a, b, 256);
    uint32_t shape[] = {16, 16};
    AscendC::ShapeInfo info(2, shape);
    AscendC::DumpTensor(a, 1, 8, info);
    AscendC::DumpAccChkPoint(a, 2, 8, 8);
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::DataCopy(zg, a, 256);
}
// kernelgen: block_dim=2
"""

ADD_REF = """import torch
class Model(torch.nn.Module):
    def forward(self, x, y):
        return x + y
def get_inputs():
    return [torch.randn(512), torch.randn(512)]
def get_init_inputs():
    return []
"""


def test_static_tensor_style_tiles_made_at_an_address(tmp_path: Path) -> None:
    """Ascend/samples' static-tensor programming: `InitSocState()` at the entry and tiles made
    with `LocalTensor<T>(pos, addr, size)` at UB addresses the kernel picks (no TPipe), dumped
    with a ShapeInfo; an address past UB is ub-overflow."""
    (tmp_path / "k.cpp").write_text(STATIC_ADDRESS_KERNEL)
    (tmp_path / "ref.py").write_text(ADD_REF)
    report = validate_project(tmp_path, tmp_path / "ref.py")
    assert report.ok, ([d.message for d in report.compile.diagnostics], report.cases)
    (tmp_path / "k.cpp").write_text(
        STATIC_ADDRESS_KERNEL.replace("VECCALC, 1024, 256", "VECCALC, 196608, 256"))
    report = validate_project(tmp_path, tmp_path / "ref.py")
    assert "ub-overflow" in [e.code for e in report.runtime_errors], report


def test_op_picks_the_kernel_of_a_folder_of_kernel_files(tmp_path: Path) -> None:
    """Samples keep variants side by side (add_custom_v1..v4.cpp): `op` names the file or entry;
    an `op` naming nothing lists what there is."""
    (tmp_path / "k_v1.cpp").write_text(TWICE_KERNEL_FOR_OP.format(name="twice_v1"))
    (tmp_path / "k_v2.cpp").write_text(TWICE_KERNEL_FOR_OP.format(name="twice_v2"))
    (tmp_path / "kernelgen.toml").write_text('op = "twice_v2"\n')
    assert load_project(tmp_path).entry.name == "twice_v2"
    (tmp_path / "kernelgen.toml").write_text('op = "k_v1"\n')
    assert load_project(tmp_path).entry.name == "twice_v1"
    (tmp_path / "kernelgen.toml").write_text('op = "k_v9"\n')
    with pytest.raises(ProjectError, match=r"k_v1\.cpp \(twice_v1\)"):
        load_project(tmp_path)


def test_kernel_launched_by_a_main_cpp_beside_op_host_and_op_kernel(tmp_path: Path) -> None:
    """A kernel-launch sample that keeps its tiling header in op_host/ and its kernel in
    op_kernel/ but launches from main.cpp (Ascend/samples TBufPool) has no OpDef to find."""
    (tmp_path / "op_kernel").mkdir()
    (tmp_path / "op_host").mkdir()
    (tmp_path / "op_kernel" / "twice.cpp").write_text(TWICE_KERNEL_FOR_OP.format(name="twice"))
    (tmp_path / "op_host" / "twice_tiling.h").write_text("struct TwiceTiling { int n; };\n")
    (tmp_path / "main.cpp").write_text(
        "int main() { ACLRT_LAUNCH_KERNEL(twice)(1, nullptr, nullptr, nullptr); }\n")
    project = load_project(tmp_path)
    assert (project.layout, project.entry.name) == ("kernel_launch", "twice")


TWICE_KERNEL_FOR_OP = """#include "kernel_operator.h"
extern "C" __global__ __aicore__ void {name}(GM_ADDR x, GM_ADDR y)
{{
    AscendC::GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, 64);
    yg.SetGlobalBuffer((__gm__ float*)y, 64);
    for (int i = 0; i < 64; ++i) yg.SetValue(i, xg.GetValue(i) * 2.0f);
}}
"""


STRUCT_BY_VALUE_KERNEL = """#include <cstdint>
#include "acl/acl.h"
#include "kernel_operator.h"
struct ScaleTiling {
    uint32_t n;
    float scale;
};
extern "C" __global__ __aicore__ void scale_by(GM_ADDR x, GM_ADDR y, ScaleTiling tiling)
{
    AscendC::GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, tiling.n);
    yg.SetGlobalBuffer((__gm__ float*)y, tiling.n);
    for (uint32_t i = 0; i < tiling.n; ++i) yg.SetValue(i, xg.GetValue(i) * tiling.scale);
}
int32_t main(int32_t argc, char* argv[])
{
    aclInit(nullptr);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    ScaleTiling tiling{64, 2.5f};
    scale_by<<<1, nullptr, stream>>>(nullptr, nullptr, tiling);
    aclrtSynchronizeStream(stream);
    aclFinalize();
    return 0;
}
"""


def test_tiling_struct_passed_by_value_to_a_kernel_with_its_own_host_main(tmp_path: Path) -> None:
    """Kernel-launch samples (.asc files) keep main() and ACL runtime calls in the kernel's file
    and pass the tiling struct by value: the struct's field values come from `[binding] attrs`
    as a list in declaration order, and the file's main() is not the harness's."""
    (tmp_path / "k.cpp").write_text(STRUCT_BY_VALUE_KERNEL)
    (tmp_path / "ref.py").write_text(TWICE_REF.replace("x * 2", "x * 2.5"))
    (tmp_path / "kernelgen.toml").write_text("[binding]\nattrs = {tiling = [64, 2.5]}\n")
    report = validate_project(tmp_path, tmp_path / "ref.py")
    assert report.ok, ([d.message for d in report.compile.diagnostics], report.cases)


BUF_POOL_KERNEL = """#include "kernel_operator.h"
using namespace AscendC;
class PoolPhases {
  public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, TPipe* pipe) {
        xg.SetGlobalBuffer((__gm__ float*)x, 128);
        yg.SetGlobalBuffer((__gm__ float*)y, 128);
        zg.SetGlobalBuffer((__gm__ float*)z, 128);
        pipe->InitBufPool(whole, 2048);
        whole.InitBufPool(phase1, 1024);
        whole.InitBufPool(phase2, 1024, phase1);
    }
    __aicore__ inline void Run(uint32_t off, bool add, TBufPool<TPosition::VECCALC>& pool) {
        TQue<TPosition::VECIN, 1> inX, inY;
        TQue<TPosition::VECOUT, 1> out;
        pool.InitBuffer(inX, 1, 64 * sizeof(float));
        pool.InitBuffer(inY, 1, 64 * sizeof(float));
        pool.InitBuffer(out, 1, 64 * sizeof(float));
        LocalTensor<float> a = inX.AllocTensor<float>();
        LocalTensor<float> b = inY.AllocTensor<float>();
        DataCopy(a, xg[off], 64);
        DataCopy(b, yg[off], 64);
        inX.EnQue(a);
        inY.EnQue(b);
        a = inX.DeQue<float>();
        b = inY.DeQue<float>();
        LocalTensor<float> c = out.AllocTensor<float>();
        if (add) Add(c, a, b, 64); else Sub(c, a, b, 64);
        out.EnQue(c);
        inX.FreeTensor(a);
        inY.FreeTensor(b);
        c = out.DeQue<float>();
        DataCopy(zg[off], c, 64);
        out.FreeTensor(c);
        pool.Reset();
    }
    TBufPool<TPosition::VECCALC> whole, phase1, phase2;
    GlobalTensor<float> xg, yg, zg;
};
extern "C" __global__ __aicore__ void pool_phases(GM_ADDR x, GM_ADDR y, GM_ADDR z)
{
    TPipe pipe;
    PoolPhases op;
    op.Init(x, y, z, &pipe);
    op.Run(0, true, op.phase1);
    op.Run(64, false, op.phase2);
}
// kernelgen: block_dim=1
"""

POOL_REF = """import torch
class Model(torch.nn.Module):
    def forward(self, x, y):
        return torch.cat([x[:64] + y[:64], x[64:] - y[64:]])
def get_inputs():
    return [torch.randn(128), torch.randn(128)]
def get_init_inputs():
    return []
"""


def test_buf_pool_phases_reuse_one_region(tmp_path: Path) -> None:
    """TBufPool (Ascend/samples TBufPool): TPipe::InitBufPool carves a pool, a pool splits
    further, a second pool shares the first's region for a later phase, Reset() ends a phase;
    a pool's buffers beyond its length are ub-overflow."""
    (tmp_path / "k.cpp").write_text(BUF_POOL_KERNEL)
    (tmp_path / "ref.py").write_text(POOL_REF)
    report = validate_project(tmp_path, tmp_path / "ref.py")
    assert report.ok, ([d.message for d in report.compile.diagnostics], report.cases)
    (tmp_path / "k.cpp").write_text(BUF_POOL_KERNEL.replace("whole.InitBufPool(phase1, 1024)",
                                                            "whole.InitBufPool(phase1, 512)"))
    report = validate_project(tmp_path, tmp_path / "ref.py")
    assert "ub-overflow" in [e.code for e in report.runtime_errors], report


def test_vector_pass_kernel_under_the_basic_api_path_builds_on_910b(tmp_path: Path) -> None:
    """ms_custom_ops kernels include "ascendc/basic_api/kernel_operator.h" (newer CANN's path)
    and wrap a vector-only kernel in `#ifdef __DAV_C220_VEC__`, which the device compiler
    defines in its vector-core pass on 910B: the emulator's one build is that pass. A kernel
    that also tests `__DAV_C220_CUBE__` gets neither (its halves would need two builds)."""
    (tmp_path / "k.cpp").write_text(VECTOR_PASS_KERNEL)
    (tmp_path / "ref.py").write_text(TWICE_REF)
    report = validate_project(tmp_path, tmp_path / "ref.py", chip="ascend910b2")
    assert report.ok, ([d.message for d in report.compile.diagnostics], report.cases)
    assert compat.core_pass_flags(220, [VECTOR_PASS_KERNEL]) == ["-D__DAV_C220_VEC__"]
    both = VECTOR_PASS_KERNEL + "#ifdef __DAV_C220_CUBE__\n#endif\n"
    assert compat.core_pass_flags(220, [both]) == []
    assert compat.core_pass_flags(200, [VECTOR_PASS_KERNEL]) == []


STATIC_TENSOR_KERNEL = """#include "kernel_operator.h"
extern "C" __global__ __aicore__ void add_one(GM_ADDR x, GM_ADDR y)
{
    AscendC::LocalMemAllocator<AscendC::Hardware::UB> ub;
    AscendC::LocalTensor<float> a = ub.Alloc<float>(256);
    AscendC::LocalTensor<float> b = ub.Alloc<float, 256>();
    AscendC::GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x + 256 * AscendC::GetBlockIdx(), 256);
    yg.SetGlobalBuffer((__gm__ float*)y + 256 * AscendC::GetBlockIdx(), 256);
    AscendC::DataCopy(a, xg, 256);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::Adds(b, a, 1.0f, 256);
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::DataCopy(yg, b, 256);
}
// kernelgen: block_dim=4
"""

ADD_ONE_REF = """import torch
class Model(torch.nn.Module):
    def forward(self, x):
        return x + 1
def get_inputs():
    return [torch.randn(1024)]
def get_init_inputs():
    return []
"""


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (None, None),
        (("    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);\n", ""), "pipe-hazard"),
        (("ub.Alloc<float>(256)", "ub.Alloc<float>(65536)"), "ub-overflow"),
        (("    AscendC::LocalMemAllocator",
          "    AscendC::TPipe pipe;\n    AscendC::LocalMemAllocator"), "single-tpipe"),
    ],
)
def test_static_tensor_kernel_runs_on_local_mem_allocator_tiles(
    tmp_path: Path, change: tuple[str, str] | None, code: str | None
) -> None:
    """The static-tensor style (CANN 8.3+): LocalMemAllocator hands out UB tiles, no TPipe, the
    kernel orders its pipes with SetFlag/WaitFlag. A missing flag, tiles past UB, and an
    allocator beside a TPipe (the reference forbids mixing them) are the usual errors."""
    text = STATIC_TENSOR_KERNEL if change is None else STATIC_TENSOR_KERNEL.replace(*change)
    (tmp_path / "k.cpp").write_text(text)
    (tmp_path / "ref.py").write_text(ADD_ONE_REF)
    report = validate_project(tmp_path, tmp_path / "ref.py", chip="ascend910b2")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    if code is None:
        assert report.ok, (report.runtime_errors, report.cases)
    else:
        assert not report.ok and report.runtime_errors[0].code == code, report.runtime_errors


def test_undocumented_cann_helpers_build_run_and_are_noted(projects: Path, tmp_path: Path) -> None:
    # DrivingSDK kernels call DivCeil, AlignUp, two-argument Ceil and likely()/unlikely(), early
    # samples ParamOffset: CANN's kernel_operator.h brings them in from internal headers the API
    # reference does not document. They build on CANN, so the emulator provides them; validate
    # passes (the values below decide the copy sizes, so wrong semantics fail the comparison)
    # and notes each use with the local definition that removes the dependency.
    p = tmp_path / "launch_fmax"
    shutil.copytree(projects / "launch_fmax", p)
    kernel = p / "fmax.cpp"
    kernel.write_text(
        kernel.read_text()
        .replace(
            "    TPipe pipe;",
            "    const uint32_t len = AlignUp(BLOCK_LENGTH - 5, 8) /\n"
            "        DivCeil(TOTAL_LENGTH - 1, 512) * Ceil(BLOCK_LENGTH - 1, 128u);\n"
            "    if (unlikely(len != BLOCK_LENGTH) || !likely(len > 0)) return;\n"
            "    TPipe pipe;",
        )
        .replace(
            "(__gm__ float*)x + BLOCK_LENGTH * GetBlockIdx(),",
            "(__gm__ float*)ParamOffset<float>(x, BLOCK_LENGTH),",
        )
    )
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, (report.runtime_errors, report.cases)
    noted = {}
    for note in report.notes:
        if note.startswith("lint warning [vendor-internal]: "):
            where, message = note.removeprefix("lint warning [vendor-internal]: ").split(": ", 1)
            noted.setdefault(message.split(" is not in")[0], []).append(where)
    assert set(noted) == {"AlignUp", "DivCeil", "Ceil on scalars", "unlikely", "likely",
                          "ParamOffset"}, report.notes
    assert noted["DivCeil"] == [f"fmax.cpp:{_line_of(kernel, 'DivCeil(')}"]
    assert noted["ParamOffset"] == [f"fmax.cpp:{_line_of(kernel, 'ParamOffset<')}"]
    [offset] = [n for n in report.notes if "ParamOffset is not in" in n]
    assert "early (CANN 6.x) releases" in offset and "GetBlockIdx()" in offset


def _fmax_scaled_by(projects: Path, tmp_path: Path, own: str, factor: str) -> Path:
    """launch_fmax whose result is multiplied by `factor` (1 when PI means what the test says),
    with `own` inserted after `using namespace AscendC;`."""
    p = tmp_path / "launch_fmax"
    shutil.copytree(projects / "launch_fmax", p)
    kernel = p / "fmax.cpp"
    kernel.write_text(
        kernel.read_text()
        .replace("using namespace AscendC;", f"using namespace AscendC;\n{own}")
        .replace(
            "    Max(xl, xl, yl, BLOCK_LENGTH);",
            f"    Max(xl, xl, yl, BLOCK_LENGTH);\n    Muls(xl, xl, {factor}, BLOCK_LENGTH);",
        )
    )
    return p


def test_undeclared_pi_is_supplied_after_that_compile_error_and_warned(
    projects: Path, tmp_path: Path
) -> None:
    # ds_cal_anchors_heading, ds_cylinder_query: CANN's headers declare PI, so kernels use it
    # undeclared. The build fails with "'PI' was not declared", is retried with the table's
    # float PI force-included, and says so; lint notes the use. PI / 3.14159265f is 1 exactly
    # for float(pi), so a wrong value fails the comparison.
    p = _fmax_scaled_by(projects, tmp_path, "", "PI / 3.14159265f")
    report = validate_project(p, p / "ref.py")
    assert report.ok, (report.compile.diagnostics, report.runtime_errors, report.cases)
    line = _line_of(p / "fmax.cpp", "Muls(")
    [built] = [d for d in report.compile.diagnostics if d.code == "vendor-internal"]
    assert (built.severity, built.file, built.line) == ("warning", "fmax.cpp", line)
    assert "The emulator supplied 'PI' to this build" in built.message
    assert any(n.startswith(f"lint warning [vendor-internal]: fmax.cpp:{line}: PI is not declared")
               for n in report.notes), report.notes


def test_undeclared_core_type_names_are_supplied_and_tell_a_vector_core(
    projects: Path, tmp_path: Path
) -> None:
    # xllm-ops layer_norm_fwd tests `g_coreType == AIV` undeclared (CANN's headers declare both):
    # supplied after the compile error, as PI is; on a vector core the factor is 1.
    p = _fmax_scaled_by(projects, tmp_path, "", "(g_coreType == AIV ? 1.0f : 0.0f)")
    report = validate_project(p, p / "ref.py")
    assert report.ok, (report.compile.diagnostics, report.runtime_errors, report.cases)
    supplied = {d.message.rsplit("The emulator supplied '", 1)[1].split("'")[0]
                for d in report.compile.diagnostics if d.code == "vendor-internal"}
    assert {"g_coreType", "AIV"} <= supplied, report.compile.diagnostics


@pytest.mark.parametrize("own", ["constexpr float PI = 1.0f;", "#define PI 1.0f"])
def test_a_projects_own_pi_is_used_and_not_warned(
    projects: Path, tmp_path: Path, own: str
) -> None:
    # The project's own PI (1 here, so the result only matches when its own is the one used)
    # builds without the retry and draws no vendor-internal warning.
    p = _fmax_scaled_by(projects, tmp_path, own, "PI")
    report = validate_project(p, p / "ref.py")
    assert report.ok, (report.compile.diagnostics, report.runtime_errors, report.cases)
    assert not [d for d in report.compile.diagnostics if d.code == "vendor-internal"]
    assert not [n for n in report.notes if "PI is not declared" in n], report.notes


def test_projects_own_vendor_named_helpers_are_its_own(projects: Path, tmp_path: Path) -> None:
    # A project that defines likely itself and its own DivCeil templates (in its namespace and at
    # global scope) builds next to the emulator's, runs, and nothing calls them CANN's. Its own
    # DivCeils compute something else than a ceil division, so the kernel only writes its output
    # (and passes) when its calls reach them: 257 / 64 = 4 and (8 + 8) / 8 = 2.
    p = tmp_path / "launch_fmax"
    shutil.copytree(projects / "launch_fmax", p)
    kernel = p / "fmax.cpp"
    kernel.write_text(
        kernel.read_text()
        .replace(
            "using namespace AscendC;",
            "using namespace AscendC;\n"
            "#define likely(x) __builtin_expect(!!(x), 1)\n"
            "template <typename T> __aicore__ inline T DivCeil(T a, T b) { return (a + b) / b; }"
            "\nnamespace tiles {\n"
            "template <typename T> __aicore__ inline T DivCeil(T a, T b) { return a / b; }"
            "\n"
            "__aicore__ inline uint32_t Count(uint32_t n) { return DivCeil(n, 64u); }\n"
            "}  // namespace tiles",
        )
        .replace(
            "    TPipe pipe;",
            "    if (!likely(tiles::Count(BLOCK_LENGTH + 1) * DivCeil(8u, 8u) == 8)) return;\n"
            "    TPipe pipe;",
        )
    )
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, (report.runtime_errors, report.cases)
    assert not [n for n in report.notes if "vendor-internal" in n], report.notes
    assert not [d for d in report.compile.diagnostics if "likely" in d.message]


def test_vendor_device_headers_build_and_cann_internal_ones_are_warned(
    projects: Path, tmp_path: Path
) -> None:
    # A DrivingSDK kernel includes "kernel_utils.h" (on the vendor's AscendC include path) and
    # uses nothing undocumented from it: it builds and runs. #8: msda.h includes
    # "kernel_tpipe_impl.h", an internal header CANN's kernel_operator.h already includes
    # (catalog/tables/vendor_headers.json); before, the build stopped at "No such file".
    p = tmp_path / "launch_fmax"
    shutil.copytree(projects / "launch_fmax", p)
    kernel = p / "fmax.cpp"
    kernel.write_text(
        kernel.read_text().replace(
            '#include "kernel_operator.h"',
            '#include "kernel_operator.h"\n#include "kernel_utils.h"\n'
            '#include "kernel_tpipe_impl.h"',
        )
    )
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, (report.runtime_errors, report.cases)
    [d] = [d for d in report.compile.diagnostics if d.code == "vendor-internal"]
    assert (d.file, d.line) == ("fmax.cpp", _line_of(kernel, "kernel_tpipe_impl.h"))
    assert d.severity.value == "warning" and '"kernel_tpipe_impl.h"' in d.message


def test_read_past_the_declared_global_buffer_size_passes_with_a_warning(
    projects: Path, tmp_path: Path
) -> None:
    # apply_rotary_pos_emb_ms sets a one-row SetGlobalBuffer size and reads every row through
    # it: the NPU does not check the size, so validation passes and the bench shows a warning.
    p = tmp_path / "launch_fmax"
    shutil.copytree(projects / "launch_fmax", p)
    kernel = p / "fmax.cpp"
    kernel.write_text(
        kernel.read_text().replace(
            "yGm.SetGlobalBuffer((__gm__ float*)y + BLOCK_LENGTH * GetBlockIdx(), BLOCK_LENGTH);",
            "yGm.SetGlobalBuffer((__gm__ float*)y + BLOCK_LENGTH * GetBlockIdx(), 8);",
        )
    )
    report = validate_project(p, p / "ref.py")
    assert report.ok, (report.runtime_errors, report.cases)
    line = _line_of(kernel, "DataCopy(yl, yGm")
    [note] = [n for n in report.notes if "[gm-extent]" in n]
    assert f"fmax.cpp:{line}: DataCopy(GM->UB) reads elements [0, 256)" in note
    row = compat_bench.run_project(p, "ascend910b2")
    assert row.passed and row.lint_errors == 0
    assert [w.split(":")[0] for w in row.warnings] == ["[gm-extent]"]


def _fmax_with_inputs(projects: Path, tmp_path: Path, n: int, out: str) -> Path:
    """launch_fmax (4 cores x 256 floats, always 1024 elements) with n-element inputs and
    `out` as the reference's result: the kernel reaches past shorter tensors."""
    p = tmp_path / "launch_fmax"
    shutil.copytree(projects / "launch_fmax", p)
    (p / "ref.py").write_text(
        "import torch\nimport torch.nn.functional as F\n\n\n"
        "class Model(torch.nn.Module):\n"
        f"    def forward(self, x, y):\n        return {out}\n\n\n"
        f"def get_inputs():\n    return [torch.randn({n}), torch.randn({n})]\n"
    )
    return p


def test_access_past_a_tensor_inside_its_allocation_block_runs_with_a_warning(
    projects: Path, tmp_path: Path
) -> None:
    # chips.json gm_allocation: torch_npu pads every allocation by 32 bytes and rounds it up to
    # 512. 1000 floats (4000 B) sit in a 4096-byte block, so the last core's 256-float copies
    # read x and y and write z up to byte 4096: that runs on the NPU (mkb_reduce_sum,
    # ds_group_points_grad), and the output's 1000 elements never see the padding.
    p = _fmax_with_inputs(projects, tmp_path, 1000, "torch.maximum(x, y)")
    report = validate_project(p, p / "ref.py")
    assert report.ok, (report.runtime_errors, report.cases)
    extent = [n for n in report.notes if "[gm-extent]" in n]
    line_x = _line_of(p / "fmax.cpp", "DataCopy(xl, xGm")
    line_z = _line_of(p / "fmax.cpp", "DataCopy(zGm")
    assert any(f"fmax.cpp:{line_x}: DataCopy(GM->UB) reads bytes [3072, 4096) of GM buffer 'x' "
               "of 4000 bytes: past the tensor but inside the 4096-byte block" in n
               for n in extent), extent
    assert any(f"fmax.cpp:{line_z}: DataCopy(UB->GM) writes bytes [3072, 4096) of GM buffer 'z'"
               in n and "belong to no tensor" in n for n in extent), extent


def test_values_read_from_an_inputs_padding_fail_the_comparison(
    projects: Path, tmp_path: Path
) -> None:
    # 992-float inputs, but a reference that wants all 1024 results (zero-padded): the kernel's
    # last 32 results come from the inputs' padding, which holds NaN, so the case fails instead
    # of passing on whatever (zeros) the emulator happened to allocate.
    p = _fmax_with_inputs(
        projects, tmp_path, 992, "torch.maximum(F.pad(x, (0, 32)), F.pad(y, (0, 32)))"
    )
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok and not report.runtime_errors, report.runtime_errors
    [case] = report.cases
    assert not case.ok and case.mismatches == 32 and case.first_mismatch == [992], case


def test_write_past_the_allocation_block_is_out_of_bounds(projects: Path, tmp_path: Path) -> None:
    # 512 floats (2048 B, plus the allocator's 32-byte pad) get a 2560-byte block: the third
    # core's reads land past x's and y's blocks inside their 2 MiB segments (warnings), but its
    # write reaches past z's block, over whatever the allocator put there: an error.
    p = _fmax_with_inputs(projects, tmp_path, 512, "torch.maximum(x, y)")
    report = validate_project(p, p / "ref.py")
    assert not report.ok
    [err] = report.runtime_errors
    assert (err.code, err.block, err.line) == (
        "gm-out-of-bounds",
        2,
        _line_of(p / "fmax.cpp", "DataCopy(zGm"),
    )
    assert "writes bytes [2048, 3072) of GM buffer 'z' of 2048 bytes, past the 2560-byte block" in (
        err.message
    )
    past = [n for n in report.notes if "[gm-read-past-allocation]" in n]
    assert any(
        "reads bytes [2048, 3072) of GM buffer 'x' of 2048 bytes, 512 bytes past the "
        "2560-byte block"
        in n
        and "2097152-byte segment" in n
        for n in past
    ), past


def test_read_past_the_block_whose_values_are_unused_passes_with_a_warning(
    projects: Path, tmp_path: Path
) -> None:
    # The kernel reads whole 256-float tiles but computes and writes only the 512 valid
    # elements (as ds_points_in_box_all reads a box row past the end for a tile of no points):
    # the reads past x's and y's 2560-byte blocks land in the allocator's segment, which does
    # not fault on the NPU, and nothing read there reaches z.
    p = _fmax_with_inputs(projects, tmp_path, 512, "torch.maximum(x, y)")
    kernel = p / "fmax.cpp"
    text = kernel.read_text()
    compute = "    Max(xl, xl, yl, BLOCK_LENGTH);"
    assert compute in text
    skip = "    if (BLOCK_LENGTH * int32_t(GetBlockIdx()) >= 512) return;  // no valid elements\n"
    kernel.write_text(text.replace(compute, skip + compute))
    report = validate_project(p, p / "ref.py")
    assert report.ok, (report.runtime_errors, report.cases)
    past = [n for n in report.notes if "[gm-read-past-allocation]" in n]
    line_x = _line_of(kernel, "DataCopy(xl, xGm")
    assert any(
        f"fmax.cpp:{line_x}: DataCopy(GM->UB) reads bytes [2048, 3072) of GM buffer 'x' of "
        "2048 bytes, 512 bytes past the 2560-byte block" in n
        for n in past
    ), past
    row = compat_bench.run_project(p, "ascend910b2")
    assert row.passed and "[gm-read-past-allocation]" in [w.split(":")[0] for w in row.warnings]


def test_values_read_past_the_block_fail_the_comparison(projects: Path, tmp_path: Path) -> None:
    # 512-float inputs, a reference that wants 1024 results (zero-padded): the last two cores
    # compute from what lies past the inputs' blocks, which the emulator fills with NaN.
    p = _fmax_with_inputs(
        projects, tmp_path, 512, "torch.maximum(F.pad(x, (0, 512)), F.pad(y, (0, 512)))"
    )
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok and not report.runtime_errors, report.runtime_errors
    [case] = report.cases
    assert not case.ok and case.mismatches == 512 and case.first_mismatch == [512], case


def test_bench_compat_counts_and_groups_first_failures(
    projects: Path, tmp_path: Path, capsys
) -> None:
    """A folder of three projects: one that passes, one whose host code misses a header it
    uses (its reference under another name, from kernelgen.toml), one without a reference."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    shutil.copytree(projects / "host_vendor", folder / "host_vendor")
    missing = folder / "zz_missing_header"
    shutil.copytree(projects / "host_vendor", missing)
    src = missing / "op_host" / "host_vendor_tiling.cpp"
    # a header that is missing and used (one nothing uses builds empty, with a warning)
    text = '#include "vendor/trace_log.h"\n' + src.read_text()
    anchor = "    HostVendorTilingData tiling;"
    src.write_text(text.replace(anchor, '    TRACE_LOG_INFO("tiling");\n' + anchor, 1))
    (missing / "ref.py").rename(missing / "reference.py")
    (missing / "kernelgen.toml").write_text('reference = "reference.py"\n')
    no_ref = folder / "zz_no_reference"
    shutil.copytree(projects / "device_idioms", no_ref)
    (no_ref / "ref.py").unlink()
    code = compat_bench.main([str(folder), "--format", "json"], progress=lambda s: None)
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    s = result["summary"]
    assert (s["projects"], s["compiled"], s["passed"], s["lint_clean"]) == (3, 1, 1, 3)
    assert s["causes"] == {
        "missing header": ["zz_missing_header"],
        "no reference": ["zz_no_reference"],
    }
    rows = {r["name"]: r for r in result["projects"]}
    assert rows["zz_missing_header"]["reference"].endswith("reference.py")
    assert "vendor/trace_log.h" in rows["zz_missing_header"]["first_failure"]
    compat_bench.main([str(folder), "--only", "zz_"], progress=lambda s: None)
    text = capsys.readouterr().out
    assert "projects 2: compiled 0/2, passed 0/2, lint-clean 2/2" in text
    assert "1  missing header: zz_missing_header" in text


def test_flat_opdef_project_runs_its_host_tiling_and_validates(projects: Path) -> None:
    """CANN 8.3's simplified custom-op project (Ascend/samples AddCustomTiny) keeps the OpDef and
    TilingFunc, the kernel and the tiling header in one folder: it builds as an OpDef project
    (taken as a single kernel file, its tiling header never reached the kernel build)."""
    p = projects / "flat_opdef"
    project = load_project(p)
    assert (project.layout, project.op_type, project.has_opdef) == ("flat", "ScaleShift", True)
    assert project.host_files == [Path("scale_shift_host.cpp")]
    assert project.kernel_file == Path("scale_shift_kernel.cpp")
    assert project.tiling_header == Path("scale_shift_tiling.h")
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, (report.runtime_errors, report.cases)
    assert lint_path(p) == []


def test_flat_opdef_project_with_a_plain_tiling_struct_gets_its_tiling_filled(
    projects: Path, tmp_path: Path
) -> None:
    """The sample's own form: a plain struct that both files include, filled through
    GetTilingData<T>() and registered as the kernel's default; read as a single kernel file the
    tiling buffer was empty and blockLength / tileLength divided by zero."""
    header = """#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleShiftTilingData)
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ScaleShift, ScaleShiftTilingData)
}  // namespace optiling"""
    host = """    ScaleShiftTilingData tiling;
    tiling.set_blockLength(total / BLOCKS);
    tiling.set_tileLength(TILE);
    context->SetBlockDim(BLOCKS);
    auto* raw = context->GetRawTilingData();
    tiling.SaveToBuffer(raw->GetData(), raw->GetCapacity());
    raw->SetDataSize(tiling.GetDataSize());"""
    p = _variant(
        projects, tmp_path, "flat_opdef",
        ("scale_shift_tiling.h", header,
         "#include <cstdint>\nstruct ScaleShiftTilingData {\n    uint32_t blockLength;\n"
         "    uint32_t tileLength;\n};"),
        ("scale_shift_host.cpp", host,
         "    ScaleShiftTilingData* tiling = context->GetTilingData<ScaleShiftTilingData>();\n"
         "    tiling->blockLength = total / BLOCKS;\n    tiling->tileLength = TILE;\n"
         "    context->SetBlockDim(BLOCKS);"),
        ("scale_shift_kernel.cpp", '#include "kernel_operator.h"',
         '#include "kernel_operator.h"\n#include "scale_shift_tiling.h"'),
        ("scale_shift_kernel.cpp", "    GET_TILING_DATA(t, tiling);",
         "    REGISTER_TILING_DEFAULT(ScaleShiftTilingData);\n    GET_TILING_DATA(t, tiling);"),
    )
    assert load_project(p).layout == "flat"
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, (report.runtime_errors, report.cases)


def test_lint_reads_a_flat_projects_host_tiling_as_op_hosts(projects: Path, tmp_path: Path) -> None:
    """The host file beside the kernel is host code for lint too: its TilingFunc gives the tile
    length, so a tile too large for UB is found (read as kernel code, nothing set it)."""
    p = _variant(projects, tmp_path, "flat_opdef",
                 ("scale_shift_host.cpp", "TILE = 256;", "TILE = 65536;"))
    found = [d for d in lint_path(p) if d.code == "ub-overflow"]
    assert len(found) == 1 and "scale_shift_host.cpp" in found[0].message, found
    texts = {str(f): f.read_text() for f in sorted(p.iterdir()) if f.suffix in (".cpp", ".h")}
    model = KernelModel({f: Document(f, t) for f, t in texts.items()})
    assert sorted(Path(f).name for f in model.kernel_files) == [
        "scale_shift_kernel.cpp", "scale_shift_tiling.h"]


def test_flat_layout_needs_an_opdef_and_a_kernel_in_separate_files(tmp_path: Path) -> None:
    """The flat layout is told by content, not names: a file registering an OpDef (OP_ADD) and
    another defining the entry, no op_host/ or op_kernel/; otherwise the folder stays what it
    was (a single kernel file; the configuration's `op` still picks among kernel files)."""
    host = (
        '#include "register/op_def_registry.h"\n'
        "namespace ops {\nclass Twice : public OpDef {\npublic:\n"
        "    explicit Twice(const char* name) : OpDef(name) {}\n};\nOP_ADD(Twice);\n}\n"
    )
    (tmp_path / "anything.cpp").write_text(host)
    (tmp_path / "twice.cpp").write_text(TWICE_KERNEL_FOR_OP.format(name="twice"))
    (tmp_path / "twice_v2.cpp").write_text(TWICE_KERNEL_FOR_OP.format(name="twice_v2"))
    project = load_project(tmp_path)
    assert (project.layout, project.entry.name, project.host_files) == (
        "flat", "twice", [Path("anything.cpp")])
    assert project.other_ops == ["twice_v2"]
    (tmp_path / "kernelgen.toml").write_text('op = "twice_v2"\n')
    assert load_project(tmp_path).entry.name == "twice_v2"
    (tmp_path / "kernelgen.toml").unlink()
    (tmp_path / "op_host").mkdir()  # a root kernel beside op_host/: not this layout
    assert load_project(tmp_path).layout == "single_file"
    (tmp_path / "op_host").rmdir()
    (tmp_path / "anything.cpp").write_text(host.replace("OP_ADD(Twice);", ""))
    assert load_project(tmp_path).layout == "single_file"
    # an OpDef in the kernel's own file is not a host file
    (tmp_path / "anything.cpp").unlink()
    (tmp_path / "twice_v2.cpp").unlink()
    (tmp_path / "twice.cpp").write_text(TWICE_KERNEL_FOR_OP.format(name="twice") + host)
    assert load_project(tmp_path).layout == "single_file"


def test_a_class_member_the_kernel_never_initialises_reads_garbage_as_on_the_npu(
    projects: Path, tmp_path: Path
) -> None:
    """A kernel object's members its constructor leaves alone hold whatever the core's stack held
    (DrivingSDK grid_sampler2d_v2_grad reads two of them): a fresh thread's zeroed stack hid
    that, so the entry's stack starts as garbage and the result is far off."""
    shift = """class Shift {
  public:
    __aicore__ inline Shift() {}
    __aicore__ inline void Init(TPipe* pipe) { pipe->InitBuffer(spare, 32); }
    __aicore__ inline void Apply(LocalTensor<float>& t, uint32_t n) { Adds(t, t, by, n); }
  private:
    TBuf<TPosition::VECCALC> spare;
    float by;  // never set
};

extern "C" """
    p = _variant(
        projects, tmp_path, "host_vendor",
        ("op_kernel/host_vendor.cpp", 'extern "C" ', shift),
        ("op_kernel/host_vendor.cpp", "    Muls(t, t, td.alpha, td.perCore);",
         "    Shift shift;\n    shift.Init(&pipe);\n    shift.Apply(t, td.perCore);\n"
         "    Muls(t, t, td.alpha, td.perCore);"),
    )
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert not report.ok
    [case] = report.cases
    assert "differ" in case.message and "e+38" in case.message, case.message
