"""The binding rules without a compiler: reference trials (make_trial) against hand-written
OpDefs (the harness's --describe shape), and the kernelgen.toml reader."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from ascend_tools.binding import BindingError, bind_op
from ascend_tools.config import (
    BindingTable,
    ConfigError,
    load_project_config,
    project_reference,
)
from ascend_tools.reference import TrialData, load_reference, make_trial
from ascend_tools.toolchain.models import AttrDef, OpDefinition, TensorDef

HEADER = "import torch\nimport torch.nn as nn\n\n"


def _trial(tmp_path: Path, body: str, dtype: str | None = None) -> TrialData:
    path = tmp_path / "ref.py"
    path.write_text(HEADER + body)
    ref = load_reference(path)
    return make_trial(ref, ref.build_model(), seed=0, dtype=dtype)


def _op(
    inputs: list[str | tuple[str, str]],
    outputs: list[str | tuple[str, str]],
    attrs: list[AttrDef] | None = None,
) -> OpDefinition:
    def tensors(items: list[str | tuple[str, str]]) -> list[TensorDef]:
        return [
            TensorDef(name=i) if isinstance(i, str) else TensorDef(name=i[0], param_type=i[1])
            for i in items
        ]

    return OpDefinition(
        name="TestOp", inputs=tensors(inputs), outputs=tensors(outputs), attrs=attrs or []
    )


ADD = """
class Model(nn.Module):
    def forward(self, x, y):
        return x + y
def get_inputs():
    return [torch.randn(4), torch.randn(4)]
"""


def test_inputs_bind_by_name_when_every_name_matches_else_in_order(tmp_path: Path) -> None:
    trial = _trial(tmp_path, ADD)
    by_name = bind_op(_op(["y", "x"], ["z"]), trial)
    assert [(b.name, b.arg) for b in by_name.inputs] == [("y", "y"), ("x", "x")]
    in_order = bind_op(_op(["a", "b"], ["z"]), trial)
    assert [(b.name, b.arg) for b in in_order.inputs] == [("a", "x"), ("b", "y")]
    assert [(b.name, b.results) for b in in_order.outputs] == [("z", ["return[0]"])]


def test_parameters_and_buffers_follow_the_forward_tensors(tmp_path: Path) -> None:
    trial = _trial(
        tmp_path,
        "class Model(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.weight = nn.Parameter(torch.randn(4))\n"
        "        self.register_buffer('shift', torch.randn(4))\n"
        "    def forward(self, x):\n        return x * self.weight + self.shift\n"
        "def get_inputs():\n    return [torch.randn(4)]\n",
    )
    bound = bind_op(_op(["x", "w", "s"], ["y"]), trial)
    assert [b.arg for b in bound.inputs] == ["x", "weight", "shift"]


def test_trailing_optional_input_is_absent_and_an_unused_none_default_is_dropped(
    tmp_path: Path,
) -> None:
    trial = _trial(
        tmp_path,
        "class Model(nn.Module):\n"
        "    def forward(self, x, mask=None):\n        return x * 2\n"
        "def get_inputs():\n    return [torch.randn(4)]\n",
    )
    bound = bind_op(_op(["x", ("bias", "optional")], ["y"]), trial)
    assert [(b.name, b.arg) for b in bound.inputs] == [("x", "x"), ("bias", None)]
    assert [b.arg for b in bind_op(_op(["x"], ["y"]), trial).inputs] == ["x"]


def test_none_for_a_required_input_names_both_sides(tmp_path: Path) -> None:
    trial = _trial(
        tmp_path,
        "class Model(nn.Module):\n"
        "    def forward(self, x, bias):\n        return x\n"
        "def get_inputs():\n    return [torch.randn(4), None]\n",
    )
    with pytest.raises(BindingError) as err:
        bind_op(_op(["x", "b"], ["y"]), trial)
    msg = str(err.value)
    assert "the reference passes None as bias but OpDef input b is required" in msg
    assert "reference None arguments: bias" in msg
    assert 'inputs = {x = "x", b = "bias"}' in msg


def test_attributes_by_name_then_the_rest_in_order_forward_before_init(tmp_path: Path) -> None:
    trial = _trial(
        tmp_path,
        "class Model(nn.Module):\n"
        "    def __init__(self, dim, eps=1e-5):\n        super().__init__()\n"
        "    def forward(self, x, alpha: float, shape: tuple):\n        return x * alpha\n"
        "def get_inputs():\n    return [torch.randn(4), 0.5, (2, 2)]\n"
        "def get_init_inputs():\n    return [1]\n",
    )
    attrs = [
        AttrDef(name="eps", type="float", default="1e-06"),
        AttrDef(name="scale", type="float"),
        AttrDef(name="sizes", type="list_int"),
        AttrDef(name="axis", type="int"),
        AttrDef(name="keep", type="bool", default="true"),
    ]
    bound = bind_op(_op(["x"], ["y"], attrs), trial)
    got = {a.name: a.arg or a.constant for a in bound.attrs}
    assert got == {"eps": "eps", "scale": "alpha", "sizes": "shape", "axis": "dim", "keep": True}


def test_an_int_init_value_leaves_a_defaulted_float_attribute_its_default(tmp_path: Path) -> None:
    """nn.LayerNorm(normalized_shape) against an OpDef whose one attribute is epsilon: the size
    1024 taken by position made epsilon 1024 and every output wrong (mkb_layer_norm)."""
    trial = _trial(
        tmp_path,
        "class Model(nn.Module):\n"
        "    def __init__(self, normalized_shape):\n        super().__init__()\n"
        "    def forward(self, x):\n        return x\n"
        "def get_inputs():\n    return [torch.randn(4)]\n"
        "def get_init_inputs():\n    return [1024]\n",
    )
    eps = AttrDef(name="epsilon", type="float", default="1e-05")
    bound = bind_op(_op(["x"], ["y"], [eps, AttrDef(name="axis", type="int")]), trial)
    got = {a.name: a.arg or a.constant for a in bound.attrs}
    assert got == {"epsilon": 1e-05, "axis": "normalized_shape"}
    assert any("normalized_shape=1024" in n and "epsilon" in n for n in bound.notes)
    # Without a default the value still binds (and a float attribute takes an int then).
    no_default = bind_op(_op(["x"], ["y"], [AttrDef(name="epsilon", type="float")]), trial)
    assert no_default.attrs[0].arg == "normalized_shape"


def test_attribute_without_default_or_value_is_an_error(tmp_path: Path) -> None:
    trial = _trial(tmp_path, ADD)
    with pytest.raises(BindingError, match="attribute scale of TestOp has no default"):
        bind_op(_op(["x", "y"], ["z"], [AttrDef(name="scale", type="float")]), trial)


def test_attribute_value_of_the_wrong_type_is_an_error(tmp_path: Path) -> None:
    trial = _trial(
        tmp_path,
        "class Model(nn.Module):\n"
        "    def forward(self, x, dims: list):\n        return x\n"
        "def get_inputs():\n    return [torch.randn(4), [0, 1]]\n",
    )
    with pytest.raises(BindingError, match=r"attribute scale \(float\) cannot take"):
        bind_op(_op(["x"], ["y"], [AttrDef(name="scale", type="float")]), trial)


def test_in_place_result_binds_to_the_output_named_like_its_input(tmp_path: Path) -> None:
    trial = _trial(
        tmp_path,
        "class Model(nn.Module):\n"
        "    def forward(self, v, g):\n        v.sub_(g)\n        return g * 2\n"
        "def get_inputs():\n    return [torch.ones(4), torch.full((4,), 0.25)]\n",
    )
    assert [(o.name, o.inplace_of) for o in trial.outputs] == [("return[0]", None), ("v", "v")]
    assert torch.equal(trial.outputs[1].tensors[0], torch.full((4,), 0.75))
    # The kernel's input keeps the value before the forward mutated it.
    assert torch.equal(trial.args[0].tensors[0], torch.ones(4))
    bound = bind_op(_op(["var", "grad"], ["var", "g2"]), trial)
    assert [(b.name, b.results) for b in bound.outputs] == [("var", ["v"]), ("g2", ["return[0]"])]


def test_returned_mutated_input_is_one_result(tmp_path: Path) -> None:
    trial = _trial(
        tmp_path,
        "class Model(nn.Module):\n"
        "    def forward(self, x):\n        return x.mul_(2)\n"
        "def get_inputs():\n    return [torch.randn(4, 8)]\n",
        dtype="float16",
    )
    assert [(o.name, o.inplace_of, o.dtypes) for o in trial.outputs] == [
        ("return[0]", "x", ["float16"])
    ]


def test_returned_list_feeds_one_dynamic_output(tmp_path: Path) -> None:
    trial = _trial(
        tmp_path,
        "class Model(nn.Module):\n"
        "    def forward(self, xs, other):\n"
        "        return [x + 1 for x in xs] + [other]\n"
        "def get_inputs():\n"
        "    return [[torch.randn(4), torch.randn(4)], torch.randn(4)]\n",
    )
    bound = bind_op(_op([("xs", "dynamic"), "other"], [("ys", "dynamic"), "z"]), trial)
    assert [(b.name, b.results) for b in bound.outputs] == [
        ("ys", ["return[0]", "return[1]"]),
        ("z", ["return[2]"]),
    ]


def test_table_pins_entries_and_leaves_the_rest_inferred(tmp_path: Path) -> None:
    trial = _trial(tmp_path, ADD)
    table = BindingTable(inputs={"a": "y"})
    bound = bind_op(_op(["a", "b"], ["z"]), trial, table)
    assert [(b.name, b.arg) for b in bound.inputs] == [("a", "y"), ("b", "x")]


def test_config_reads_reference_lint_and_binding_from_either_file(tmp_path: Path) -> None:
    assert load_project_config(tmp_path).binding is None
    assert project_reference(tmp_path) is None
    (tmp_path / "ref.py").write_text("")
    assert project_reference(tmp_path) == (tmp_path / "ref.py").resolve()
    (tmp_path / "pyproject.toml").write_text(
        '[tool.kernelgen]\nreference = "r.py"\n[tool.kernelgen.binding]\nattrs = {a = 1.5}\n'
    )
    cfg = load_project_config(tmp_path)
    assert (cfg.reference, cfg.binding, cfg.lint) == ("r.py", BindingTable(attrs={"a": 1.5}), None)
    (tmp_path / "kernelgen.toml").write_text(
        'reference = "ref.py"\n[lint]\nchip = "ascend910"\n'
        '[binding]\ninputs = {x = "input"}\noutputs = {y = "return[0]"}\n'
    )
    cfg = load_project_config(tmp_path)
    assert cfg.lint is not None and cfg.lint.chip == "ascend910"
    assert cfg.binding == BindingTable(inputs={"x": "input"}, outputs={"y": "return[0]"})
    (tmp_path / "kernelgen.toml").write_text('[binding]\ninput = {x = "input"}\n')
    with pytest.raises(ConfigError, match=r"bad setting binding\.input"):
        load_project_config(tmp_path)
