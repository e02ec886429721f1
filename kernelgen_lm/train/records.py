"""Ascend-CoT records: the one training-data schema, its JSONL file and its data card.

A record is a task (`instruction`), the chain of thought that solves it (`reasoning`), the
solution (`answer`: the project's files, or a text answer) and where it came from
(`metadata`: origin, validation result, modelled speed, licence). Every dataset the trainer
writes or reads is `DIR/ascend_cot.jsonl` (one record a line) plus `DIR/DATACARD.md`, so a
user's own data and the project's seed set mix freely, and the data hash names exactly what a
model version was trained on.

Schema version 1; a reader accepts any version up to `SCHEMA_VERSION` and refuses newer ones.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

SCHEMA_VERSION = 1
DATA_FILE = "ascend_cot.jsonl"
CARD_FILE = "DATACARD.md"
PROJECT_LICENCE = "Apache-2.0"

Kind = Literal["generate", "complete", "qa"]
Origin = Literal[
    "seed-rules",  # the rule generator's validated kernels over the bundled stubs
    "catalog",  # question/answer records from the API catalog
    "store-completion",  # inline completions a user accepted (edit store)
    "store-generated",  # generated kernels a user kept (edit store)
    "store-sample",  # the generation loop's samples, failed ones too (edit store)
    "import",  # a user's JSON/JSONL file, through a field mapping
]


class DataError(ValueError):
    """A dataset or import file cannot be used; the message says which line and why."""


class Instruction(BaseModel):
    """The task. `text` is the user turn exactly as the product's prompt says it; the other
    fields are the facts it states, kept apart for filtering and decontamination."""

    kind: Kind
    text: str = ""
    op: str | None = None
    chip: str | None = None
    shapes: list[list[int]] = []
    dtypes: list[str] = []
    reference: str | None = None  # PyTorch reference source of a generation task
    file: str | None = None  # inline completion: the file and the text around the cursor
    prefix: str = ""
    suffix: str = ""


class Answer(BaseModel):
    """Project files (path -> text) for generation, the inserted text for a completion, or a
    text answer for a question."""

    files: dict[str, str] = {}
    text: str = ""


class Validation(BaseModel):
    """What the validator said: `ok` None when the answer was never validated."""

    ok: bool | None = None
    stage: str | None = None  # compile | run | compare | parse | done
    compiled: bool | None = None
    cases: int = 0
    message: str = ""


class Metadata(BaseModel):
    origin: Origin
    source: str = ""  # stub name, store row, catalog entry or imported file
    task: str = ""  # groups records of the same task (preference pairs, decontamination)
    licence: str = PROJECT_LICENCE
    validation: Validation | None = None
    speedup: float | None = None  # modelled, against PyTorch eager (not a measurement)
    kernel_us: float | None = None  # modelled kernel time
    extra: dict[str, Any] = {}


class CotRecord(BaseModel):
    schema_version: int = SCHEMA_VERSION
    instruction: Instruction
    reasoning: str = ""
    answer: Answer
    metadata: Metadata

    def content_key(self) -> str:
        """Identity for deduplication: the task and the answer, not where they came from."""
        ins = self.instruction
        blob = json.dumps(
            [
                ins.kind,
                ins.text.strip(),
                ins.prefix,
                ins.suffix,
                sorted(self.answer.files.items()),
                self.answer.text.strip(),
            ],
            sort_keys=True,
        )
        return hashlib.sha256(blob.encode()).hexdigest()

    @property
    def passed(self) -> bool:
        v = self.metadata.validation
        return v is None or v.ok is not False


# -- JSONL -----------------------------------------------------------------------------------


def write_jsonl(records: Iterable[CotRecord], path: Path) -> int:
    """Writes one record a line (to a temporary name first, so a reader never sees half)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    n = 0
    with tmp.open("w", encoding="utf-8") as f:
        for r in records:
            f.write(r.model_dump_json() + "\n")
            n += 1
    tmp.replace(path)
    return n


def read_jsonl(path: Path) -> list[CotRecord]:
    if not path.is_file():
        raise DataError(f"{path}: no such file")
    out: list[CotRecord] = []
    for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except ValueError as exc:
            raise DataError(f"{path}:{no}: not JSON ({exc})") from None
        version = raw.get("schema_version", SCHEMA_VERSION) if isinstance(raw, dict) else None
        if isinstance(version, int) and version > SCHEMA_VERSION:
            raise DataError(
                f"{path}:{no}: schema version {version}; this kernelgen reads up "
                f"to {SCHEMA_VERSION}"
            )
        try:
            out.append(CotRecord.model_validate(raw))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise DataError(
                f"{path}:{no}: not an Ascend-CoT record ({where}: {first['msg']})"
            ) from None
    return out


def read_dataset(directory: Path) -> list[CotRecord]:
    return read_jsonl(directory / DATA_FILE)


def data_hash(records: Iterable[CotRecord]) -> str:
    """A short hash of the records' content, in order: names the data a version saw."""
    h = hashlib.sha256()
    for r in records:
        h.update(r.model_dump_json().encode())
        h.update(b"\n")
    return h.hexdigest()[:16]


# -- dedup and decontamination ---------------------------------------------------------------


def dedup(records: Iterable[CotRecord]) -> list[CotRecord]:
    """Keeps the first of every (task, answer) pair."""
    seen: set[str] = set()
    out = []
    for r in records:
        key = r.content_key()
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


_COMMENT = re.compile(r"#[^\n]*|\"\"\"(?:.|\n)*?\"\"\"|'''(?:.|\n)*?'''")


def source_fingerprint(source: str) -> str:
    """A PyTorch reference without comments, docstrings and whitespace: the same task however
    it is formatted or described."""
    body = re.sub(r"\s+", "", _COMMENT.sub("", source))
    return hashlib.sha256(body.encode()).hexdigest()[:16]


class HeldOut(BaseModel):
    """The evaluation slice: task names and reference fingerprints no training record may hold."""

    tasks: set[str] = set()
    fingerprints: set[str] = set()

    def contains(self, record: CotRecord) -> bool:
        if record.metadata.task and record.metadata.task in self.tasks:
            return True
        ref = record.instruction.reference
        return bool(ref) and source_fingerprint(ref or "") in self.fingerprints


def decontaminate(records: Iterable[CotRecord], held: HeldOut) -> tuple[list[CotRecord], int]:
    """The records that hold no held-out task, and how many were dropped."""
    kept, dropped = [], 0
    for r in records:
        if held.contains(r):
            dropped += 1
        else:
            kept.append(r)
    return kept, dropped


# -- data card -------------------------------------------------------------------------------


def data_card(
    records: list[CotRecord],
    *,
    dropped: dict[str, int] | None = None,
    notes: list[str] | None = None,
) -> str:
    """DATACARD.md: what the set holds, where it came from, under which licences."""
    kinds = Counter(r.instruction.kind for r in records)
    origins = Counter(r.metadata.origin for r in records)
    licences = Counter(r.metadata.licence for r in records)
    chips = Counter(r.instruction.chip for r in records if r.instruction.chip)
    failed = sum(1 for r in records if not r.passed)
    lines = [
        "# Ascend-CoT dataset",
        "",
        f"Schema version {SCHEMA_VERSION} (`kernelgen_lm/train/records.py`); one record a line "
        f"in `{DATA_FILE}`: `instruction`, `reasoning`, `answer`, `metadata`.",
        "",
        f"- records: {len(records)} ({failed} with a failed validation, kept for preference "
        "pairs only)",
        f"- data hash: `{data_hash(records)}`",
        "",
        "| kind | records |",
        "|---|---|",
        *(f"| {k} | {n} |" for k, n in sorted(kinds.items())),
        "",
        "| origin | records |",
        "|---|---|",
        *(f"| {k} | {n} |" for k, n in sorted(origins.items())),
        "",
        "| licence | records |",
        "|---|---|",
        *(f"| {k} | {n} |" for k, n in sorted(licences.items())),
    ]
    if chips:
        lines += [
            "",
            "| chip | records |",
            "|---|---|",
            *(f"| {k} | {n} |" for k, n in sorted(chips.items())),
        ]
    if dropped:
        lines += [
            "",
            "Dropped while building:",
            "",
            *(f"- {why}: {n}" for why, n in sorted(dropped.items())),
        ]
    lines += ["", *(f"- {n}" for n in notes or [])] if notes else []
    return "\n".join(lines) + "\n"


def write_dataset(
    records: list[CotRecord],
    out: Path,
    *,
    dropped: dict[str, int] | None = None,
    notes: list[str] | None = None,
) -> Path:
    """`out/ascend_cot.jsonl` and `out/DATACARD.md`; returns the JSONL path."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / DATA_FILE
    write_jsonl(records, path)
    (out / CARD_FILE).write_text(data_card(records, dropped=dropped, notes=notes), encoding="utf-8")
    return path


def to_hf_dataset(records: list[CotRecord]) -> Any:
    """A Hugging Face `datasets.Dataset` with the four top-level fields (nested as JSON text
    where their shape varies between kinds)."""
    from datasets import Dataset

    return Dataset.from_list(
        [
            {
                "instruction": r.instruction.model_dump_json(),
                "reasoning": r.reasoning,
                "answer": r.answer.model_dump_json(),
                "metadata": r.metadata.model_dump_json(),
            }
            for r in records
        ]
    )
