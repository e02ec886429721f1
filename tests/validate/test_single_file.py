"""A single kernel file binds inputs, then parameters and buffers, then outputs, in order."""

from __future__ import annotations

import shutil
from pathlib import Path

from ascend_tools.project import gm_element_types, load_project
from ascend_tools.validate import validate_project

DATA = Path(__file__).parent / "data" / "scale_rows"


def test_single_file_project_is_described() -> None:
    project = load_project(DATA / "scale_rows.cpp")
    assert project.layout == "single_file"
    assert project.entry.name == "scale_rows"
    assert project.entry.params == ["x", "weight", "bias", "y", "workspace", "tiling"]
    assert project.block_dim == 4


def test_single_file_kernel_with_parameter_and_buffer_validates() -> None:
    report = validate_project(DATA / "scale_rows.cpp", DATA / "ref.py", trials=2)
    assert report.ok, report
    assert report.counters["block_dim"] == 4


def test_parameters_bind_in_order(tmp_path: Path) -> None:
    # Swapping the kernel's weight and bias parameters must fail: binding is positional.
    shutil.copytree(DATA, tmp_path / "p")
    src = tmp_path / "p" / "scale_rows.cpp"
    src.write_text(
        src.read_text().replace(
            "GM_ADDR x, GM_ADDR weight, GM_ADDR bias,", "GM_ADDR x, GM_ADDR bias, GM_ADDR weight,"
        )
    )
    report = validate_project(src, tmp_path / "p" / "ref.py")
    assert not report.ok and report.cases[0].mismatches > 0


def test_asc_single_source_file_validates_like_a_cpp_file(tmp_path: Path) -> None:
    shutil.copytree(DATA, tmp_path / "p")
    src = tmp_path / "p" / "scale_rows.cpp"
    asc = src.rename(src.with_suffix(".asc"))
    assert load_project(tmp_path / "p").kernel_file == Path("scale_rows.asc")
    report = validate_project(asc, tmp_path / "p" / "ref.py", trials=1)
    assert report.ok, report


def test_output_dtype_comes_from_the_kernels_set_global_buffer_cast() -> None:
    # The reference runs in float32 and its input is half, so without the kernel's
    # `(__gm__ float*)y` cast the output would be sized as half and the write would overrun it.
    data = Path(__file__).parent / "data" / "widen"
    project = load_project(data / "widen.cpp")
    assert gm_element_types(project) == {"x": "half", "y": "float"}
    report = validate_project(data / "widen.cpp", data / "ref.py", trials=1)
    assert report.ok, report


def test_output_dtype_through_reinterpret_cast_and_a_class_template_parameter(
    tmp_path: Path,
) -> None:
    # Ascend/samples' matmul launches cast `reinterpret_cast<__gm__ cType *>(c)` inside a class
    # template the entry instantiates as MatmulKernel<half, half, float>: c is float.
    (tmp_path / "k.cpp").write_text(
        '#include "kernel_operator.h"\n'
        "template <typename aType, typename cType> class K {\n"
        "  public:\n"
        "    __aicore__ inline void Init(GM_ADDR a, GM_ADDR c) {\n"
        "        aG.SetGlobalBuffer(reinterpret_cast<__gm__ aType *>(a), 16);\n"
        "        cG.SetGlobalBuffer(reinterpret_cast<__gm__ cType *>(c), 16);\n"
        "    }\n"
        "    AscendC::GlobalTensor<aType> aG;\n"
        "    AscendC::GlobalTensor<cType> cG;\n"
        "};\n"
        'extern "C" __global__ __aicore__ void k(GM_ADDR a, GM_ADDR c) {\n'
        "    K<half, float> op;\n"
        "    op.Init(a, c);\n"
        "}\n"
    )
    assert gm_element_types(load_project(tmp_path / "k.cpp")) == {"a": "half", "c": "float"}


def test_output_dtype_through_the_init_function_the_entry_passes_it_to(tmp_path: Path) -> None:
    # ggml's CANN get_row kernels: the entry passes output_gm to `init(..., GM_ADDR output)`,
    # which casts `(__gm__ float *)output`; before, the output was sized as the half input.
    data = Path(__file__).parent / "data" / "widen"
    casts = (
        "    xGm.SetGlobalBuffer((__gm__ half*)x, N);\n"
        "    yGm.SetGlobalBuffer((__gm__ float*)y, N);\n"
    )
    init = (
        "__aicore__ inline void init(GM_ADDR x, GM_ADDR y, GlobalTensor<half>& xGm,\n"
        "                            GlobalTensor<float>& yGm) {\n" + casts + "}\n\n"
    )
    text = (data / "widen.cpp").read_text()
    assert casts in text
    text = text.replace(casts, "    init(x_gm, y_gm, xGm, yGm);\n")
    text = text.replace("widen(GM_ADDR x, GM_ADDR y)", "widen(GM_ADDR x_gm, GM_ADDR y_gm)")
    text = text.replace('extern "C"', init + 'extern "C"', 1)
    (tmp_path / "widen.cpp").write_text(text)
    assert gm_element_types(load_project(tmp_path / "widen.cpp"))["y_gm"] == "float"
    report = validate_project(tmp_path / "widen.cpp", data / "ref.py", trials=1)
    assert report.ok, report
