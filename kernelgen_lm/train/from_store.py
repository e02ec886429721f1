"""Records from the edit store the language server writes: accepted inline completions (FIM
examples), kept generated kernels, and the generation loop's samples, failed ones included
(they become the rejected side of preference pairs); and the sample rows an LLM generation
run leaves in its run directory, for the server to store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from kernelgen_lm.train.records import (
    Answer,
    CotRecord,
    Instruction,
    Metadata,
    Validation,
)
from kernelgen_lm.train.store import Edit, EditStore

STORE_LICENCE = "user's own work (edit store)"


def _validation(raw: dict[str, Any] | None) -> Validation | None:
    """A ValidationReport dump (or a bare {"ok": ...}) reduced to what training uses."""
    if raw is None:
        return None
    compile_ = raw.get("compile")
    compiled = compile_.get("ok") if isinstance(compile_, dict) else raw.get("compiled")
    cases = raw.get("cases")
    stage = raw.get("stage")
    if stage is None and raw.get("ok") is not None:
        stage = "done" if raw["ok"] else ("compile" if compiled is False else "compare")
    return Validation(
        ok=raw.get("ok"),
        stage=stage,
        compiled=compiled,
        cases=len(cases) if isinstance(cases, list) else int(cases or 0),
        message=str(raw.get("message", ""))[:300],
    )


def _task_text(e: Edit) -> str:
    op = e.meta.get("op") or Path(e.file).stem
    return str(e.meta.get("prompt") or f"Write the AscendC kernel `{op}` ({Path(e.file).name}).")


def edit_record(e: Edit) -> CotRecord | None:
    """One store row as a record; None for rows that carry nothing to learn (empty text)."""
    if not e.suggestion.strip():
        return None
    meta = Metadata(
        origin="store-completion",
        source=f"edits#{e.id}",
        licence=STORE_LICENCE,
        task=str(e.meta.get("task") or ""),
        extra={"engine": e.source},
    )
    if e.kind == "completion":
        return CotRecord(
            instruction=Instruction(
                kind="complete", file=Path(e.file).name, prefix=e.prefix, suffix=e.suffix
            ),
            answer=Answer(text=e.suggestion),
            metadata=meta,
        )
    from kernelgen_lm.llm.tagged import AnswerFormatError, parse_answer

    validation = _validation(e.validation)
    reasoning = ""
    if e.kind == "generated":
        meta.origin = "store-generated"
        files = {f"op_kernel/{Path(e.file).name}": e.suggestion}
    else:
        meta.origin = "store-sample"
        try:
            parsed = parse_answer(e.suggestion)
            files, reasoning = parsed.files, parsed.reasoning
        except AnswerFormatError as exc:
            files = {}
            validation = Validation(ok=False, stage="parse", compiled=False, message=str(exc))
    meta.validation = validation
    return CotRecord(
        instruction=Instruction(
            kind="generate",
            text=_task_text(e),
            op=e.meta.get("op"),
            chip=e.meta.get("chip"),
            reference=e.meta.get("reference"),
        ),
        reasoning=reasoning,
        answer=Answer(files=files, text="" if files else e.suggestion),
        metadata=meta,
    )


def store_records(path: Path) -> list[CotRecord]:
    """Every usable row of the store at `path` (opened beside a running server: WAL readers
    never block its writes)."""
    store = EditStore(path)
    try:
        rows = store.edits()
    finally:
        store.close()
    return [r for e in rows if (r := edit_record(e)) is not None]


class SampleRow(BaseModel):
    """One generation sample as the edit store keeps it (`kind = 'sample'`)."""

    file: str
    suggestion: str
    validation: dict[str, Any]
    meta: dict[str, Any]


def run_samples(run_dir: Path, ref: Path, chip: str) -> list[SampleRow]:
    """Every sample of an LLM generation run (`roundN/sampleK/`: prompt.json, answer.txt,
    report.json when it parsed), validated or not. All carry the run's task turn as their
    prompt, so a validated repair and a failed first try of the same task make a pair."""
    rounds = sorted(run_dir.glob("round*/sample*"), key=lambda p: (p.parent.name, p.name))
    if not rounds:
        return []
    try:
        first = json.loads((rounds[0] / "prompt.json").read_text(encoding="utf-8"))
        task_turn = next(m["content"] for m in first if m.get("role") == "user")
    except (OSError, ValueError, StopIteration, KeyError, TypeError):
        return []
    reference = ref.read_text(encoding="utf-8") if ref.is_file() else None
    out = []
    for sample in rounds:
        answer = sample / "answer.txt"
        if not answer.is_file():
            continue
        report = sample / "report.json"
        if report.is_file():
            validation = json.loads(report.read_text(encoding="utf-8"))
        else:
            validation = {"ok": False, "stage": "parse", "compiled": False}
        out.append(
            SampleRow(
                file=ref.name,
                suggestion=answer.read_text(encoding="utf-8"),
                validation=validation,
                meta={
                    "task": ref.stem,
                    "chip": chip,
                    "prompt": task_turn,
                    "reference": reference,
                    "round": sample.parent.name,
                    "sample": sample.name,
                },
            )
        )
    return out
