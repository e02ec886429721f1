"""`kernelgen lint`: exit codes, text and JSON output, bad input; suppression comments and
project configuration; the Analyzer's incremental updates agree with a fresh lint."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ascend_tools.lint import Analyzer, LintConfig, LintConfigError, lint_path
from ascend_tools.parse.document import SourceEdit
from server.cli import main
from tests.lint.helpers import CORPUS, codes, corpus_texts, lint_texts, mutate

OVERFLOW = ("TILE_LENGTH = 4096;", "TILE_LENGTH = 32768;")


def _bad_file(tmp_path: Path) -> Path:
    path = tmp_path / "leaky.cpp"
    path.write_text((CORPUS / "leaky_relu_tail.cpp").read_text().replace(*OVERFLOW))
    return path


def test_clean_kernel_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", str(CORPUS / "softmax_rows.cpp")]) == 0
    assert capsys.readouterr().out == ""


def test_error_exits_one_with_compiler_style_text(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = _bad_file(tmp_path)
    assert main(["lint", str(path)]) == 1
    out = capsys.readouterr().out
    line = out.splitlines()[0]
    assert line.startswith(f"{path}:") and ": error: " in line and line.endswith("[ub-overflow]")


def test_json_output_has_diagnostics_with_fix_edits(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = _bad_file(tmp_path)
    assert main(["lint", str(path), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    d = data["diagnostics"][0]
    assert d["source"] == "kernelgen-lint" and d["code"] == "ub-overflow"
    assert {"file", "line", "column", "end_line", "end_column", "severity", "message"} <= set(d)
    edit = d["fix"]["edits"][0]
    assert set(edit) == {"file", "range", "new_text"} and edit["file"] == str(path)


def test_chip_option_changes_the_verdict(tmp_path: Path) -> None:
    path = tmp_path / "k.cpp"
    shutil.copy(CORPUS / "leaky_relu_tail.cpp", path)
    assert main(["lint", str(path), "--chip", "ascend910b2"]) == 0
    assert main(["lint", str(path), "--chip", "ascend910"]) == 1  # no DataCopyPad there


def test_project_directory_and_shapes_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", str(CORPUS / "add_custom"), "--shapes", "1000,1000"]) == 1
    assert "[missing-tail]" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["lint", "/no/such/kernel.cpp"], "no such file"),
        (["lint", str(CORPUS / "softmax_rows.cpp"), "--chip", "ascend999"], "unknown chip"),
        (["lint", str(CORPUS / "softmax_rows.cpp"), "--shapes", "8xa"], "bad shape"),
    ],
)
def test_bad_input_exits_two_with_a_message(argv: list[str], needle: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert needle in capsys.readouterr().err


def test_binary_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.cpp"
    path.write_bytes(b"\x00\x01\x02binary")
    assert main(["lint", str(path)]) == 2
    assert "binary" in capsys.readouterr().err


def test_per_line_suppression_comment() -> None:
    texts = mutate(corpus_texts("leaky_relu_tail"), *OVERFLOW)
    line = "        pipe->InitBuffer(inQueue, BUFFER_NUM, TILE_LENGTH * sizeof(float));"
    same_line = mutate(texts, line, line + "  // kernelgen: ignore[ub-overflow]")
    assert "ub-overflow" not in codes(lint_texts(same_line))
    above = mutate(texts, line, "        // kernelgen: ignore[ub-overflow]\n" + line)
    assert "ub-overflow" not in codes(lint_texts(above))
    other = mutate(texts, line, line + "  // kernelgen: ignore[missing-tail]")
    assert "ub-overflow" in codes(lint_texts(other))


def test_project_configuration_ignores_rules_and_sets_chip(tmp_path: Path) -> None:
    path = _bad_file(tmp_path)
    assert "ub-overflow" in codes(lint_path(path))
    (tmp_path / "kernelgen.toml").write_text('[lint]\nignore = ["ub-overflow"]\n')
    assert "ub-overflow" not in codes(lint_path(path))
    (tmp_path / "kernelgen.toml").write_text('[lint]\nchip = "ascend910"\n')
    assert "chip-support" in codes(lint_path(path))
    (tmp_path / "kernelgen.toml").write_text("[lint\n")
    with pytest.raises(LintConfigError):
        lint_path(path)


def test_top_level_auto_sync_setting_reaches_lint_and_is_refused_under_lint(
    tmp_path: Path,
) -> None:
    from tests.lint.test_dtype_and_pipe_rules import SCALAR_KERNEL

    path = tmp_path / "peak.cpp"
    path.write_text(SCALAR_KERNEL)
    assert "pipe-hazard" not in codes(lint_path(path))  # --cce-auto-sync is on by default
    (tmp_path / "kernelgen.toml").write_text("auto_sync = false\n")
    assert "pipe-hazard" in codes(lint_path(path))
    (tmp_path / "kernelgen.toml").write_text('auto_sync = false\n[lint]\nchip = "ascend910b2"\n')
    assert "pipe-hazard" in codes(lint_path(path))
    (tmp_path / "kernelgen.toml").write_text("[lint]\nauto_sync = false\n")
    with pytest.raises(LintConfigError, match="top level"):
        lint_path(path)


def test_analyzer_updates_agree_with_a_fresh_lint() -> None:
    text = (CORPUS / "softmax_rows.cpp").read_text()
    analyzer = Analyzer(LintConfig())
    assert analyzer.update("k.cpp", text) == []
    pos = text.index("Exp(yLocal, yLocal, COLS);") + len("Exp(yLocal, yLocal, COLS")
    bad = text[:pos] + " * 2" + text[pos:]
    diags = analyzer.update("k.cpp", bad, SourceEdit(pos, pos, " * 2"))
    assert codes(diags) == ["count-exceeds-tensor"]
    assert analyzer.units_relinted == 1  # only KernelSoftmax re-linted
    assert diags == Analyzer(LintConfig()).update("k.cpp", bad)
    assert analyzer.update("k.cpp", text) == []


def test_kernel_headers_of_a_project_are_linted_with_it(tmp_path: Path) -> None:
    project = tmp_path / "add_custom"
    shutil.copytree(CORPUS / "add_custom", project)
    kernel = project / "op_kernel" / "add_custom.cpp"
    text = kernel.read_text().replace("constexpr int32_t BUFFER_NUM = 2;", '#include "consts.h"')
    kernel.write_text(text)
    (project / "op_kernel" / "consts.h").write_text("constexpr int32_t BUFFER_NUM = 2;\n")
    diags = lint_path(project, shapes=[[8, 2048], [8, 2048]])
    assert [d for d in diags if d.severity == "error"] == []
    (project / "op_kernel" / "consts.h").write_text("constexpr int32_t BUFFER_NUM = 600;\n")
    assert "buffer-count" in codes(lint_path(project, shapes=[[8, 2048], [8, 2048]]))
