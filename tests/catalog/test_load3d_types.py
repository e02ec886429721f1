"""The emulator's Load3D element-type table (kernelgen/img2col.h `kLoad3dTypes`) says what the
catalog's LoadData3DParamsV2 entry documents per chip (the catalog is the source): the A side
lists the documented types but int4b_t (no 4-bit tensors in the emulator), and on dav-c220 the
B side drops the 8-bit ones (Load3D, table 1)."""

from __future__ import annotations

import re

from ascend_tools.catalog import load_catalog
from ascend_tools.chips import all_chips
from ascend_tools.toolchain.flags import EMU_INCLUDE

ROW = re.compile(r'\{(\d+), "([^"]*)", "([^"]*)"\}')


def _table() -> dict[int, tuple[set[str], set[str]]]:
    text = (EMU_INCLUDE / "kernelgen" / "img2col.h").read_text()
    body = text.split("kLoad3dTypes[] = {", 1)[1].split("};", 1)[0]
    return {int(a): (set(x.split()), set(b.split())) for a, x, b in ROW.findall(body)}


def test_load3d_type_table_matches_the_catalog() -> None:
    [entry] = load_catalog().lookup("LoadData3DParamsV2")
    aicore = {c.arch: c.cce_aicore for c in all_chips().values()}
    table = _table()
    for arch, types in entry.dtypes.items():
        a_side, b_side = table[aicore[arch]]
        assert a_side == set(types) - {"int4b_t"}, arch
        eight_bit = {"int8_t", "uint8_t"} if arch == "dav-c220" else set()
        assert b_side == set(types) - {"int4b_t"} - eight_bit, arch
    # dav-c100 (Atlas training) has no Load3Dv2: an empty row the emulator refuses
    assert table[aicore["dav-c100"]] == (set(), set())
