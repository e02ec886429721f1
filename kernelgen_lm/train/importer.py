"""Import of a user's JSON/JSONL file into Ascend-CoT records through a field mapping.

The public Ascend-CoT releases document no schema, so the user says which of their fields is
which: a JSON object from our field names to theirs, dotted for nested fields, or a literal
written `=value`:

    {"instruction": "question", "reasoning": "meta.cot", "answer": "response",
     "licence": "=CC-BY-4.0", "op": "op_name"}

Fields: `instruction` and `answer` (required), `reasoning`, `op`, `chip`, `reference`, `task`,
`licence`, `kind`. An answer that is an object is a set of files; a text answer with
`<file path=...>` blocks is parsed into files (and its `<reasoning>` when none is mapped);
anything else is a text answer.

`--mapping projects` reads a folder of operator projects instead (KernelBench-style task
folders: each project beside its PyTorch reference); see `import_projects`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kernelgen_lm.train.records import (
    Answer,
    CotRecord,
    DataError,
    Instruction,
    Metadata,
)

FIELDS = (
    "instruction",
    "answer",
    "reasoning",
    "op",
    "chip",
    "reference",
    "task",
    "licence",
    "kind",
)
REQUIRED = ("instruction", "answer")
UNKNOWN_LICENCE = "unknown (imported; check before publishing)"


def parse_mapping(text: str) -> dict[str, str]:
    """The mapping from a JSON string or a file holding one."""
    raw = text
    path = Path(text)
    if not text.lstrip().startswith("{") and path.is_file():
        raw = path.read_text(encoding="utf-8")
    try:
        mapping = json.loads(raw)
    except ValueError as exc:
        raise DataError(f"mapping is not a JSON object or a file holding one: {exc}") from None
    if not isinstance(mapping, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in mapping.items()
    ):
        raise DataError(
            "mapping must be a JSON object of strings, e.g. "
            '{"instruction": "question", "answer": "response"}'
        )
    unknown = sorted(set(mapping) - set(FIELDS))
    if unknown:
        raise DataError(f"mapping names unknown fields {unknown}; known: {', '.join(FIELDS)}")
    missing = [f for f in REQUIRED if f not in mapping]
    if missing:
        raise DataError(f"mapping lacks {missing} (which of your fields holds them?)")
    return mapping


def _get(row: dict[str, Any], spec: str) -> Any:
    if spec.startswith("="):
        return spec[1:]
    value: Any = row
    for part in spec.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def _rows(path: Path) -> list[tuple[int, Any]]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json" or text.lstrip().startswith("["):
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise DataError(f"{path}: not JSON ({exc})") from None
        if isinstance(data, dict):
            data = data.get("data", data.get("records", [data]))
        if not isinstance(data, list):
            raise DataError(f"{path}: expected a list of objects")
        return list(enumerate(data, 1))
    rows = []
    for no, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                rows.append((no, json.loads(line)))
            except ValueError as exc:
                raise DataError(f"{path}:{no}: not JSON ({exc})") from None
    return rows


def import_records(path: Path, mapping: dict[str, str]) -> list[CotRecord]:
    """Every row of `path` as a record; a row without a mapped instruction or answer is an
    error naming the line (silently dropping a user's data would hide a wrong mapping)."""
    from kernelgen_lm.llm.tagged import AnswerFormatError, parse_answer

    if not path.is_file():
        raise DataError(f"{path}: no such file")
    out = []
    for no, row in _rows(path):
        if not isinstance(row, dict):
            raise DataError(f"{path}:{no}: expected a JSON object")
        get = {f: _get(row, spec) for f, spec in mapping.items()}
        for f in REQUIRED:
            if get.get(f) in (None, "", {}):
                raise DataError(f"{path}:{no}: field {mapping[f]!r} (mapped to {f}) is missing")
        reasoning = str(get.get("reasoning") or "")
        raw_answer = get["answer"]
        answer = Answer()
        if isinstance(raw_answer, dict):
            answer.files = {str(k): str(v) for k, v in raw_answer.items()}
        else:
            text = str(raw_answer)
            try:
                parsed = parse_answer(text) if "<file" in text.lower() else None
            except AnswerFormatError:
                parsed = None
            if parsed is not None:
                answer.files = parsed.files
                reasoning = reasoning or parsed.reasoning
            else:
                answer.text = text
        kind = str(get.get("kind") or ("generate" if answer.files else "qa"))
        if kind not in ("generate", "complete", "qa"):
            raise DataError(f"{path}:{no}: kind {kind!r} is not generate, complete or qa")
        out.append(
            CotRecord(
                instruction=Instruction(
                    kind=kind,  # type: ignore[arg-type]
                    text=str(get["instruction"]),
                    op=get.get("op"),
                    chip=get.get("chip"),
                    reference=get.get("reference"),
                ),
                reasoning=reasoning,
                answer=answer,
                metadata=Metadata(
                    origin="import",
                    source=f"{path.name}:{no}",
                    task=str(get.get("task") or get.get("op") or ""),
                    licence=str(get.get("licence") or UNKNOWN_LICENCE),
                ),
            )
        )
    return out


PROJECTS = "projects"  # the --mapping value for a folder of operator projects


def import_projects(
    folder: Path, chip: str, progress: Callable[[str], None] | None = None
) -> list[CotRecord]:
    """KernelBench/MultiKernelBench-style task folders: every subfolder that is an operator
    project with its PyTorch reference (`ref.py` or kernelgen.toml's `reference`) becomes a
    generation record, validated here on the emulator (failed ones are kept as failed: they
    make preference pairs against a validated answer to the same task)."""
    from ascend_tools.chips import get_chip
    from ascend_tools.config import load_project_config, project_reference
    from ascend_tools.validate import ValidationInputError, validate_project
    from kernelgen_lm.train.records import Validation
    from kernelgen_lm.train.seed import generation_instruction, project_files

    if not folder.is_dir():
        raise DataError(f"{folder}: not a folder of operator projects")
    say = progress or (lambda _m: None)
    chip_spec = get_chip(chip)
    out = []
    for root in sorted(p for p in folder.iterdir() if p.is_dir()):
        files = project_files(root)
        kernels = [k for k in files if k.startswith("op_kernel/") and k.endswith(".cpp")]
        if not kernels:
            continue
        ref = project_reference(root, load_project_config(root))
        if ref is None or not ref.is_file():
            say(f"import: {root.name}: no reference, skipped")
            continue
        op = Path(kernels[0]).stem
        try:
            report = validate_project(root, ref, chip=chip_spec.name)
            validation = Validation(
                ok=report.ok,
                compiled=report.compile.ok,
                stage="done" if report.ok else ("compile" if not report.compile.ok else "compare"),
                cases=len(report.cases),
            )
        except ValidationInputError as exc:
            validation = Validation(ok=False, stage="parse", compiled=False, message=str(exc)[:300])
        say(f"import: {root.name}: {validation.stage}")
        out.append(
            CotRecord(
                instruction=Instruction(
                    kind="generate",
                    text=generation_instruction(ref, chip_spec, op),
                    op=op,
                    chip=chip_spec.name,
                    reference=ref.read_text(encoding="utf-8"),
                ),
                answer=Answer(files=files),
                metadata=Metadata(
                    origin="import",
                    source=f"{folder.name}/{root.name}",
                    task=root.name,
                    licence=UNKNOWN_LICENCE,
                    validation=validation,
                ),
            )
        )
    return out
