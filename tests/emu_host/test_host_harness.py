"""Host side of the emulator (tiling macros, gert contexts, OpDef, platform, tiling API) and the
run harness, exercised through the fixture op `ScaleAddCustom` (tests/emu_host/fixtures)."""

from __future__ import annotations

import json
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ascend_tools.chips import Chip, all_chips, get_chip
from ascend_tools.runner.case import chip_fields

from . import emu_build

SYS_WS = 16 * 1024 * 1024
TILING_BYTES = 264  # sizeof(ScaleAddTilingData), checked by static_assert in cpp/host_api_check.cpp


@pytest.fixture(scope="module")
def check_bin() -> Path:
    return emu_build.check_binary()


@pytest.fixture(scope="module")
def run_bin() -> Path:
    return emu_build.SCALE_ADD.run_binary()


@pytest.fixture(scope="module")
def describe() -> dict:
    out = Path(emu_build.CACHE) / "describe.json"
    res = subprocess.run(
        [emu_build.SCALE_ADD.describe_binary(), "--describe", out], capture_output=True, text=True
    )
    assert res.returncode == 0, res.stderr
    return {op["name"]: op for op in json.loads(out.read_text())["ops"]}


class CaseRun:
    """One harness run in a temp dir: writes inputs and case.txt, runs, reads outputs/report."""

    def __init__(self, binary: Path, work: Path) -> None:
        self.binary = binary
        self.work = work

    def __call__(
        self, lines: list[str], inputs: dict[str, np.ndarray]
    ) -> subprocess.CompletedProcess:
        for name, arr in inputs.items():
            (self.work / f"{name}.bin").write_bytes(arr.tobytes())
        (self.work / "case.txt").write_text("\n".join(lines) + "\n")
        return subprocess.run(
            [self.binary, "case.txt", "report.json"],
            cwd=self.work,
            capture_output=True,
            text=True,
            timeout=120,
        )

    def report(self) -> dict:
        return json.loads((self.work / "report.json").read_text())

    def output(self, name: str, dtype: str) -> np.ndarray:
        return np.fromfile(self.work / f"{name}.bin", dtype=dtype)


@pytest.fixture
def run_case(run_bin: Path, tmp_path: Path) -> CaseRun:
    return CaseRun(run_bin, tmp_path)


def tensor_line(kind: str, name: str, dtype: str, shape: tuple[int, ...]) -> str:
    return " ".join([kind, name, dtype, str(len(shape)), *map(str, shape), f"{name}.bin"])


def scale_add_case(
    chip: Chip,
    *,
    op: str = "ScaleAddCustom",
    mode: int | None = 0,
    x_dtype: str = "float32",
    shape: tuple[int, ...] = (4, 37),
    bias: bool = False,
    attrs: list[str] | None = None,
) -> list[str]:
    n = int(np.prod(shape))
    lines = [
        "chip " + " ".join(chip_fields(chip)),
        f"op {op}",
        "kernel scale_add_custom",
        tensor_line("input", "x", x_dtype, shape),
        tensor_line("input", "y", "float32", shape),
    ]
    if bias:
        lines.append(tensor_line("input", "bias", "float32", (n,)))
    lines += [
        tensor_line("output", "z", "float32", shape),
        tensor_line("output", "t", "uint8", (TILING_BYTES,)),
    ]
    if attrs is not None:
        lines += attrs
    elif mode is not None:
        lines += [
            "attr alpha float 0.5",
            f"attr mode int {mode}",
            "attr flag bool 1",
            "attr tag str hello",
            "attr dims list_int 2 11 -12",
            "attr weights list_float 3 1.0 -2.5 3.0",
        ]
    return lines


def inputs_for(
    shape: tuple[int, ...], x_dtype: str = "float32", bias: bool = False
) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    ins = {
        "x": rng.standard_normal(shape).astype(x_dtype),
        "y": rng.standard_normal(shape).astype("float32"),
    }
    if bias:
        ins["bias"] = rng.standard_normal(int(np.prod(shape))).astype("float32")
    return ins


def unpack_tiling(raw: bytes) -> dict:
    """ScaleAddTilingData at the offsets natural alignment gives (see the tiling header)."""
    return {
        "flag": raw[0],
        "mode": struct.unpack_from("<H", raw, 2)[0],
        "totalLength": struct.unpack_from("<I", raw, 4)[0],
        "bigValue": struct.unpack_from("<Q", raw, 8)[0],
        "alpha": struct.unpack_from("<f", raw, 16)[0],
        "dims": list(struct.unpack_from("<3i", raw, 20)),
        "coreNum": struct.unpack_from("<I", raw, 32)[0],
        "inner": struct.unpack_from("<HxxI", raw, 40),
        "weight1": struct.unpack_from("<f", raw, 48)[0],
        "ubSize": struct.unpack_from("<I", raw, 52)[0],
        "tagLen": struct.unpack_from("<b", raw, 56)[0],
        "mm_M_N_Ka": struct.unpack_from("<3i", raw, 64 + 4),
    }


# ---------------------------------------------------------------- host API (check program)
def run_check(check_bin: Path, chip: Chip) -> dict:
    res = subprocess.run(
        [check_bin, *chip_fields(chip)], capture_output=True, text=True, timeout=60
    )
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def test_tiling_struct_accessors_round_trip_through_save_to_buffer(check_bin: Path) -> None:
    out = run_check(check_bin, get_chip())
    assert out["roundtrip"] == [4, 6, 9, 42, 9]
    assert out["data_size"] == TILING_BYTES


@pytest.mark.parametrize("name", sorted(all_chips()))
def test_platform_ascendc_reports_the_case_chip(check_bin: Path, name: str) -> None:
    chip = get_chip(name)
    out = run_check(check_bin, chip)
    assert (out["aic"], out["aiv"], out["core_num"]) == (
        chip.cube_cores,
        chip.vector_cores,
        chip.vector_cores,
    )
    assert (out["ub"], out["l1"], out["l0a"], out["l0b"], out["l0c"]) == (
        chip.ub_bytes,
        chip.l1_bytes,
        chip.l0a_bytes,
        chip.l0b_bytes,
        chip.l0c_bytes,
    )
    assert out["res_ai_core_cnt"] == str(chip.cube_cores)
    assert out["lib_ws"] == SYS_WS
    expected_soc = {"ascend910": 0, "ascend910_93": 2, "ascend310p": 3, "ascend310b": 4}.get(
        name, 1
    )
    assert out["soc_version"] == expected_soc
    assert out["short_soc"].lower() == ("ascend910b" if expected_soc == 1 else name)
    # a 1:2 mix kernel over 40 slices launches 20 blocks on split chips, 40 elsewhere
    assert out["tsch_mix"] == (20 if chip.split_cores else 40)


def test_matmul_api_tiling_splits_over_cores_and_fits_l0(check_bin: Path) -> None:
    chip = get_chip("ascend910b2")
    out = run_check(check_bin, chip)
    mm = out["mm"]
    assert out["mm_ret"] == 0
    assert (mm["M"], mm["N"], mm["Ka"], mm["isBias"]) == (1024, 512, 256, 1)
    assert 1 < mm["usedCoreNum"] <= chip.cube_cores
    cores_m = -(-1024 // mm["singleCoreM"])
    cores_n = -(-512 // mm["singleCoreN"])
    assert cores_m * cores_n == mm["usedCoreNum"]
    assert mm["singleCoreK"] == 256
    assert mm["baseM"] * mm["baseK"] * 2 * 2 <= chip.l0a_bytes  # half, double-buffered
    assert mm["baseN"] * mm["baseK"] * 2 * 2 <= chip.l0b_bytes
    assert mm["baseM"] * mm["baseN"] * 4 <= chip.l0c_bytes
    assert mm["baseK"] % 16 == 0
    assert out["unset_ret"] == -1  # GetTiling without operand types fails


def test_softmax_tiling_splits_rows_by_workspace(check_bin: Path) -> None:
    out = run_check(check_bin, get_chip())
    assert out["softmax"] == {"splitM": 4, "rangeM": 1, "tailM": 2}


def test_elementwise_tmp_sizes_cover_the_float_working_copy(check_bin: Path) -> None:
    out = run_check(check_bin, get_chip())
    # half input: float image + float copy of the source; float input: one float image
    assert out["sigmoid"] == [8000, 512, 4000, 256]


def test_broadcast_tmp_sizes_are_allocatable(check_bin: Path) -> None:
    out = run_check(check_bin, get_chip())
    # [4, 1] -> [4, 20] half: at most one aligned image of dst (160 -> 160 bytes), at least 32
    assert out["broadcast"] == [160, 32]


def test_gert_shape_and_type_utils(check_bin: Path) -> None:
    out = run_check(check_bin, get_chip())
    assert (out["shape_size"], out["shape_dims"], out["scalar_size"]) == (120, 4, 1)
    assert (out["dt_name"], out["dt_back"]) == ("DT_BF16", 1)


# ---------------------------------------------------------------- describe
def test_describe_lists_inputs_outputs_attrs_and_configs(describe: dict) -> None:
    op = describe["ScaleAddCustom"]
    ins = {t["name"]: t for t in op["inputs"]}
    outs = {t["name"]: t for t in op["outputs"]}
    assert [t["name"] for t in op["inputs"]] == ["x", "y", "bias"]
    assert ins["x"] == {
        "name": "x",
        "param_type": "required",
        "dtypes": ["float32", "float16"],
        "formats": ["ND", "ND"],
        "init_value": None,
    }
    assert ins["bias"]["param_type"] == "optional"
    assert ins["bias"]["dtypes"] == [
        "float32",
        "float32",
    ]  # DataTypeList applies to every combination
    assert outs["z"]["dtypes"] == ["float32", "float16"]  # Follow("x")
    assert outs["t"]["dtypes"] == ["uint8", "uint8"]
    attrs = {a["name"]: a for a in op["attrs"]}
    assert attrs["alpha"] == {"name": "alpha", "type": "float", "required": False, "default": "1.0"}
    assert attrs["mode"] == {"name": "mode", "type": "int", "required": True, "default": None}
    assert (attrs["flag"]["type"], attrs["flag"]["default"]) == ("bool", "false")
    assert (attrs["tag"]["type"], attrs["tag"]["default"]) == ("str", "none")
    assert (attrs["dims"]["type"], attrs["dims"]["default"]) == ("list_int", "[1,2,3]")
    assert (attrs["weights"]["type"], attrs["weights"]["default"]) == ("list_float", "[0.5,0.25]")
    assert op["configs"] == ["ascend910b", "ascend310p"]
    assert describe["ScaleAddParsed"]["configs"] == ["ascend910b"]


def test_data_type_lists_combine_with_every_other_parameters_types(describe: dict) -> None:
    op = describe["ListCombos"]
    ins = {t["name"]: t["dtypes"] for t in op["inputs"]}
    assert ins["index"] == ["int64", "int32"] * 3
    assert ins["values"] == ["int64", "int64", "int32", "int32", "float32", "float32"]
    assert [t["dtypes"] for t in op["outputs"]] == [ins["values"]]  # Follow("values")
    pairs = set(zip(ins["index"], ins["values"], strict=True))
    assert len(pairs) == 6


# ---------------------------------------------------------------- runs
def test_run_computes_outputs_and_reports_tiling_facts(run_case: CaseRun) -> None:
    chip = get_chip("ascend910b2")
    shape = (4, 37)
    ins = inputs_for(shape)
    res = run_case(scale_add_case(chip, shape=shape), ins)
    assert res.returncode == 0, res.stderr
    np.testing.assert_allclose(
        run_case.output("z", "float32").reshape(shape), 0.5 * ins["x"] + ins["y"], rtol=1e-6
    )
    report = run_case.report()
    assert report["status"] == "ok" and report["errors"] == []
    assert (report["block_dim"], report["chip"], report["tiling_key"]) == (4, "ascend910b2", 0)
    assert report["workspace_bytes"] == SYS_WS + 1024
    assert report["tiling_bytes"] == TILING_BYTES
    assert len(report["counters"]["per_block"]) == 4
    t = unpack_tiling(run_case.output("t", "uint8").tobytes())
    assert t["totalLength"] == 4 * 37 and t["alpha"] == 0.5 and t["mode"] == 0 and t["flag"] == 1
    assert t["dims"] == [11, -12, 0] and t["weight1"] == -2.5 and t["tagLen"] == len("hello")
    assert t["bigValue"] == 0x0102030405060708
    assert (t["coreNum"], t["ubSize"]) == (chip.vector_cores, chip.ub_bytes)
    assert t["inner"] == (7, 2)
    assert t["mm_M_N_Ka"] == (32, 48, 64)


def test_inputs_reach_tiling_in_opdef_order_whatever_the_case_order(run_case: CaseRun) -> None:
    lines = scale_add_case(get_chip(), shape=(4, 37))
    x_line = next(ln for ln in lines if ln.startswith("input x "))
    y_line = "input y float32 3 2 2 37 y.bin"  # y as [2, 2, 37]: GetInputShape(1) sees 3 dims
    lines = [ln for ln in lines if not ln.startswith(("input x ", "input y "))]
    lines.insert(3, x_line)
    lines.insert(3, y_line)
    ins = inputs_for((4, 37))
    res = run_case(lines, ins)
    assert res.returncode == 0, res.stderr
    assert unpack_tiling(run_case.output("t", "uint8").tobytes())["inner"] == (7, 3)
    np.testing.assert_allclose(
        run_case.output("z", "float32").reshape(4, 37), 0.5 * ins["x"] + ins["y"], rtol=1e-6
    )


def test_tiling_key_selects_kernel_branch_with_optional_input(run_case: CaseRun) -> None:
    shape = (64,)
    ins = inputs_for(shape, bias=True)
    res = run_case(scale_add_case(get_chip(), shape=shape, mode=1, bias=True), ins)
    assert res.returncode == 0, res.stderr
    expected = 0.5 * ins["x"] - ins["y"] + ins["bias"]
    np.testing.assert_allclose(run_case.output("z", "float32"), expected, rtol=1e-6)
    assert run_case.report()["tiling_key"] == 1


def test_attr_defaults_and_impl_op_tiling_parse(run_case: CaseRun) -> None:
    chip = get_chip("ascend910b3")
    shape = (3,)
    ins = inputs_for(shape)
    res = run_case(scale_add_case(chip, op="ScaleAddParsed", shape=shape, attrs=[]), ins)
    assert res.returncode == 0, res.stderr
    t = unpack_tiling(run_case.output("t", "uint8").tobytes())
    assert (t["alpha"], t["mode"], t["flag"], t["tagLen"]) == (2.0, 0, 1, 2)
    assert (t["dims"], t["weight1"]) == ([4, 5, 6], 2.5)
    assert t["coreNum"] == chip.cube_cores  # from the TilingParse compile info
    assert run_case.report()["block_dim"] == 1
    np.testing.assert_allclose(
        run_case.output("z", "float32"), 2.0 * ins["x"] + ins["y"], rtol=1e-6
    )


def test_tiling_func_failure_is_a_rule_failure(run_case: CaseRun) -> None:
    shape = (8,)
    res = run_case(
        scale_add_case(get_chip(), shape=shape, x_dtype="float16"), inputs_for(shape, "float16")
    )
    assert res.returncode == 3, res.stderr
    assert "only float32 is supported, got DT_FLOAT16" in res.stderr
    report = run_case.report()
    assert report["status"] == "error"
    assert [e["code"] for e in report["errors"]] == ["tiling-failed"]


@pytest.mark.parametrize(("mode", "phrase"), [(7, "outside [1, 65535]"), (8, "left blockDim at 0")])
def test_block_dim_out_of_range_fails(run_case: CaseRun, mode: int, phrase: str) -> None:
    shape = (8,)
    res = run_case(scale_add_case(get_chip(), shape=shape, mode=mode), inputs_for(shape))
    assert res.returncode == 3
    errors = run_case.report()["errors"]
    assert errors[0]["code"] == "block-dim" and phrase in errors[0]["message"]


def test_save_to_buffer_overflow_is_a_tiling_mismatch(run_case: CaseRun) -> None:
    shape = (8,)
    res = run_case(scale_add_case(get_chip(), shape=shape, mode=6), inputs_for(shape))
    assert res.returncode == 3
    err = run_case.report()["errors"][0]
    assert err["code"] == "tiling-mismatch"
    assert "ScaleAddTilingData needs 264 bytes but the buffer holds 16" in err["message"]


def test_host_code_exception_exits_4(run_case: CaseRun) -> None:
    shape = (8,)
    res = run_case(scale_add_case(get_chip(), shape=shape, mode=4), inputs_for(shape))
    assert res.returncode == 4
    assert "threw: mode 4 throws" in res.stderr


def test_block_dim_above_core_count_warns(run_case: CaseRun) -> None:
    small = get_chip("ascend310b")  # one vector core, the fixture asks for 4 blocks
    shape = (16,)
    res = run_case(scale_add_case(small, shape=shape), inputs_for(shape))
    assert res.returncode == 0, res.stderr
    report = run_case.report()
    assert [w["code"] for w in report["warnings"]] == ["block-dim"]
    assert report["block_dim"] == 4


def test_infer_shape_disagreeing_with_the_case_warns(run_case: CaseRun) -> None:
    shape = (8,)
    res = run_case(scale_add_case(get_chip(), shape=shape, mode=5), inputs_for(shape))
    assert res.returncode == 0, res.stderr
    warnings = run_case.report()["warnings"]
    assert [w["code"] for w in warnings] == ["infer-shape"]
    assert "output z the shape [1], the case expects [8]" in warnings[0]["message"]
    # Who it matters to: graph mode allocates by InferShape, the aclnn path never runs it.
    assert "graph mode (GE)" in warnings[0]["message"] and "aclnn" in warnings[0]["message"]


def test_run_without_findings_has_no_warnings(run_case: CaseRun) -> None:
    shape = (8,)
    res = run_case(scale_add_case(get_chip(), shape=shape), inputs_for(shape))
    assert res.returncode == 0, res.stderr
    assert run_case.report()["warnings"] == []


def test_short_tiling_data_size_warns_tiling_mismatch(run_case: CaseRun) -> None:
    shape = (8,)
    res = run_case(scale_add_case(get_chip(), shape=shape, mode=9), inputs_for(shape))
    assert res.returncode == 0, res.stderr
    report = run_case.report()
    assert report["tiling_bytes"] == 8
    assert any(
        w["code"] == "tiling-mismatch" and "264 bytes" in w["message"] for w in report["warnings"]
    )


def _edit(lines: list[str], prefix: str, new: str | None) -> list[str]:
    out = [ln for ln in lines if not ln.startswith(prefix)]
    return out if new is None else [*out, new]


BAD_CASES = {
    "missing chip": (lambda ls: _edit(ls, "chip ", None), "missing 'chip' line"),
    "short chip": (lambda ls: _edit(ls, "chip ", "chip ascend910b2 2201"), "expected 17 fields"),
    "unknown record": (lambda ls: [*ls, "frobnicate 1"], "unknown record 'frobnicate'"),
    "unknown dtype": (
        lambda ls: _edit(ls, "input y ", "input y float8 1 148 y.bin"),
        "unknown dtype 'float8'",
    ),
    "dims count": (
        lambda ls: _edit(ls, "input y ", "input y float32 2 148 y.bin"),
        "expected 7 fields, got 6",
    ),
    "bad integer": (
        lambda ls: _edit(ls, "input y ", "input y float32 1 1x8 y.bin"),
        "is not an integer",
    ),
    "missing file": (
        lambda ls: _edit(ls, "input y ", "input y float32 2 4 37 nope.bin"),
        "cannot read",
    ),
    "wrong size": (
        lambda ls: _edit(ls, "input y ", "input y float32 1 3 y.bin"),
        "holds 592 bytes",
    ),
    "huge tensor": (
        lambda ls: _edit(ls, "input y ", "input y float32 3 100000 100000 100000 y.bin"),
        "is too large",
    ),
    "unknown attr": (lambda ls: [*ls, "attr beta int 1"], "has no attribute 'beta'"),
    "attr type": (lambda ls: _edit(ls, "attr mode", "attr mode float 1.5"), "is int in the OpDef"),
    "missing attr": (lambda ls: _edit(ls, "attr mode", None), "lacks attribute 'mode'"),
    "list length": (lambda ls: _edit(ls, "attr dims", "attr dims list_int 3 1 2"), "list length 3"),
    "unknown op": (
        lambda ls: _edit(ls, "op ", "op NoSuchOp"),
        "registered: ScaleAddCustom, ScaleAddParsed, ListCombos",
    ),
    "unknown input": (
        lambda ls: _edit(ls, "input y ", "input w float32 2 4 37 y.bin"),
        "'w' is not an input",
    ),
    "missing input": (lambda ls: _edit(ls, "input y ", None), "lacks required input 'y'"),
    "unknown kernel": (lambda ls: _edit(ls, "kernel ", "kernel other"), "linked: scale_add_custom"),
}


@pytest.mark.parametrize("what", sorted(BAD_CASES))
def test_bad_case_file_exits_2_with_message(run_case: CaseRun, what: str) -> None:
    edit, phrase = BAD_CASES[what]
    shape = (4, 37)
    res = run_case(edit(scale_add_case(get_chip(), shape=shape)), inputs_for(shape))
    assert res.returncode == 2, (res.returncode, res.stderr)
    assert phrase in res.stderr
    assert res.stderr.startswith("harness: ")


def test_harness_usage_error(run_bin: Path) -> None:
    res = subprocess.run([run_bin], capture_output=True, text=True)
    assert res.returncode == 2 and "usage:" in res.stderr
