"""The case file follows emu/README.md: chip line, op, kernel, tensors, attributes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascend_tools.chips import get_chip, gm_allocation, gm_segments
from ascend_tools.runner.case import Case, CaseAttr, CaseTensor, case_text, write_case


def _case(**kw) -> Case:
    base = dict(
        chip=get_chip("ascend910b2"),
        op="AddCustom",
        kernel="add_custom",
        inputs=[CaseTensor(name="x", dtype="float16", shape=[4, 8])],
        outputs=[CaseTensor(name="z", dtype="float16", shape=[4, 8])],
    )
    base.update(kw)
    return Case(**base)


def test_chip_line_carries_every_chip_field_in_readme_order() -> None:
    chip_line = case_text(_case()).splitlines()[0].split()
    assert chip_line == [
        "chip",
        "ascend910b2",
        "2201",
        "220",
        "196608",
        "188416",
        "524288",
        "65536",
        "65536",
        "131072",
        "24",
        "48",
        "1",
        "8",
        "1",
        "1",
        "0",  # local_address_wrap: 910B faults on an out-of-range UB address
    ]
    wrap = case_text(_case().model_copy(update={"chip": get_chip("ascend310p")}))
    assert wrap.splitlines()[0].split()[-1] == "1"


def test_gm_block_line_gives_the_allocator_rounding_from_the_chip_table() -> None:
    # chips.json gm_allocation: torch_npu's caching allocator pads each allocation by 32 bytes
    # and rounds it up to 512.
    assert gm_allocation() == (512, 32)
    assert case_text(_case()).splitlines()[1] == "gm_block 512 32"


def test_gm_segment_line_gives_the_allocator_segments_from_the_chip_table() -> None:
    # chips.json gm_allocation.segment: torch_npu packs blocks up to 1 MiB into 2 MiB segments,
    # blocks below 10 MiB into 20 MiB ones, bigger ones into their size rounded up to 2 MiB.
    assert gm_segments() == (1 << 20, 2 << 20, 10 << 20, 20 << 20, 2 << 20)
    assert (
        case_text(_case()).splitlines()[2] == "gm_segment 1048576 2097152 10485760 20971520 2097152"
    )


def test_tensor_lines_name_dtype_shape_and_file() -> None:
    lines = case_text(_case()).splitlines()
    assert lines[3:7] == [
        "op AddCustom",
        "kernel add_custom",
        "input x float16 2 4 8 x.bin",
        "output z float16 2 4 8 z.bin",
    ]


def test_single_file_case_has_dash_op_and_block_dim() -> None:
    lines = case_text(_case(op=None, block_dim=8)).splitlines()
    assert "op -" in lines and "block_dim 8" in lines


def test_scalar_tensor_has_zero_dims() -> None:
    text = case_text(_case(inputs=[CaseTensor(name="s", dtype="float32", shape=[])]))
    assert "input s float32 0 s.bin" in text.splitlines()


@pytest.mark.parametrize(
    ("attr", "line"),
    [
        (CaseAttr(name="alpha", type="float", value=0.2), "attr alpha float 0.2"),
        (CaseAttr(name="axis", type="int", value=-1), "attr axis int -1"),
        (CaseAttr(name="keep", type="bool", value=True), "attr keep bool 1"),
        (CaseAttr(name="mode", type="str", value="sum"), "attr mode str sum"),
        (CaseAttr(name="dims", type="list_int", value=[1, 2]), "attr dims list_int 2 1 2"),
        (CaseAttr(name="w", type="list_float", value=[0.5]), "attr w list_float 1 0.5"),
    ],
)
def test_attribute_lines(attr: CaseAttr, line: str) -> None:
    assert case_text(_case(attrs=[attr])).splitlines()[-1] == line


def test_string_attribute_with_space_is_rejected() -> None:
    with pytest.raises(ValueError, match="without spaces"):
        case_text(_case(attrs=[CaseAttr(name="m", type="str", value="a b")]))


def test_write_case_checks_input_sizes(tmp_path: Path) -> None:
    case = _case()
    with pytest.raises(ValueError, match="needs 64"):
        write_case(tmp_path, case, {"x": b"\0" * 10})
    path = write_case(tmp_path, case, {"x": b"\1" * 64})
    assert path.read_text() == case_text(case)
    assert (tmp_path / "x.bin").read_bytes() == b"\1" * 64
