"""Prompt building: task contents, API entries, examples, and the repair turn's feedback."""

from __future__ import annotations

from pathlib import Path

from conftest import ADD_REF, CHIP

from ascend_tools.chips import get_chip
from ascend_tools.diagnostics import Diagnostic, Severity
from ascend_tools.report import (
    CaseReport,
    CompileReport,
    RuntimeErrorReport,
    ValidationReport,
)
from kernelgen_lm.attempts import accepted, latent_faults, report_stage
from kernelgen_lm.backends import ChatMessage
from kernelgen_lm.llm.api_hints import apis_for_reference
from kernelgen_lm.llm.context import build_context
from kernelgen_lm.llm.examples import load_examples, rank_examples, store_validated
from kernelgen_lm.llm.feedback import report_feedback
from kernelgen_lm.llm.prompt import REPAIR_CLOSING, TASK_CLOSING, initial_messages, repair_messages
from kernelgen_lm.llm.reference import describe_reference


def _compile_failure(project: Path) -> ValidationReport:
    diag = Diagnostic(
        file=str(project / "add_custom.cpp"),
        line=2,
        end_line=2,
        severity=Severity.ERROR,
        code="compile-error",
        message="'Addd' is not a member of 'AscendC'",
        source="g++",
    )
    return ValidationReport(
        ok=False, chip=CHIP, backend="emulator", compile=CompileReport(ok=False, diagnostics=[diag])
    )


def test_task_prompt_has_reference_shapes_plan_apis_and_chip() -> None:
    chip = get_chip(CHIP)
    task = describe_reference(ADD_REF)
    ctx = build_context(task, "add_custom", chip, "elementwise add, 8 blocks")
    system, user = initial_messages(ctx, chip)
    assert "ascend910b2" in system.content and "196608" in system.content
    assert '<file path="op_kernel/OPNAME.cpp">' in system.content
    assert "return a + b" in user.content
    assert "kernel input 1 (b): shape (4096,), dtype float32" in user.content
    assert "kernel output 0: shape (4096,), dtype float32" in user.content
    assert "elementwise add, 8 blocks" in user.content
    assert "AscendC::Add:" in user.content and "AscendC::DataCopy:" in user.content
    assert user.content.endswith(TASK_CLOSING)


def test_api_hints_follow_the_torch_ops_in_forward() -> None:
    names = apis_for_reference("def forward(self, x):\n    return torch.sigmoid(x) * 2\n")
    assert {"Sigmoid", "Mul", "Muls", "DataCopy"} <= set(names)
    assert "Add" not in names


def test_compile_feedback_locates_the_error_with_its_source_line(tmp_path: Path) -> None:
    (tmp_path / "add_custom.cpp").write_text('#include "kernel_operator.h"\nAscendC::Addd(x);\n')
    report = _compile_failure(tmp_path)
    text = report_feedback(report, tmp_path)
    assert report_stage(report) == "compile"
    assert "add_custom.cpp:2: error: 'Addd' is not a member of 'AscendC'" in text
    assert "> AscendC::Addd(x);" in text


def test_runtime_and_mismatch_feedback_keep_codes_and_numbers(tmp_path: Path) -> None:
    report = ValidationReport(
        ok=False,
        chip=CHIP,
        backend="emulator",
        compile=CompileReport(ok=True),
        runtime_errors=[
            RuntimeErrorReport(
                code="datacopy-align", message="count*4 % 32 != 0", file="k.cpp", line=9, block=3
            )
        ],
        cases=[
            CaseReport(
                name="trial0", ok=False, mismatches=12, first_mismatch=[4090], max_abs_err=0.7
            )
        ],
    )
    text = report_feedback(report, tmp_path)
    assert report_stage(report) == "run"
    assert "k.cpp:9: [datacopy-align] count*4 % 32 != 0 (block 3)" in text
    assert "case trial0: 12 elements differ first at index (4090,) max abs err 0.7" in text


def test_a_generated_kernel_that_passes_only_by_overrunning_dead_bytes_is_not_accepted(
    tmp_path: Path,
) -> None:
    """A user's kernel that writes past a tensor into bytes that happen to be dead passes with a
    warning (the NPU runs it); a generated one goes back for repair with that warning located."""
    overrun = RuntimeErrorReport(
        code="count-exceeds-tensor",
        message="Duplicate: needs 16 elements of dst, a LocalTensor<float> of 8 elements",
        file="k.cpp",
        line=12,
    )
    harmless = RuntimeErrorReport(code="gm-extent", message="inside the block", file="k.cpp")
    report = ValidationReport(
        ok=True,
        chip=CHIP,
        backend="emulator",
        compile=CompileReport(ok=True),
        cases=[CaseReport(name="trial0", ok=True)],
        warnings=[harmless, overrun],
    )
    assert not accepted(report) and latent_faults(report) == [overrun]
    assert report_stage(report) == "run"
    text = report_feedback(report, tmp_path)
    assert "k.cpp:12: [count-exceeds-tensor] Duplicate: needs 16 elements" in text
    report.warnings = [harmless]
    assert accepted(report) and report_stage(report) == "done"


def test_repair_turn_carries_previous_answer_and_feedback(tmp_path: Path) -> None:
    base = [ChatMessage(role="system", content="s"), ChatMessage(role="user", content="task")]
    (tmp_path / "add_custom.cpp").write_text("x\nAscendC::Addd(x);\n")
    feedback = report_feedback(_compile_failure(tmp_path), tmp_path)
    msgs = repair_messages(base, "<file path='add_custom.cpp'>...</file>", feedback)
    assert [m.role for m in msgs] == ["system", "user", "assistant", "user"]
    assert msgs[2].content.startswith("<file path='add_custom.cpp'>")
    assert feedback in msgs[3].content
    assert msgs[3].content.endswith(REPAIR_CLOSING)


def test_validated_generations_are_stored_and_retrieved_by_similarity(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "add_custom.cpp").write_text("// add kernel\n")
    store_validated(ADD_REF, project, {"backend": "test"})
    relu = tmp_path / "relu.py"
    relu.write_text("def forward(self, x):\n    return torch.relu(x)\n")
    store_validated(relu, project, {"backend": "test"})
    validated = [e for e in load_examples() if e.origin == "validated"]
    assert len(validated) == 2
    best = rank_examples(ADD_REF.read_text(), validated, k=1)
    assert best[0].reference == ADD_REF.read_text()
    assert best[0].files == {"add_custom.cpp": "// add kernel\n"}
