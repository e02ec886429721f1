"""Reference loading, trial inputs (seeds, casts, binding order) and the comparison rule."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from ascend_tools.reference import (
    ReferenceError,
    compare,
    from_bytes,
    load_reference,
    make_trial,
    to_bytes,
    tolerance,
)

REF_WITH_PARAMS = """
import torch
import torch.nn as nn
SIZE = 8
class Model(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale
        self.w = nn.Parameter(torch.randn(SIZE))
        self.register_buffer("b", torch.randn(SIZE))
    def forward(self, x, idx):
        return x * self.w * self.scale + self.b, idx + 1
def get_inputs():
    return [torch.randn(3, SIZE), torch.randint(0, 5, (3,), dtype=torch.int32)]
def get_init_inputs():
    return [2.0]
"""


def _ref(tmp_path: Path, text: str = REF_WITH_PARAMS):
    path = tmp_path / "ref.py"
    path.write_text(text)
    return load_reference(path)


def test_inputs_named_by_forward_then_parameters_then_buffers(tmp_path: Path) -> None:
    ref = _ref(tmp_path)
    trial = make_trial(ref, ref.build_model(), seed=0)
    assert trial.input_names == ["x", "idx", "w", "b"]
    assert [tuple(t.shape) for t in trial.inputs] == [(3, 8), (3,), (8,), (8,)]
    assert trial.output_dtypes == ["float32", "int32"]


def test_trials_differ_by_seed_and_repeat_exactly(tmp_path: Path) -> None:
    ref = _ref(tmp_path)
    model = ref.build_model()
    a, b, a2 = (make_trial(ref, model, seed=s) for s in (0, 1, 0))
    assert not torch.equal(a.inputs[0], b.inputs[0])
    assert torch.equal(a.inputs[0], a2.inputs[0])


def test_dtype_casts_floats_only_and_reference_uses_the_cast_values(tmp_path: Path) -> None:
    ref = _ref(tmp_path)
    trial = make_trial(ref, ref.build_model(), seed=0, dtype="float16")
    x, idx, w, b = trial.inputs
    assert (x.dtype, idx.dtype, w.dtype, b.dtype) == (
        torch.float16,
        torch.int32,
        torch.float16,
        torch.float16,
    )
    expected = x.float() * w.float() * 2.0 + b.float()
    assert torch.equal(trial.expected[0], expected)
    assert trial.expected[0].dtype == torch.float32
    assert trial.output_dtypes == ["float16", "int32"]


def test_shape_override_resamples_from_the_trial_values(tmp_path: Path) -> None:
    ref = _ref(tmp_path)
    model = ref.build_model()
    base = make_trial(ref, model, seed=0)
    trial = make_trial(ref, model, seed=0, shapes=[(5, 8), (5,)])
    assert tuple(trial.inputs[0].shape) == (5, 8)
    assert set(trial.inputs[1].tolist()) <= set(base.inputs[1].tolist())
    with pytest.raises(ReferenceError, match="2 tensors"):
        make_trial(ref, model, seed=0, shapes=[(5, 8)])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("def get_inputs():\n    return []\n", "no `class Model"),
        ("import torch.nn as nn\nclass Model(nn.Module):\n    pass\n", r"no `get_inputs\(\)`"),
        ("this is not python\n", "failed to import"),
    ],
)
def test_bad_reference_files(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ReferenceError, match=message):
        _ref(tmp_path, text)


def test_missing_reference_file(tmp_path: Path) -> None:
    with pytest.raises(ReferenceError, match="not found"):
        load_reference(tmp_path / "absent.py")


def test_element_fails_only_when_both_abs_and_rel_exceed() -> None:
    expected = torch.tensor([1000.0, 1e-6, 1.0])
    # 1000.05: abs 0.05 > 1e-4 but rel 5e-5 < 1e-4 -> ok; 1e-6 + 5e-5: rel 50 but abs < 1e-4 -> ok
    actual = torch.tensor([1000.05, 1e-6 + 5e-5, 1.0])
    assert compare(actual, expected, 1e-4, 1e-4).ok
    actual[2] = 1.001
    result = compare(actual, expected, 1e-4, 1e-4)
    assert not result.ok and result.mismatches == 1 and result.first_mismatch == [2]


def test_non_finite_values() -> None:
    nan, inf = math.nan, math.inf
    expected = torch.tensor([[1.0, nan], [inf, -inf]])
    assert compare(expected.clone(), expected, 1e-4, 1e-4).ok
    wrong = torch.tensor([[nan, nan], [inf, inf]])
    result = compare(wrong, expected, 1e-4, 1e-4)
    assert result.mismatches == 2
    assert result.first_mismatch == [0, 0]
    # the error figures cover only the elements finite on both sides, and the message says so
    assert "(2 of them inf or NaN against the reference)" in result.message
    assert "over the 0 finite on both sides: max abs err 0" in result.message


def test_first_mismatch_is_a_multi_index() -> None:
    expected = torch.zeros(2, 3, 4)
    actual = expected.clone()
    actual[1, 2, 3] = 1.0
    actual[1, 2, 1] = 1.0
    assert compare(actual, expected, 1e-4, 1e-4).first_mismatch == [1, 2, 1]


def test_default_tolerances_per_dtype_and_overrides() -> None:
    assert tolerance("float32") == (1e-4, 1e-4)
    assert tolerance("float16") == (1e-3, 2e-3)
    assert tolerance("bfloat16") == (8e-3, 1.6e-2)
    assert tolerance("int32") == (0.0, 0.0)
    assert tolerance("float16", atol=0.5) == (0.5, 2e-3)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int8", "int64", "bool"])
def test_tensor_bytes_round_trip(dtype: str) -> None:
    from ascend_tools.reference import TORCH_DTYPES

    t = (torch.randn(3, 5) * 10).to(TORCH_DTYPES[dtype])
    data = to_bytes(t)
    assert len(data) == t.numel() * t.element_size()
    assert torch.equal(from_bytes(data, dtype, (3, 5)), t)


def test_output_off_everywhere_by_less_than_atol_fails_the_whole_tensor_check() -> None:
    # Softmax over rows of 8192: every value is about 1.2e-4, so a result 10% too small is off
    # by ~1.2e-5 per element, under atol; the elementwise rule alone passes it.
    torch.manual_seed(0)
    expected = torch.softmax(torch.rand(4, 8192), dim=-1)
    result = compare(expected * 0.9, expected, 1e-4, 1e-4)
    assert not result.ok and result.mismatches == 0
    assert result.rel_l2_err == pytest.approx(0.1, rel=1e-3)
    assert "relative L2 error" in result.message


def test_all_zero_output_fails_even_where_values_are_below_atol() -> None:
    torch.manual_seed(0)
    expected = torch.softmax(torch.rand(2, 4096), dim=-1)
    result = compare(torch.zeros_like(expected), expected, 1e-4, 1e-4)
    assert not result.ok and result.rel_l2_err == pytest.approx(1.0)


def test_rounding_to_the_output_dtype_is_not_a_whole_tensor_error() -> None:
    torch.manual_seed(0)
    expected = torch.randn(64, 512)
    for dtype, name in ((torch.float16, "float16"), (torch.bfloat16, "bfloat16")):
        atol, rtol = tolerance(name)
        result = compare(expected.to(dtype), expected, atol, rtol)
        assert result.ok and result.rel_l2_err == 0.0


def test_small_elementwise_noise_passes_the_whole_tensor_check() -> None:
    torch.manual_seed(0)
    expected = torch.randn(64, 512)
    noisy = expected * (1 + 2e-5 * torch.randn_like(expected))
    result = compare(noisy, expected, 1e-4, 1e-4)
    assert result.ok and 0 < result.rel_l2_err < 1e-4


def test_floating_outputs_follow_the_one_floating_input_dtype(tmp_path: Path) -> None:
    text = REF_WITH_PARAMS.replace("torch.randn(3, SIZE)", "torch.randn(3, SIZE).half()")
    ref = _ref(tmp_path, text)
    trial = make_trial(ref, ref.build_model(), seed=0)
    assert trial.inputs[0].dtype == torch.float16
    assert trial.output_dtypes == ["float16", "int32"]  # not the float32 the reference ran in
