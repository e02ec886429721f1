"""Single-file kernels (case `op -`): parameter binding by count, block_dim from the case, the
empty tiling buffer, and the compile-time message when GET_TILING_DATA has no struct."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ascend_tools.chips import get_chip
from ascend_tools.runner.case import chip_fields

from . import emu_build


@pytest.fixture(scope="module")
def single_bin() -> Path:
    return emu_build.single_file_binary()


def run_single(binary: Path, work: Path, kernel: str, block_dim: int | None) -> tuple[int, str]:
    x = np.arange(64, dtype=np.float32)
    x.tofile(work / "x.bin")
    lines = ["chip " + " ".join(chip_fields(get_chip())), "op -", f"kernel {kernel}"]
    if block_dim is not None:
        lines.append(f"block_dim {block_dim}")
    lines += ["input x float32 1 64 x.bin", "output y float32 1 64 y.bin"]
    (work / "case.txt").write_text("\n".join(lines) + "\n")
    res = subprocess.run(
        [binary, "case.txt", "report.json"], cwd=work, capture_output=True, text=True, timeout=60
    )
    return res.returncode, res.stderr


def test_single_file_kernel_gets_workspace_and_empty_tiling(
    single_bin: Path, tmp_path: Path
) -> None:
    rc, err = run_single(single_bin, tmp_path, "copy_scale", 2)
    assert rc == 0, err
    y = np.fromfile(tmp_path / "y.bin", dtype=np.float32)
    np.testing.assert_array_equal(y, np.arange(64, dtype=np.float32) * 2)
    report = json.loads((tmp_path / "report.json").read_text())
    assert (report["status"], report["block_dim"], report["tiling_bytes"]) == ("ok", 2, 0)
    assert report["workspace_bytes"] == 16 * 1024 * 1024


def test_single_file_kernel_without_trailing_params(single_bin: Path, tmp_path: Path) -> None:
    rc, err = run_single(single_bin, tmp_path, "copy_plain", 2)
    assert rc == 0, err
    y = np.fromfile(tmp_path / "y.bin", dtype=np.float32)
    expected = np.arange(64, dtype=np.float32) + np.repeat([0.0, 1.0], 32).astype(np.float32)
    np.testing.assert_array_equal(y, expected)


def test_single_file_block_dim_defaults_to_one(single_bin: Path, tmp_path: Path) -> None:
    rc, err = run_single(single_bin, tmp_path, "copy_plain", None)
    assert rc == 0, err
    y = np.fromfile(tmp_path / "y.bin", dtype=np.float32)
    assert (y[:32] == np.arange(32)).all()
    assert np.isnan(y[32:]).all()  # the second half was never written: 0xFF bytes read as NaN


def test_single_file_block_dim_out_of_range_fails(single_bin: Path, tmp_path: Path) -> None:
    rc, _ = run_single(single_bin, tmp_path, "copy_plain", 70000)
    assert rc == 3
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["errors"][0]["code"] == "block-dim"


def test_describe_without_host_objects_lists_no_ops(single_bin: Path, tmp_path: Path) -> None:
    out = tmp_path / "d.json"
    res = subprocess.run([single_bin, "--describe", out], capture_output=True, text=True)
    assert res.returncode == 0
    assert json.loads(out.read_text()) == {"ops": []}


def test_get_tiling_data_without_a_struct_names_the_fix() -> None:
    res = emu_build.syntax_check(
        '#include "kernel_tiling/kernel_tiling.h"\n'
        "void k(uint8_t* tiling) { GET_TILING_DATA(td, tiling); (void)td; }\n"
    )
    assert res.returncode != 0
    assert "REGISTER_TILING_DATA_CLASS" in res.stderr and "REGISTER_TILING_DEFAULT" in res.stderr


VENDOR_HOST_HEADERS = [
    "register/tilingdata_base.h",
    "register/op_def_registry.h",
    "register/op_impl_registry.h",
    "tiling/platform/platform_ascendc.h",
    "tiling/tiling_api.h",
    "graph/utils/type_utils.h",
    "platform/platform_info.h",
    "exe_graph/runtime/tiling_context.h",
    "exe_graph/runtime/shape.h",
    "kernel_tiling/kernel_tiling.h",
]


@pytest.mark.parametrize("device_first", [True, False])
def test_host_headers_compile_in_one_unit_with_the_device_header(device_first: bool) -> None:
    device = ["kernel_operator.h", "lib/matmul_intf.h"]
    order = [*device, *VENDOR_HOST_HEADERS] if device_first else [*VENDOR_HOST_HEADERS, *device]
    includes = "".join(f'#include "{h}"\n' for h in order)
    res = emu_build.syntax_check(
        includes + "using namespace AscendC;\n"
        "TCubeTiling cube; SoftMaxTiling sm;\n"
        "int main() { return static_cast<int>(sizeof(cube) + sizeof(sm)); }\n"
    )
    assert res.returncode == 0, res.stderr


def test_mix_kernel_runs_an_aic_and_two_aivs_per_block(tmp_path: Path) -> None:
    binary = emu_build.mix_single_binary()
    rc, err = run_single(binary, tmp_path, "mix_scale", 2)
    assert rc == 0, err
    y = np.fromfile(tmp_path / "y.bin", dtype=np.float32)
    scale = np.repeat([10.0, 11.0], 32).astype(np.float32)  # AIVs 0, 1 -> block 0; 2, 3 -> block 1
    np.testing.assert_array_equal(y, np.arange(64, dtype=np.float32) * scale)
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["block_dim"] == 2
    assert len(report["counters"]["per_block"]) == 6  # 2 AICs + 4 AIVs


def test_mix_kernel_block_dim_above_the_cube_cores_is_an_error(tmp_path: Path) -> None:
    binary = emu_build.mix_single_binary()
    rc, err = run_single(binary, tmp_path, "mix_scale", get_chip().cube_cores + 1)
    assert rc == 3, err
    [e] = json.loads((tmp_path / "report.json").read_text())["errors"]
    assert e["code"] == "block-dim"
    source = (emu_build.HERE / "fixtures" / "single" / "mix_scale.cpp").read_text().splitlines()
    assert e["file"].endswith("mix_scale.cpp")
    assert "KERNEL_TASK_TYPE_DEFAULT" in source[e["line"] - 1]
