"""The TopK high-level API and its host tiling helpers (tests/emu/cpp/topk.cpp) against torch.topk
and the documented rules (AscendC API reference, TopK atlasascendc_api_07_0836 and TopK Tiling
_0837): Normal mode rows of k_pad values and kpad_index indices with the lanes past k untouched,
Small mode rows of k, largest and smallest, generated or given indices (one shared row in
Normal mode, one per row in Small mode), finishLocal rows indexed n, the documented order of
equal values, +inf and NaN, and the documented misuses."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from emu_device_support import from_bytes, marker_line

TORCH = {"float32": torch.float32, "float16": torch.float16}
SENTINEL_VALUE, SENTINEL_INDEX = 7.0, -7


def k_pad(k: int, dtype: str) -> int:
    per_block = 32 // torch.finfo(TORCH[dtype]).bits * 8
    return -(-k // per_block) * per_block


def run_topk(
    emu_build,
    run_program,
    case: str,
    dtype: str,
    x: torch.Tensor,
    *,
    n: int,
    k: int,
    largest: bool = True,
    idx: torch.Tensor | None = None,
    finish: list[bool] | None = None,
    tmp: bool = True,
):
    outter, inner = x.shape
    config = ",".join(
        str(int(v))
        for v in (outter, inner, n, k, largest, idx is not None, finish is not None, tmp)
    )
    index = idx if idx is not None else torch.zeros(outter, inner, dtype=torch.int32)
    fin = torch.zeros(32, dtype=torch.uint8)
    fin[: len(finish or [])] = torch.tensor(finish or [], dtype=torch.uint8)
    return run_program(
        emu_build("topk"),
        [case, dtype, config, "{x}", "{idx}", "{fin}", "{out:values}", "{out:indices}", "{report}"],
        {"x": x.to(TORCH[dtype]), "idx": index.expand(outter, inner).contiguous(), "fin": fin},
    )


def padded_scores(
    dtype: str, outter: int, inner: int, n: int, largest: bool, seed: int
) -> torch.Tensor:
    """Rows of distinct values (exact in half too, so torch.topk's order is the only one) whose
    lanes past n hold the documented padding: the type's lowest value when the largest are
    wanted, its highest otherwise."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.stack([torch.randperm(inner, generator=gen) for _ in range(outter)])
    x = ((x - inner // 2) * 0.5).to(TORCH[dtype])
    info = torch.finfo(TORCH[dtype])
    x[:, n:] = info.min if largest else info.max
    return x


def outputs(
    res, dtype: str, outter: int, stride_v: int, stride_i: int
) -> tuple[torch.Tensor, torch.Tensor]:
    values = from_bytes(res.outputs["values"], dtype)[: outter * stride_v]
    indices = from_bytes(res.outputs["indices"], "int32")[: outter * stride_i]
    return values.view(outter, stride_v), indices.view(outter, stride_i)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("largest", [True, False], ids=["largest", "smallest"])
@pytest.mark.parametrize("given_index", [False, True], ids=["generated", "given"])
@pytest.mark.parametrize("tmp", [True, False], ids=["tmpLocal", "internal"])
def test_normal_mode_matches_torch_topk(
    emu_build, run_program, dtype: str, largest: bool, given_index: bool, tmp: bool
) -> None:
    outter, inner, n, k = 3, 64, 50, 5
    x = padded_scores(dtype, outter, inner, n, largest, seed=7)
    idx = (1000 + 3 * torch.arange(inner, dtype=torch.int32)) if given_index else None
    res = run_topk(
        emu_build, run_program, "normal", dtype, x, n=n, k=k, largest=largest, idx=idx, tmp=tmp
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("tiling 1 tmp 1"), res.stdout
    values, indices = outputs(res, dtype, outter, k_pad(k, dtype), -(-k // 8) * 8)
    want = torch.topk(x[:, :n].float(), k, dim=1, largest=largest, sorted=True)
    torch.testing.assert_close(values[:, :k].float(), want.values, rtol=0, atol=0)
    positions = want.indices.to(torch.int32)
    expected = idx[positions.long()] if idx is not None else positions
    assert torch.equal(indices[:, :k], expected)
    # the lanes past k are not filled (documented "random values"): they keep what they held
    assert torch.all(values[:, k:].float() == SENTINEL_VALUE)
    assert torch.all(indices[:, k:] == SENTINEL_INDEX)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("given_index", [False, True], ids=["generated", "given"])
def test_small_mode_rows_of_k_back_to_back(
    emu_build, run_program, dtype: str, given_index: bool
) -> None:
    """The documented Small-mode example's shape: (4, 17) padded to 32, the 8 largest of each."""
    outter, inner, n, k = 4, 32, 17, 8
    x = padded_scores(dtype, outter, inner, n, largest=True, seed=8)
    # Small mode reads one index row per row
    idx = torch.arange(outter * inner, dtype=torch.int32).view(outter, inner)
    if not given_index:
        idx = None
    res = run_topk(emu_build, run_program, "small", dtype, x, n=n, k=k, idx=idx)
    assert res.returncode == 0, res.stderr
    values, indices = outputs(res, dtype, outter, k, k)
    want = torch.topk(x[:, :n].float(), k, dim=1)
    torch.testing.assert_close(values.float(), want.values, rtol=0, atol=0)
    expected = want.indices.to(torch.int32)
    if idx is not None:
        expected = torch.gather(idx, 1, want.indices)
    assert torch.equal(indices, expected)


def test_finished_rows_get_index_n(emu_build, run_program) -> None:
    outter, inner, n, k = 3, 32, 30, 4
    x = padded_scores("float32", outter, inner, n, largest=False, seed=9)
    res = run_topk(
        emu_build,
        run_program,
        "normal",
        "float32",
        x,
        n=n,
        k=k,
        largest=False,
        finish=[False, True, False],
    )
    assert res.returncode == 0, res.stderr
    values, indices = outputs(res, "float32", outter, 8, 8)
    want = torch.topk(x[:, :n], k, dim=1, largest=False)
    torch.testing.assert_close(values[:, :k], want.values, rtol=0, atol=0)
    assert torch.equal(indices[1, :k], torch.full((k,), n, dtype=torch.int32))
    assert torch.equal(indices[[0, 2], :k], want.indices[[0, 2]].to(torch.int32))


@pytest.mark.parametrize("largest", [True, False], ids=["largest", "smallest"])
def test_documented_order_of_ties_inf_and_nan(emu_build, run_program, largest: bool) -> None:
    """Equal values: the earlier one first; +inf the largest; NaN first either way."""
    row = [2.0, 5.0, float("nan"), 5.0, float("inf"), 2.0, float("-inf"), float("nan")]
    x = torch.tensor([row * 4], dtype=torch.float32)  # inner 32, all valid
    k = 32
    res = run_topk(emu_build, run_program, "normal", "float32", x, n=32, k=k, largest=largest)
    assert res.returncode == 0, res.stderr
    values, indices = outputs(res, "float32", 1, k, k)
    v = x[0].numpy()
    nan = np.flatnonzero(np.isnan(v))
    rest = np.flatnonzero(~np.isnan(v))
    key = -v[rest] if largest else v[rest]
    order = np.concatenate([nan, rest[np.argsort(key, kind="stable")]])
    assert indices[0].tolist() == order.tolist()
    np.testing.assert_array_equal(values[0].numpy(), v[order])


@pytest.mark.parametrize(
    ("case", "small", "code", "words"),
    [
        ("k_over_n", False, "param-range", "k is 31"),
        ("inner_40", False, "param-range", "multiple of 32"),
        ("small_finish", True, "param-range", "isHasfinish"),
        ("tmp_short", False, "workspace-size", "tmpLocal"),
        ("in_place", False, "operand-overlap", "not even in place"),
        ("unfilled", False, "tiling-mismatch", "not filled"),
    ],
)
def test_documented_misuses_are_reported(
    emu_build, run_program, case: str, small: bool, code: str, words: str
) -> None:
    x = padded_scores("float32", 2, 32, 30, largest=True, seed=10)
    finish = [False, False] if case == "small_finish" else None
    res = run_topk(emu_build, run_program, case, "float32", x, n=30, k=4, finish=finish)
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == code and words in err["message"], err
    marker = "TOPK_IN_PLACE" if case == "in_place" else "TOPK_TMP"
    assert err["line"] == marker_line("topk.cpp", marker), err
    if case == "unfilled":  # TopKTilingFunc and GetTopKMaxMinTmpSize refused inner 48
        assert res.stdout.startswith("tiling 0 tmp 0"), res.stdout


def test_the_tiling_shape_wins_over_a_smaller_topk_info(emu_build, run_program) -> None:
    """xllm-ops beam_search: the NPU sorts the tiling's inner, lanes past topKInfo.inner too."""
    x = torch.full((1, 64), -100.0)
    x[0, :32] = torch.arange(32, dtype=torch.float32)
    x[0, 40] = 1000.0  # past topKInfo.inner (32), inside the tiling's 64
    res = run_topk(emu_build, run_program, "short_info", "float32", x, n=32, k=2)
    assert res.returncode == 0, res.stderr
    values, indices = outputs(res, "float32", 1, 8, 8)
    assert values[0, :2].tolist() == [1000.0, 31.0] and indices[0, :2].tolist() == [40, 31]
    assert [w["code"] for w in res.report["warnings"]] == ["tiling-mismatch"]
