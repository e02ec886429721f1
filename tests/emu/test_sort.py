"""The Atlas A2 (score, index) sorting APIs chained as real kernels use them (Sort32, MrgSort in
both forms, Extract, the full Sort, also on Concat's copy; tests/emu/cpp/sort.cpp) against numpy:
a full descending sort of N scores whose tail past a multiple of 32 the kernel pads with -inf,
equal scores in index order (the documented tie order of Sort32 and Sort; MrgSort here puts the
earlier list first), the documented 8-byte layout, MrgSort's repeats over back-to-back lists, its
exhausted-suspension mode with sortedNum, and the common operand checks."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from emu_device_support import from_bytes

NP = {"float32": np.float32, "float16": np.float16}
CAP = 256


def run_sort(emu_build, run_program, case: str, dtype: str, x: np.ndarray):
    n = len(x)
    full = np.full(CAP, 1e4, dtype=NP[dtype])  # junk past N: the kernel must replace it with -inf
    full[:n] = x
    idx = torch.arange(CAP, dtype=torch.int32)  # uint32 indices 0..255, same bytes
    res = run_program(
        emu_build("sort"),
        [case, dtype, str(n), "{x}", "{idx}", "{out:values}", "{out:indices}", "{report}"],
        {"x": torch.from_numpy(full), "idx": idx},
    )
    return res


def outputs(res, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    values = from_bytes(res.outputs["values"], dtype).numpy()
    indices = from_bytes(res.outputs["indices"], "uint32").numpy()
    return values, indices


def scores(dtype: str, n: int, ties: bool, seed: int) -> np.ndarray:
    gen = np.random.default_rng(seed)
    if ties:  # few distinct values: ties inside each group of 32 and across groups
        return gen.integers(-6, 6, n).astype(NP[dtype])
    return gen.normal(0, 10, n).astype(NP[dtype])


def reference(x: np.ndarray) -> np.ndarray:
    """Positions of x sorted descending, equal scores in index order."""
    return np.argsort(-x.astype(np.float64), kind="stable")


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("ties", [False, True], ids=["random", "ties"])
@pytest.mark.parametrize(
    ("case", "n"),
    [("merge4", 100), ("repeat2", 250), ("full_sort", 250), ("concat_sort", 250)],
)
def test_full_sort_matches_numpy(
    emu_build, run_program, case: str, n: int, dtype: str, ties: bool
) -> None:
    x = scores(dtype, n, ties, seed=n)
    res = run_sort(emu_build, run_program, case, dtype, x)
    assert res.returncode == 0, res.stderr
    values, indices = outputs(res, dtype)
    order = reference(x)
    np.testing.assert_array_equal(indices[:n], order)
    np.testing.assert_array_equal(values[:n], x[order])
    # the padded tail sorts last, as -inf, with its own indices in order
    padded = -(-n // 32) * 32
    assert np.all(np.isneginf(values[n:padded]))
    np.testing.assert_array_equal(indices[n:padded], np.arange(n, padded))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("case", ["suspend", "suspend_info"])
def test_exhausted_suspension_stops_at_the_first_empty_list(
    emu_build, run_program, dtype: str, case: str
) -> None:
    # sortedNum of the separate-parameter form, or GetMrgSortResult after the MrgSort4Info form
    x = scores(dtype, 64, ties=True, seed=5)
    res = run_sort(emu_build, run_program, case, dtype, x)
    assert res.returncode == 0, res.stderr
    # the merge of the two sorted halves stops once one half has been taken entirely
    order = reference(x)
    last_of = [int(np.max(np.nonzero(order < 32)[0])), int(np.max(np.nonzero(order >= 32)[0]))]
    taken = order[: min(last_of) + 1]
    expected = [int(np.sum(taken < 32)), int(np.sum(taken >= 32)), 0, 0]
    line = next(s for s in res.stdout.splitlines() if s.startswith("sortedNum"))
    assert [int(v) for v in line.split()[1:]] == expected
    values, indices = outputs(res, dtype)
    np.testing.assert_array_equal(indices[: len(taken)], taken)
    np.testing.assert_array_equal(values[: len(taken)], x[taken])


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_sort32_writes_the_documented_8_byte_structures(emu_build, run_program, dtype: str) -> None:
    """Score in the low bytes (half: 2 bytes, then 2 reserved), uint32 index in the high 4."""
    x = scores(dtype, 32, ties=True, seed=9)
    res = run_sort(emu_build, run_program, "layout", dtype, x)
    assert res.returncode == 0, res.stderr
    raw = np.frombuffer(res.outputs["values"][: 32 * 8], dtype=np.uint8).reshape(32, 8)
    size = np.dtype(NP[dtype]).itemsize
    order = reference(x)
    np.testing.assert_array_equal(raw[:, :size].copy().view(NP[dtype]).ravel(), x[order])
    np.testing.assert_array_equal(raw[:, 4:].copy().view(np.uint32).ravel(), order)


def test_bad_valid_bit_is_reported(emu_build, run_program) -> None:
    res = run_sort(emu_build, run_program, "bad_valid", "float32", scores("float32", 128, False, 1))
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == "param-range" and "validBit" in err["message"], err


@pytest.mark.parametrize(
    ("case", "code"), [("overlap", "operand-overlap"), ("no_sync", "pipe-hazard")]
)
def test_operand_checks_cover_sort32(emu_build, run_program, case: str, code: str) -> None:
    """Sort32's operands go through the common checks: partial src/dst overlap, and a vector
    read of data MTE2 is still copying in without a sync."""
    res = run_sort(emu_build, run_program, case, "float32", scores("float32", 128, False, 2))
    assert res.returncode == 3, res.stderr
    assert res.report["errors"][0]["code"] == code, res.report["errors"]
