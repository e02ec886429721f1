"""Evaluation on the held-out slice: generation through the LLM path's validator (compile
rate, pass rate) and inline completion (exact match of a masked line).

Generation asks the model with the LLM path's own prompt for each held-out stub and validates
the answer with the same gate (`validate_answer`: parse, compile, every trial and shape
variant). Inline completion masks statement lines of the bundled example kernels and asks
with the inline engine's FIM chat; a hit is the cleaned suggestion's first line equal to the
masked line. Neither set is ever trained on: the stubs are decontaminated out of every
dataset and the example projects are not part of the seed set.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from ascend_tools.chips import DEFAULT_CHIP, get_chip
from kernelgen_lm.backends import Backend, BackendError, ChatMessage

Progress = Callable[[str], None]
# A call statement of an AscendC-style API or method: `Add(z, x, y, n);`, `q.EnQue(t);`.
_STATEMENT = re.compile(r"^\s+(?:[A-Za-z_]\w*(?:\.|->|::))*[A-Z]\w*\s*(?:<[^<>()]*>)?\(.*\);\s*$")


class FimCase(BaseModel):
    name: str
    prefix: str
    suffix: str
    middle: str


class EvalSlice(BaseModel):
    stubs: list[Path] = []
    fim: list[FimCase] = []
    chip: str = DEFAULT_CHIP
    max_tokens: int = 2048
    fim_max_tokens: int = 64


class EvalResult(BaseModel):
    metrics: dict[str, float]
    details: list[str] = []


def fim_cases(example_dirs: list[Path], per_file: int = 3) -> list[FimCase]:
    """Statement lines of the example kernels (`op_kernel/*.cpp`), evenly spread, masked."""
    out = []
    for root in example_dirs:
        for kernel in sorted((root / "op_kernel").glob("*.cpp")):
            lines = kernel.read_text(encoding="utf-8").splitlines(keepends=True)
            picks = [i for i, ln in enumerate(lines) if _STATEMENT.match(ln)]
            if not picks:
                continue
            step = max(1, len(picks) // per_file)
            for i in picks[::step][:per_file]:
                indent = len(lines[i]) - len(lines[i].lstrip())
                out.append(
                    FimCase(
                        name=f"{root.name}/{kernel.name}:{i + 1}",
                        prefix="".join(lines[:i]) + lines[i][:indent],
                        suffix="\n" + "".join(lines[i + 1 :]),
                        middle=lines[i].strip(),
                    )
                )
    return out


def _first_line(text: str) -> str:
    text = re.sub(r"^```\w*\n?", "", text.strip())
    return text.strip().splitlines()[0].strip() if text.strip() else ""


def evaluate(backend: Backend, slice_: EvalSlice, progress: Progress | None = None) -> EvalResult:
    """Metrics in [0, 1]: gen_compile_rate, gen_pass_rate (over the stubs) and inline_exact
    (over the FIM cases); a metric without cases is left out."""
    from ascend_tools.catalog import load_catalog
    from kernelgen_lm.capture import CaptureError, capture
    from kernelgen_lm.complete.llm import fim_messages
    from kernelgen_lm.generate import shape_variants
    from kernelgen_lm.llm.loop import default_op_name, validate_answer
    from kernelgen_lm.llm.prompt import system_message
    from kernelgen_lm.llm.tagged import AnswerFormatError, parse_answer
    from kernelgen_lm.train.seed import generation_instruction

    say = progress or (lambda _m: None)
    chip = get_chip(slice_.chip)
    details: list[str] = []
    metrics: dict[str, float] = {}
    compiled = passed = 0
    with tempfile.TemporaryDirectory(prefix="kernelgen-eval-") as tmp:
        for stub in slice_.stubs:
            messages = [
                system_message(chip),
                ChatMessage(
                    role="user", content=generation_instruction(stub, chip, default_op_name(stub))
                ),
            ]
            try:
                answer = backend.generate(messages, max_tokens=slice_.max_tokens)[0].text
            except BackendError as exc:
                details.append(f"{stub.stem}: backend failed: {exc}")
                continue
            try:
                parse_answer(answer)
            except AnswerFormatError as exc:
                details.append(f"{stub.stem}: parse: {exc}")
                say(f"eval {stub.stem}: no usable answer")
                continue
            try:
                shapes = shape_variants(capture(stub))
            except CaptureError:
                shapes = None
            sample = Path(tmp) / stub.stem
            sample.mkdir()
            outcome = validate_answer(answer, sample, stub, chip.name, backend.name, shapes=shapes)
            if outcome.report is not None and outcome.report.compile.ok:
                compiled += 1
            if outcome.attempt.ok:
                passed += 1
            details.append(f"{stub.stem}: {outcome.attempt.stage}: {outcome.attempt.message}")
            say(f"eval {stub.stem}: {outcome.attempt.stage}")
    if slice_.stubs:
        metrics["gen_compile_rate"] = compiled / len(slice_.stubs)
        metrics["gen_pass_rate"] = passed / len(slice_.stubs)
    if slice_.fim:
        catalog = load_catalog()
        hits = 0
        for case in slice_.fim:
            try:
                got = backend.generate(
                    fim_messages(case.prefix, case.suffix, catalog),
                    max_tokens=slice_.fim_max_tokens,
                )[0].text
            except BackendError as exc:
                details.append(f"{case.name}: backend failed: {exc}")
                continue
            hit = _first_line(got) == case.middle
            hits += hit
            details.append(f"{case.name}: {'exact' if hit else 'miss'}")
        metrics["inline_exact"] = hits / len(slice_.fim)
        say(f"eval inline: {hits}/{len(slice_.fim)} exact")
    return EvalResult(metrics=metrics, details=details)
