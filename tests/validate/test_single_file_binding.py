"""Single-file kernels bind their pointer parameters by the `[binding]` table, then by name, then
in order (issue #8): a parameter the reference's forward mutates is one buffer updated in place,
a result may come before a scratch pointer, and a torch extension's op_kernel (op_host/ glue with
no OpDef) builds as a single-file kernel with the glue's blockDim. The fixtures under
data/compat are written for these tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch

from ascend_tools.binding import BindingError, bind_single
from ascend_tools.chips import get_chip
from ascend_tools.config import BindingTable
from ascend_tools.project import block_dim_of, load_project
from ascend_tools.reference import RefArg, RefOutput, TrialData
from ascend_tools.runner.case import Case, CaseParam, CaseTensor, case_text
from ascend_tools.validate import ValidationInputError, validate_project

DATA = Path(__file__).resolve().parent / "data" / "compat"


@pytest.fixture
def project(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    p = tmp_path / request.param
    shutil.copytree(DATA / request.param, p)
    return p


def _trial() -> TrialData:
    """forward(x, cache, sync) mutates cache and returns one tensor."""
    t = torch.zeros(4)
    return TrialData(
        args=[
            RefArg(name="x", source="forward", kind="tensor", tensors=[t]),
            RefArg(name="cache", source="forward", kind="tensor", tensors=[t]),
            RefArg(name="sync", source="forward", kind="tensor", tensors=[t]),
        ],
        outputs=[
            RefOutput(name="return[0]", tensors=[t], dtypes=["float32"]),
            RefOutput(name="cache", tensors=[t], dtypes=["float32"], inplace_of="cache"),
        ],
    )


def test_parameter_named_like_a_mutated_argument_is_updated_in_place() -> None:
    bound = bind_single(["x", "cache", "sync", "y"], _trial())
    roles = {b.name: (b.role, b.arg, b.result) for b in bound}
    assert roles == {
        "x": ("input", "x", None),
        "cache": ("in_place", "cache", "cache"),
        "sync": ("input", "sync", None),
        "y": ("output", None, "return[0]"),
    }


def test_table_binds_an_output_before_a_scratch_pointer_and_an_in_place_parameter() -> None:
    table = BindingTable(
        inputs={"src": "x", "cachePtr": "cache"},
        outputs={"cachePtr": "cache", "dst": "return[0]"},
        initial={"dst": 0.0},
        unchecked=["cachePtr"],
    )
    bound = bind_single(["src", "dst", "cachePtr", "syncGM", "workspace"], _trial(), table)
    roles = {b.name: (b.role, b.arg or b.result) for b in bound}
    assert roles == {
        "src": ("input", "x"),
        "dst": ("output", "return[0]"),
        "cachePtr": ("in_place", "cache"),
        "syncGM": ("input", "sync"),
        "workspace": ("harness", None),
    }
    assert [(b.initial, b.checked) for b in bound if b.role != "input"][:2] == [
        (0.0, True), (None, False)]


def test_output_table_entry_of_a_mutated_argument_makes_the_parameter_in_place() -> None:
    table = BindingTable(outputs={"cachePtr": "cache"})
    bound = bind_single(["x", "cachePtr", "sync", "y"], _trial(), table)
    assert [b.role for b in bound] == ["input", "in_place", "input", "output"]


def test_unbound_parameters_name_what_is_left_and_print_the_table_to_write() -> None:
    with pytest.raises(BindingError) as err:
        bind_single(["src", "cachePtr", "syncGM"], _trial())
    text = str(err.value)
    assert "left to bind by position (src, cachePtr, syncGM)" in text
    assert "3 reference tensors (x, cache, sync) and 2 results (return[0], cache)" in text
    assert 'inputs = {src = "x", cachePtr = "cache", syncGM = "sync"}' in text
    assert 'outputs = {cachePtr = "cache"}' in text


@pytest.mark.parametrize(
    ("table", "needle"),
    [
        (BindingTable(inputs={"p": "x"}), "names 'p', which is not one of the entry's pointer"),
        (BindingTable(outputs={"y": "return[3]"}), "outputs.y = 'return[3]' names no reference"),
        (BindingTable(inputs={"cache": "x"}, outputs={"cache": "cache"}),
         "'cache' is not 'x' as the forward mutates it"),
        (BindingTable(initial={"cache": 0.0}), "initial names 'cache', a parameter updated"),
        (BindingTable(unchecked=["x"]), "unchecked names 'x', which is not an output"),
        (BindingTable(unchecked=["cache", "y"]), "unchecked names every output parameter"),
    ],
)
def test_bad_tables_are_named(table: BindingTable, needle: str) -> None:
    with pytest.raises(BindingError, match="does not bind") as err:
        bind_single(["x", "cache", "sync", "y"], _trial(), table)
    assert needle in str(err.value)


def test_module_parameters_keep_their_place_after_the_forward_arguments() -> None:
    """Names bind forward arguments only: a kernel that lists a module's weight and bias in
    another order than the reference still binds them in order (test_single_file's swap)."""
    t = torch.zeros(2)
    trial = TrialData(
        args=[RefArg(name="x", source="forward", kind="tensor", tensors=[t]),
              RefArg(name="weight", source="parameter", kind="tensor", tensors=[t]),
              RefArg(name="bias", source="buffer", kind="tensor", tensors=[t])],
        outputs=[RefOutput(name="return[0]", tensors=[t], dtypes=["float32"])],
    )
    bound = bind_single(["x", "bias", "weight", "y"], trial)
    assert [b.arg for b in bound[:3]] == ["x", "weight", "bias"]


def test_case_file_lists_each_pointer_parameters_slot_in_entry_order() -> None:
    case = Case(
        chip=get_chip("ascend910b2"), op=None, kernel="k",
        inputs=[CaseTensor(name="x", dtype="float32", shape=[4]),
                CaseTensor(name="mask", dtype="int32", shape=[4])],
        outputs=[CaseTensor(name="x", dtype="float32", shape=[4])],
        params=[CaseParam(kind="output", name="x"), CaseParam(kind="input", name="mask"),
                CaseParam(kind="workspace")],
    )
    assert case_text(case).endswith("params x.out mask workspace\n")


@pytest.mark.parametrize("project", ["inplace_by_name"], indirect=True)
def test_in_place_parameter_by_name_keeps_the_elements_it_leaves(project: Path) -> None:
    """mask_logits(logits, mask) writes only masked elements of logits: the rest must come back
    as the input's values, so the buffer starts with them and is compared after the launch."""
    report = validate_project(project, project / "ref.py", trials=2)
    assert report.ok, ([d.message for d in report.compile.diagnostics], report.cases)


@pytest.mark.parametrize("project", ["inplace_by_name"], indirect=True)
def test_in_place_parameter_named_otherwise_needs_and_takes_a_table(project: Path) -> None:
    src = project / "mask_logits.cpp"
    src.write_text(src.read_text().replace("GM_ADDR logits,", "GM_ADDR logitsPtr,")
                   .replace("(__gm__ float*)logits", "(__gm__ float*)logitsPtr"))
    with pytest.raises(ValidationInputError) as err:
        validate_project(project, project / "ref.py")
    assert 'inputs = {logitsPtr = "logits", mask = "mask"}' in str(err.value)
    assert 'outputs = {logitsPtr = "logits"}' in str(err.value)
    (project / "kernelgen.toml").write_text('[binding]\noutputs = {logitsPtr = "logits"}\n')
    report = validate_project(project, project / "ref.py")
    assert report.ok, report.cases


@pytest.mark.parametrize("project", ["sync_after_output"], indirect=True)
def test_result_before_a_sync_workspace_binds_by_the_table(project: Path) -> None:
    report = validate_project(project, project / "ref.py")
    assert report.ok, ([d.message for d in report.compile.diagnostics], report.cases)
    (project / "kernelgen.toml").unlink()  # positional: out would take the sync input
    report = validate_project(project, project / "ref.py")
    assert not report.ok


@pytest.mark.parametrize("project", ["torch_glue"], indirect=True)
def test_torch_extension_builds_its_kernel_alone_on_the_glues_block_count(project: Path) -> None:
    """op_host/ is torch glue (no OpDef, headers kernelgen does not have): never compiled; the
    entry binds as a single file, blockDim 4 from `EXEC_KERNEL_CMD(row_scale, 4, ...)`."""
    p = load_project(project)
    assert (p.layout, p.kernel_file, p.host_files) == (
        "kernel_launch", Path("op_kernel/row_scale_kernel.cpp"), [])
    assert p.block_dim == 4
    report = validate_project(project, project / "ref.py")
    assert report.ok, ([d.message for d in report.compile.diagnostics], report.cases)
    assert report.counters["block_dim"] == 4
    (project / "kernelgen.toml").write_text("block_dim = 2\n")  # the configuration overrides
    assert load_project(project).block_dim == 2


def test_glue_block_dim_passed_to_the_entry_is_that_by_value_argument(tmp_path: Path) -> None:
    shutil.copytree(DATA / "torch_glue", tmp_path / "p")
    glue = tmp_path / "p" / "op_host" / "row_scale.cpp"
    glue.write_text(glue.read_text().replace(
        "EXEC_KERNEL_CMD(row_scale, 4, x, y, cols,",
        "uint32_t rows = std::min(x.size(0), 48);\n"
        "    ACLRT_LAUNCH_KERNEL(row_scale)(rows, stream, x, y, rows,"))
    p = load_project(tmp_path / "p")
    assert p.block_dim_expr == "cols"
    assert block_dim_of(p, {"cols": 3, "scale": 0.5}) == 3


def test_tensor_list_named_in_the_table_reaches_one_parameter_as_a_list_descriptor(
    tmp_path: Path,
) -> None:
    # #8: Ascend/samples' AddN launch passes its inputs as one ListTensorDesc in GM; before, a
    # table entry naming a tensor list was refused ("one parameter takes one tensor").
    p = tmp_path / "launch_list"
    shutil.copytree(DATA / "launch_list", p)
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, report.cases


def test_tensor_list_parameter_is_one_descriptor_word_of_its_elements() -> None:
    t = torch.zeros(4)
    trial = TrialData(
        args=[RefArg(name="xs", source="forward", kind="tensor_list", tensors=[t, t])],
        outputs=[RefOutput(name="return[0]", tensors=[t], dtypes=["float32"])],
    )
    bound = bind_single(["xs", "y"], trial, BindingTable(inputs={"xs": "xs"}))
    assert [(b.role, b.whole_list) for b in bound] == [("input", True), ("output", False)]
    # without the table the list's tensors bind by position, one parameter each
    with pytest.raises(BindingError, match="2 reference tensors"):
        bind_single(["xs", "y"], trial)
    chip = get_chip("ascend910b2")
    case = Case(
        chip=chip, op=None, kernel="k",
        inputs=[CaseTensor(name="xs", dtype="float32", shape=[4]) for _ in range(2)],
        outputs=[CaseTensor(name="y", dtype="float32", shape=[4])],
        params=[CaseParam(kind="input_list", name="xs"), CaseParam(kind="output", name="y")],
    )
    assert "params [xs.0,xs.1] y" in case_text(case)


def test_by_value_tiling_comes_from_the_launch_in_the_files_own_main(tmp_path: Path) -> None:
    # #8: an .asc file's kernel takes a TCubeTiling by value that only its main() fills
    # (Ascend/samples 26_simple_matmulleakyrelu); the emulator runs that main() to its launch.
    p = tmp_path / "launch_host_tiling"
    shutil.copytree(DATA / "launch_host_tiling", p)
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, report.cases  # x * 2.5: the scale main() put in the struct


def test_main_that_never_launches_is_named_as_the_reason_the_tiling_is_unknown(
    tmp_path: Path,
) -> None:
    p = tmp_path / "launch_host_tiling"
    shutil.copytree(DATA / "launch_host_tiling", p)
    src = p / "scale.asc"
    src.write_text(src.read_text().replace("    aclInit(nullptr);", "    if (argc > 0) return 7;"))
    report = validate_project(p, p / "ref.py")
    [err] = report.runtime_errors
    assert err.code == "tiling-failed"
    assert "main() returned 7 without launching scale_kernel" in err.message


def test_tiling_buffer_block_count_and_key_come_from_the_samples_host_program(
    tmp_path: Path,
) -> None:
    # #8: Ascend/samples' matmul kernel launches fill a `tilingGm` buffer in main.cpp (with a
    # GenerateTiling of another file) and compute blockDim from it; before, the parameter was
    # left over at binding. The emulator now runs that program to its ICPU_RUN_KF launch.
    p = tmp_path / "launch_host_program"
    shutil.copytree(DATA / "launch_host_program", p)
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, report.cases  # x * 0.5 * 2: the tiling's scale under tiling key 2
    assert report.counters["block_dim"] == 8  # rows / rowsPerCore, as main() launched it
    assert report.counters["tiling_key"] == 2


def test_host_program_declares_the_kernel_as_the_samples_cpu_debug_branch_does(
    tmp_path: Path,
) -> None:
    # #8, Ascend/samples AbsPad / AbsUnPad: after `#include "tikicpulib.h"` alone, main.cpp
    # declares `extern "C" __global__ __aicore__ void k(GM_ADDR ...)` and calls
    # SetKernelMode(KernelMode::AIV_MODE) unqualified; its tiling file includes graph/tensor.h for
    # ge::Shape. Before: "'__global__' does not name a type", "'KernelMode' has not been
    # declared", "graph/tensor.h: No such file or directory"; and "'tik2' has not been declared".
    p = tmp_path / "launch_host_program"
    shutil.copytree(DATA / "launch_host_program", p)
    main = p / "main.cpp"
    text = main.read_text()
    for old, new in (
        ('extern "C" void scale_rows(uint8_t* x, uint8_t* y, uint8_t* tilingGm);',
         'extern "C" __global__ __aicore__ void scale_rows(GM_ADDR x, GM_ADDR y, '
         "GM_ADDR tilingGm);"),
        ("AscendC::SetKernelMode(AscendC::KernelMode::AIV_MODE);",
         "AscendC::SetKernelMode(KernelMode::AIV_MODE);"),
        # tik2-era samples (Add_tile): early CANN's namespace for the same functions
        ("static_cast<uint8_t*>(AscendC::GmAlloc(tilingSize))",
         "static_cast<uint8_t*>(tik2::GmAlloc(tilingSize))"),
    ):
        assert old in text
        text = text.replace(old, new)
    main.write_text(text)
    tiling = p / "scale_rows_tiling.cpp"
    tiling.write_text(tiling.read_text().replace(
        "#include <cstring>\n",
        '#include <cstring>\n#include "graph/tensor.h"\n\n'
        "static const ge::Shape kShape({64, 256});\n",
    ))
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, report.cases


def test_host_program_launching_through_acl_is_captured_too(tmp_path: Path) -> None:
    # Three Ascend/samples matmul launches have no CPU-debug branch: main() launches with
    # ACLRT_LAUNCH_KERNEL(kernel)(blockDim, stream, ...) from CANN's generated aclrtlaunch_*.h.
    p = tmp_path / "launch_host_program"
    shutil.copytree(DATA / "launch_host_program", p)
    main = p / "main.cpp"
    main.write_text(main.read_text().replace("#ifndef ASCENDC_CPU_DEBUG", "#if 1")
                    .replace("#ifdef ASCENDC_CPU_DEBUG", "#if 0"))
    ref = p / "ref.py"
    ref.write_text(ref.read_text().replace("return x * 1.0", "return x * 0.5"))  # no key set
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, report.cases
    assert report.counters["block_dim"] == 8


def test_host_program_that_fails_to_compile_is_reported_at_its_line(tmp_path: Path) -> None:
    p = tmp_path / "launch_host_program"
    shutil.copytree(DATA / "launch_host_program", p)
    tiling = p / "scale_rows_tiling.cpp"
    tiling.write_text(tiling.read_text().replace("const float scale = 0.5f;", "const flot s;"))
    report = validate_project(p, p / "ref.py")
    assert not report.compile.ok
    assert any(d.file == "scale_rows_tiling.cpp" for d in report.compile.diagnostics), [
        (d.file, d.message) for d in report.compile.diagnostics]


def test_none_named_in_the_table_gives_the_parameter_a_null_pointer() -> None:
    # Ascend/samples' group matmul passes `bias` as a null pointer its kernel never reads.
    t = torch.zeros(4)
    trial = TrialData(
        args=[RefArg(name="x", source="forward", kind="tensor", tensors=[t]),
              RefArg(name="bias", source="forward", kind="absent")],
        outputs=[RefOutput(name="return[0]", tensors=[t], dtypes=["float32"])],
    )
    bound = bind_single(["x", "bias", "y"], trial, BindingTable(inputs={"bias": "bias"}))
    assert [(b.name, b.role) for b in bound] == [
        ("x", "input"), ("bias", "absent"), ("y", "output")]
    case = Case(
        chip=get_chip("ascend910b2"), op=None, kernel="k",
        inputs=[CaseTensor(name="x", dtype="float32", shape=[4])],
        outputs=[CaseTensor(name="y", dtype="float32", shape=[4])],
        params=[CaseParam(kind="input", name="x"), CaseParam(kind="null"),
                CaseParam(kind="output", name="y")],
    )
    assert "params x null y" in case_text(case)


def test_a_parameter_named_tiling_takes_the_buffer_the_host_program_filled(
    tmp_path: Path,
) -> None:
    # #8, Ascend/samples MatmulLeakyReluCppExtensions: the entry's last parameter is `tiling`;
    # it got the harness's empty tiling buffer, not the one the host program wrote, and the
    # kernel divided by zero. A name the harness also fills no longer hides the host's buffer.
    p = tmp_path / "launch_host_program"
    shutil.copytree(DATA / "launch_host_program", p)
    src = p / "scale_rows.cpp"
    src.write_text(src.read_text().replace("tilingGm", "tiling"))
    report = validate_project(p, p / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, report.cases
    assert report.counters["tiling_key"] == 2
