"""Project discovery: msopgen layout, single files, and clear errors for everything else."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascend_tools.project import ProjectError, find_entry, kernel_name, load_project

EXAMPLES = Path(__file__).resolve().parents[2] / "bench" / "examples"


def test_msopgen_project_is_described() -> None:
    project = load_project(EXAMPLES / "leaky_relu")
    assert project.layout == "msopgen"
    assert project.op_name == "leaky_relu_custom" and project.op_type == "LeakyReluCustom"
    assert project.kernel_file == Path("op_kernel/leaky_relu_custom.cpp")
    assert project.host_files == [Path("op_host/leaky_relu_custom.cpp")]
    assert project.tiling_header == Path("op_host/leaky_relu_custom_tiling.h")
    assert project.entry.name == "leaky_relu_custom"
    assert project.entry.params == ["x", "y", "workspace", "tiling"]
    assert Path("op_host/leaky_relu_custom_tiling.h") in project.sources


def test_entry_scan_ignores_comments_strings_and_device_helpers() -> None:
    text = """
// extern "C" __global__ __aicore__ void commented(GM_ADDR a) {}
const char* s = "__global__ __aicore__ void in_string(int x) {";
__aicore__ inline void helper(int a) {}
extern "C" __global__ __aicore__ void real_one(GM_ADDR x,
        GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
}
"""
    entry = find_entry(text)
    assert entry is not None
    assert entry.name == "real_one"
    assert entry.params == ["x", "y", "workspace", "tiling"]
    assert entry.line == 5


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match="project not found"):
        load_project(tmp_path / "nope")


def test_directory_without_kernel(tmp_path: Path) -> None:
    (tmp_path / "notes.cpp").write_text("int main() { return 0; }\n")
    with pytest.raises(ProjectError, match="no kernel found"):
        load_project(tmp_path)


def test_op_kernel_without_entry(tmp_path: Path) -> None:
    (tmp_path / "op_kernel").mkdir()
    (tmp_path / "op_kernel" / "k.cpp").write_text("__aicore__ void f() {}\n")
    with pytest.raises(ProjectError, match="no kernel entry"):
        load_project(tmp_path)


def test_msopgen_project_without_host(tmp_path: Path) -> None:
    (tmp_path / "op_kernel").mkdir()
    (tmp_path / "op_kernel" / "k.cpp").write_text(
        'extern "C" __global__ __aicore__ void k(GM_ADDR x) {}\n'
    )
    with pytest.raises(ProjectError, match="no host sources"):
        load_project(tmp_path)


def _two_op_project(root: Path, config: str | None) -> Path:
    (root / "op_kernel").mkdir(parents=True)
    (root / "op_host").mkdir()
    for op in ("pair_a", "pair_b"):
        (root / "op_kernel" / f"{op}.cpp").write_text(
            f'extern "C" __global__ __aicore__ void {op}(GM_ADDR x, GM_ADDR y) {{}}\n'
        )
        (root / "op_host" / f"{op}.cpp").write_text("// host\n")
    if config is not None:
        (root / "kernelgen.toml").write_text(config)
    return root


def test_project_with_several_ops_names_the_others_and_the_config_picks_one(
    tmp_path: Path,
) -> None:
    # #8: DrivingSDK keeps boxes_overlap_bev and boxes_overlap_bev_v1 in one op folder; before,
    # the loader silently took whichever kernel sorted first.
    first = load_project(_two_op_project(tmp_path / "plain", None))
    assert (first.op_name, first.other_ops) == ("pair_a", ["pair_b"])
    chosen = load_project(_two_op_project(tmp_path / "chosen", 'op = "pair_b"\n'))
    assert chosen.op_name == "pair_b" and chosen.kernel_file == Path("op_kernel/pair_b.cpp")
    assert chosen.other_ops == ["pair_a"]
    with pytest.raises(ProjectError, match=r"op = 'pair_c'.*pair_a, pair_b"):
        load_project(_two_op_project(tmp_path / "wrong", 'op = "pair_c"\n'))


def test_opdef_with_an_acronym_in_its_type_is_the_op_of_its_snake_case_kernel(
    tmp_path: Path,
) -> None:
    """DrivingSDK registers BEVPoolV2 and BEVPoolV2Grad in one host file for the kernel
    bev_pool_v2: the project's op is the one whose snake-case name is the kernel's."""
    (tmp_path / "op_kernel").mkdir()
    (tmp_path / "op_host").mkdir()
    (tmp_path / "op_kernel" / "bev_pool_v2.cpp").write_text(
        'extern "C" __global__ __aicore__ void bev_pool_v2(GM_ADDR x) {}\n'
    )
    (tmp_path / "op_host" / "bev_pool.cpp").write_text("// OpDefs\n")
    project = load_project(tmp_path)
    assert project.is_op("BEVPoolV2")
    assert not project.is_op("BEVPoolV2Grad") and not project.is_op("BevPool")
    assert project.is_op("BevPoolV2")  # the plain capitalisation still names it
    assert [
        kernel_name(t) for t in ("AddCustom", "RoipointPool3dForward", "KNN", "Nms3dNormal")
    ] == [
        "add_custom",
        "roipoint_pool3d_forward",
        "knn",
        "nms3d_normal",
    ]


def test_tiling_header_is_the_one_registering_the_op(tmp_path: Path) -> None:
    """A folder with a forward and a grad op (DrivingSDK's scatter_mean): the forward's struct
    lives in `scatter_mean.h`, registered for ScatterMean, beside the grad's
    `scatter_mean_grad_tiling.h`; the kernel is built with the header that registers its op."""
    (tmp_path / "op_kernel").mkdir()
    (tmp_path / "op_host").mkdir()
    (tmp_path / "op_kernel" / "scatter_mean.cpp").write_text(
        'extern "C" __global__ __aicore__ void scatter_mean(GM_ADDR x, GM_ADDR y, '
        "GM_ADDR workspace, GM_ADDR tiling) {}\n")
    (tmp_path / "op_host" / "scatter_mean.cpp").write_text('#include "scatter_mean.h"\n')

    def header(op: str) -> str:
        return (f"namespace optiling {{\nBEGIN_TILING_DATA_DEF({op}TilingData)\n"
                f"TILING_DATA_FIELD_DEF(uint32_t, n);\nEND_TILING_DATA_DEF;\n"
                f"REGISTER_TILING_DATA_CLASS({op}, {op}TilingData)\n}}\n")

    (tmp_path / "op_host" / "scatter_mean.h").write_text(header("ScatterMean"))
    (tmp_path / "op_host" / "scatter_mean_grad_tiling.h").write_text(header("ScatterMeanGrad"))
    assert load_project(tmp_path).tiling_header == Path("op_host/scatter_mean.h")
    (tmp_path / "op_host" / "scatter_mean.h").write_text(header("Other"))
    assert load_project(tmp_path).tiling_header == Path("op_host/scatter_mean_grad_tiling.h")
