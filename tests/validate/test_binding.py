"""Binding a PyTorch reference to an operator project (issue #8, class 1): scalars, init values
and tensor lists, None for an absent optional input, tuples and in-place results, the
`[binding]` table of kernelgen.toml, and the project's own reference (fixtures in data/)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from ascend_tools.validate import ValidationInputError, validate_project
from server.cli import main

DATA = Path(__file__).resolve().parent / "data"

Project = Callable[[str], Path]


@pytest.fixture(scope="session")
def projects_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("binding-projects")


@pytest.fixture
def project(projects_dir: Path) -> Project:
    """A fresh copy of a fixture project, always at the same path (builds come from the cache)."""

    def copy(name: str) -> Path:
        target = projects_dir / name
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(DATA / name, target)
        return target

    return copy


def _ref(tmp_path: Path, text: str, name: str = "ref.py") -> Path:
    path = tmp_path / name
    path.write_text("import torch\nimport torch.nn as nn\n\n" + text)
    return path


SCALE_BY_NAME = """
class Model(nn.Module):
    def forward(self, x, scale: float):
        return x * scale
def get_inputs():
    return [torch.randn(4, 64), {scale}]
"""


def test_float_forward_argument_reaches_tiling_as_the_attribute(
    project: Project, tmp_path: Path
) -> None:
    root = project("scale_attr")
    for scale in (0.375, -2.5):
        ref = _ref(tmp_path, SCALE_BY_NAME.format(scale=scale))
        report = validate_project(root, ref)
        assert report.ok, report
        assert report.cases[0].max_abs_err == 0.0


def test_float16_trial_casts_tensors_and_keeps_the_scalar(project: Project) -> None:
    root = project("scale_attr")
    report = validate_project(root, root / "ref.py", dtype="float16")
    assert report.ok, report


def test_init_value_binds_to_the_attribute_by_name_not_position(
    project: Project, tmp_path: Path
) -> None:
    root = project("scale_attr")
    ref = _ref(
        tmp_path,
        "class Model(nn.Module):\n"
        "    def __init__(self, offset, scale):\n"
        "        super().__init__()\n        self.s = scale\n"
        "    def forward(self, x):\n        return x * self.s\n"
        "def get_inputs():\n    return [torch.randn(4, 64)]\n"
        "def get_init_inputs():\n    return [7.0, 1.75]\n",
    )
    assert validate_project(root, ref).ok


def test_tuple_results_and_attributes_bind_in_order_when_names_differ(project: Project) -> None:
    root = project("sgd_momentum")
    report = validate_project(root, root / "ref_functional.py", trials=2)
    assert report.ok, report


def test_in_place_forward_is_checked_on_every_mutated_input(
    project: Project, tmp_path: Path
) -> None:
    root = project("sgd_momentum")
    assert validate_project(root, root / "ref.py").ok
    # Only param differs from the kernel: its comparison must fail, buf's must pass.
    text = (root / "ref.py").read_text()
    wrong = text.replace("param.sub_(lr * buf)", "param.sub_(2 * lr * buf)")
    report = validate_project(root, _ref(tmp_path, wrong))
    assert not report.ok
    assert "output param:" in report.cases[0].message
    assert "output buf:" not in report.cases[0].message


def test_none_binds_an_absent_optional_input(project: Project) -> None:
    root = project("bias_opt")
    assert validate_project(root, root / "ref.py").ok
    assert validate_project(root, root / "ref_bias.py").ok


def test_required_input_is_read_by_its_opdef_index_behind_an_absent_optional(
    project: Project,
) -> None:
    # bias (OPTIONAL) comes first: absent, it keeps instance 0 with no tensor (GetInputShape(0)
    # is nullptr), and x is index 1 both ways: GetInputShape(1) and GetRequiredInputShape(1) /
    # GetRequiredInputTensor / GetRequiredInputDataType give the same x (the host checks).
    root = project("bias_first")
    absent = validate_project(root, root / "ref.py")
    assert absent.ok, absent.cases[0].message if absent.cases else absent
    assert not [n for n in absent.notes if "infer" in n.lower()]
    assert validate_project(root, root / "ref_bias.py").ok


def test_optional_output_without_a_result_is_absent(project: Project) -> None:
    # #8: DrivingSDK deformable_conv2d_grad's glue leaves its OPTIONAL grad_bias / grad_mask
    # undefined; before, "OpDef output ... gets no reference result to compare with". Here an
    # OPTIONAL `stats` output comes first: the kernel gets a null pointer, GetOutputShape(0) is
    # nullptr and y stays output 1 (the host checks both).
    root = project("bias_opt")
    host = root / "op_host" / "bias_add_custom.cpp"
    text = host.read_text().replace(
        '        this->Output("y")',
        '        this->Output("stats").ParamType(OPTIONAL).DataType({ge::DT_FLOAT})'
        '.Format({ge::FORMAT_ND});\n        this->Output("y")',
    ).replace(
        "    BiasAddCustomTilingData tiling;",
        "    if (context->GetOutputShape(0) != nullptr ||\n"
        "        context->GetOutputShape(1)->GetStorageShape().GetShapeSize() != length) {\n"
        "        return ge::GRAPH_FAILED;\n    }\n    BiasAddCustomTilingData tiling;",
    )
    host.write_text(text)
    kernel = root / "op_kernel" / "bias_add_custom.cpp"
    text = kernel.read_text().replace("GM_ADDR bias, GM_ADDR y,",
                                      "GM_ADDR bias, GM_ADDR stats, GM_ADDR y,")
    kernel.write_text(text.replace("    GET_TILING_DATA(td, tiling);",
                                   "    GET_TILING_DATA(td, tiling);\n    if (stats) return;"))
    report = validate_project(root, root / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, report.cases[0].message if report.cases else report.runtime_errors


def test_tensor_lists_bind_to_dynamic_input_and_output(project: Project) -> None:
    root = project("foreach_mul")
    assert validate_project(root, root / "ref.py").ok
    assert validate_project(root, root / "ref_inplace.py").ok


def test_a_list_updated_through_its_input_descriptor_is_the_output_read_back(
    project: Project,
) -> None:
    """xllm-ops select_unshared_kv: the glue passes one list of caches as a DYNAMIC input and
    as the DYNAMIC output; the kernel writes through the input's descriptor, the same
    addresses on the NPU."""
    root = project("foreach_mul")
    kernel = root / "op_kernel" / "foreach_mul_scalar.cpp"
    text = kernel.read_text()
    old = "yGm.SetGlobalBuffer(yList.GetDataPtr<float>(k), n);"
    assert old in text
    kernel.write_text(text.replace(old, "yGm.SetGlobalBuffer(xList.GetDataPtr<float>(k), n);"))
    report = validate_project(root, root / "ref_inplace.py")
    assert report.ok, report


OFFSET_FACTOR = """
class Model(nn.Module):
    def forward(self, x, offset: float, factor: float):
        return x * factor + 0.0 * offset
def get_inputs():
    return [torch.randn(4, 64), 3.0, 0.5]
"""


def test_binding_table_pins_what_inference_gets_wrong(project: Project, tmp_path: Path) -> None:
    root = project("scale_attr")
    ref = _ref(tmp_path, OFFSET_FACTOR)
    inferred = validate_project(root, ref)
    # In declaration order scale takes offset (3.0): wrong values, and a note on factor.
    assert not inferred.ok
    assert any("factor=0.5 (forward) binds to no attribute" in n for n in inferred.notes)
    (root / "kernelgen.toml").write_text('[binding]\nattrs = {scale = "factor"}\n')
    assert validate_project(root, ref).ok
    (root / "kernelgen.toml").write_text("[binding]\nattrs = {scale = 0.5}\n")
    assert validate_project(root, ref).ok


def test_unbindable_reference_names_the_mismatch_and_shows_the_table(
    project: Project, tmp_path: Path
) -> None:
    root = project("scale_attr")
    ref = _ref(
        tmp_path,
        "class Model(nn.Module):\n"
        "    def forward(self, xs, alpha: float):\n        return xs[0] * alpha\n"
        "def get_inputs():\n    return [[torch.randn(4, 64), torch.randn(4, 64)], 2.0]\n",
    )
    with pytest.raises(ValidationInputError) as err:
        validate_project(root, ref)
    text = str(err.value)
    assert "tensor list as xs but OpDef input x is required" in text
    assert "reference tensors: xs (forward, list)" in text
    assert "OpDef ScaleCustom inputs: x; attrs: scale: float (no default); outputs: y" in text
    assert text.endswith(
        '[binding]\ninputs = {x = "xs"}\nattrs = {scale = "alpha"}\noutputs = {y = "return[0]"}'
    )


def test_binding_table_with_a_name_the_opdef_lacks_is_rejected(project: Project) -> None:
    root = project("scale_attr")
    (root / "kernelgen.toml").write_text('[binding]\nattrs = {alpha = "scale"}\n')
    with pytest.raises(ValidationInputError, match=r"names 'alpha', which is not one of OpDef "):
        validate_project(root, root / "ref.py")
    (root / "kernelgen.toml").write_text('[binding]\nattrs = {scale = "factor"}\n')
    with pytest.raises(ValidationInputError, match=r"attrs.scale = 'factor' names no reference"):
        validate_project(root, root / "ref.py")


def test_project_reference_is_the_configured_one_else_ref_py_else_none(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project("scale_attr")
    assert [c.name for c in validate_project(root).cases] == ["trial0"]
    assert main(["validate", str(root)]) == 0
    # kernelgen.toml's reference wins over ref.py: a wrong one makes validation fail.
    other = (root / "ref.py").read_text().replace("return x * scale", "return x * scale + 1")
    (root / "refs").mkdir()
    (root / "refs" / "wrong.py").write_text(other)
    (root / "kernelgen.toml").write_text('reference = "refs/wrong.py"\n')
    assert not validate_project(root).ok
    (root / "kernelgen.toml").write_text('reference = "refs/absent.py"\n')
    with pytest.raises(ValidationInputError, match=r"reference 'refs/absent\.py' not found"):
        validate_project(root)
    (root / "kernelgen.toml").unlink()
    (root / "ref.py").unlink()
    report = validate_project(root)
    assert report.ok and report.compile.ok and report.cases == []
    assert any(n.startswith("no reference") for n in report.notes)
    capsys.readouterr()


def test_in_place_output_keeps_the_elements_the_kernel_leaves_alone(project: Project) -> None:
    # The kernel writes row 0 of var only; the other rows must keep the input's values.
    root = project("row_add_inplace")
    report = validate_project(root, root / "ref.py")
    assert report.ok, report


def test_outputs_the_caller_fills_start_as_the_arguments_named_like_them(project: Project) -> None:
    """DrivingSDK scatter_max's argmax pass: `best` (an earlier op's result the kernel only
    reads) and `arg` (-1 throughout) are OpDef outputs the caller fills; forward takes both as
    arguments, mutating arg and leaving best as it was, and both are compared."""
    root = project("argmax_fill")
    report = validate_project(root, root / "ref.py")
    assert report.ok, report
    assert "not compared" not in str(report)
    # best is compared with its unchanged value: a kernel that clobbers it fails there (the
    # last block, after every other block's read).
    kernel = root / "op_kernel" / "argmax_fill.cpp"
    kernel.write_text(kernel.read_text().replace(
        "    SetAtomicNone();\n",
        "    SetAtomicNone();\n"
        "    if (GetBlockIdx() == GetBlockNum() - 1) DataCopy(bestGm, out, cols);\n",
    ))
    report = validate_project(root, root / "ref.py")
    assert not report.ok
    assert "output best:" in report.cases[0].message
    assert "output arg:" not in report.cases[0].message


RENAMED_FILLS = """
class Model(nn.Module):
    def forward(self, x, maxima, idx):
        rows = torch.arange(x.shape[0], dtype=torch.float32)[:, None].expand_as(x)
        hits = torch.where(x == maxima, rows, torch.full_like(x, -1.0))
        idx.copy_(torch.maximum(idx, hits.max(0).values))
def get_inputs():
    x = torch.randn(4, 64)
    return [x, x.max(0).values.clone(), torch.full((64,), -1.0)]
"""


def test_a_filled_output_named_unlike_its_argument_is_named_in_the_table(
    project: Project, tmp_path: Path
) -> None:
    root = project("argmax_fill")
    ref = _ref(tmp_path, RENAMED_FILLS)
    with pytest.raises(ValidationInputError) as err:
        validate_project(root, ref)
    assert "reference tensor maxima (forward) has no OpDef input left to bind to" in str(err.value)
    assert 'name it there: [binding] outputs = {<output> = "maxima"}' in str(err.value)
    (root / "kernelgen.toml").write_text('[binding]\noutputs = {best = "maxima", arg = "idx"}\n')
    report = validate_project(root, ref)
    assert report.ok, report
    (root / "kernelgen.toml").write_text(
        '[binding]\noutputs = {best = "maxima", arg = "idx"}\ninitial = {arg = -1.0}\n'
    )
    with pytest.raises(ValidationInputError, match="which the reference argument idx fills"):
        validate_project(root, ref)
