"""g++ errors land on the project's own file and line, with API-name hints."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ascend_tools.toolchain.errors import (
    Locator,
    parse_compiler_output,
    unknown_name_hint,
    unknown_names,
)

LIBRARY_HEADER = """#pragma once
namespace AscendC {
inline void DataCopy(int) {}
template <typename T> void Needs32(T v) { static_assert(sizeof(T) == 32, "needs a 32-byte type"); }
}
"""


def _compile(tmp_path: Path, kernel: str, *, link: bool = False) -> tuple[str, Locator]:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "api.h").write_text(LIBRARY_HEADER)
    proj = tmp_path / "proj" / "op_kernel"
    proj.mkdir(parents=True)
    src = proj / "k.cpp"
    src.write_text(kernel)
    args = [
        "g++",
        "-std=c++17",
        "-fdiagnostics-color=never",
        "-fno-diagnostics-show-caret",
        f"-I{lib}",
        str(src),
        "-o",
        str(tmp_path / "a.out"),
    ]
    if not link:
        args[-2:] = ["-c", "-o", str(tmp_path / "k.o")]
    out = subprocess.run(args, capture_output=True, text=True)
    assert out.returncode != 0
    return out.stderr, Locator(tmp_path / "proj", ("op_kernel/k.cpp", 7), {})


def test_error_in_project_file_keeps_its_line_relative_path(tmp_path: Path) -> None:
    text, loc = _compile(tmp_path, '#include "api.h"\nint f() {\n  return undefined_thing;\n}\n')
    diags = parse_compiler_output(text, loc, failed=True)
    assert diags[0].file == "op_kernel/k.cpp"
    assert diags[0].line == 3
    assert diags[0].code == "compile-error" and diags[0].source == "kernelgen-compile"
    assert "undefined_thing" in diags[0].message


def test_error_inside_a_library_template_moves_to_the_call_site(tmp_path: Path) -> None:
    kernel = '#include "api.h"\nvoid g() {\n  int x = 0;\n  AscendC::Needs32(x);\n}\n'
    text, loc = _compile(tmp_path, kernel)
    diags = parse_compiler_output(text, loc, failed=True)
    assert (diags[0].file, diags[0].line) == ("op_kernel/k.cpp", 4)
    assert "needs a 32-byte type" in diags[0].message and "(in api.h:" in diags[0].message


def test_misspelled_api_gets_catalog_hint(tmp_path: Path) -> None:
    text, loc = _compile(tmp_path, '#include "api.h"\nvoid g() {\n  AscendC::DataCpy(1);\n}\n')
    diags = parse_compiler_output(text, loc, failed=True)
    assert diags[0].line == 3
    assert "did you mean DataCopy" in diags[0].message


def test_member_hint_uses_the_class_named_in_the_error() -> None:
    msg = "'class AscendC::TQue<AscendC::TPosition::VECIN, 2>' has no member named 'AllocTensr'"
    assert unknown_name_hint(msg) == " (did you mean AllocTensor?)"
    assert unknown_name_hint("expected ';' before '}' token") == ""


def test_generated_wrapper_maps_to_the_kernel_entry(tmp_path: Path) -> None:
    wrapper = tmp_path / "kernel_entry.cpp"
    text = f"{wrapper}:5:40: error: too few arguments to function 'void add_custom(int*)'\n"
    loc = Locator(
        tmp_path / "proj", ("op_kernel/add.cpp", 12), {wrapper: ("op_kernel/add.cpp", 12)}
    )
    diags = parse_compiler_output(text, loc, failed=True)
    assert (diags[0].file, diags[0].line) == ("op_kernel/add.cpp", 12)


def test_link_error_is_reported_at_the_entry(tmp_path: Path) -> None:
    text, loc = _compile(tmp_path, "void missing();\nint main() { missing(); }\n", link=True)
    diags = parse_compiler_output(text, loc, failed=True)
    assert any("undefined reference" in d.message for d in diags)
    assert all((d.file, d.line) == ("op_kernel/k.cpp", 7) for d in diags)


def test_failed_build_without_parsable_output_still_reports() -> None:
    loc = Locator(Path("/nonexistent"), ("k.cpp", 1), {})
    diags = parse_compiler_output("cc1plus: out of memory", loc, failed=True)
    assert len(diags) == 1 and "out of memory" in diags[0].message


def test_real_api_the_emulator_lacks_is_named_as_such_not_as_a_typo() -> None:
    # Gatherb: catalogued, not emulated; pick another such name once it is.
    hint = unknown_name_hint("'Gatherb' is not a member of 'AscendC'")
    assert "Gatherb is AscendC API" in hint and "does not implement yet" in hint
    assert "did you mean" in unknown_name_hint("'DataCopyy' is not a member of 'AscendC'")


def test_unknown_names_are_collected_once_in_order() -> None:
    msgs = ["'TRACE_LOG' was not declared in this scope", "'Level' does not name a type",
            "'TRACE_LOG' was not declared in this scope", "expected ';' before '}' token"]
    assert unknown_names(msgs) == ["TRACE_LOG", "Level"]


def test_own_helper_colliding_with_an_undocumented_cann_one_is_told_how_to_keep_it() -> None:
    # vendor_internal.json: the emulator provides CANN's undocumented DivCeil etc. in namespace
    # AscendC, as kernel_operator.h does; a project helper that a call cannot tell from it (two
    # independent template parameters) gets an ambiguity error that says so.
    clash = "call of overloaded 'DivCeil(uint32_t&, int)' is ambiguous"
    hint = unknown_name_hint(clash)
    assert "DivCeil is also an undocumented helper that CANN's kernel_operator.h defines" in hint
    assert "::DivCeil" in hint
    assert unknown_name_hint("call of overloaded 'Reduce(int&, int)' is ambiguous") == ""
    # An undeclared name that is not a vendor helper keeps the catalog's guesses.
    assert "did you mean" in unknown_name_hint("'DataCopyy' is not a member of 'AscendC'")
    text = "/p/k.cpp:3:5: error: call of overloaded 'AlignUp(uint32_t&, uint32_t)' is ambiguous\n"
    [d] = parse_compiler_output(text, Locator(Path("/p"), ("k.cpp", 1), {}), failed=True)
    assert "AlignUp is also an undocumented helper" in d.message and d.line == 3
