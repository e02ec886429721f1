"""Examples of our own validated kernels for the prompt, and the store that grows them.

Two sources: `bench/examples/<name>/` (hand-checked projects shipped with the repo, each with
its reference `*.py`), and `<cache>/llm/validated/<key>/` where every LLM generation that
validated is kept with its reference. Ranking is by overlap of identifiers between the task's
reference and an example's reference (torch ops and module names dominate), so an example
of the same op family comes first.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from collections import Counter
from pathlib import Path

from pydantic import BaseModel

from ascend_tools.project import SOURCE_SUFFIXES
from ascend_tools.toolchain.cache import cache_root, hash_parts

# Read as data, not imported (nothing imports `bench`); same place in a checkout and a wheel.
BENCH_EXAMPLES = Path(__file__).resolve().parents[2] / "bench" / "examples"
MAX_EXAMPLE_CHARS = 10000  # a whole small operator project (host + tiling + kernel)

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BOILERPLATE = frozenset(
    {"import", "torch", "nn", "Module", "class", "Model", "def", "self", "return", "forward"}
    | {"super", "__init__", "get_inputs", "get_init_inputs", "randn", "rand", "None"}
)


class Example(BaseModel):
    name: str
    origin: str  # "bench" or "validated"
    reference: str
    files: dict[str, str]


def validated_store() -> Path:
    return cache_root() / "llm" / "validated"


def _project_files(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_text(encoding="utf-8", errors="replace")
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.suffix in SOURCE_SUFFIXES
    }


def _load_dir(d: Path, origin: str) -> Example | None:
    refs = sorted(d.glob("*.py"))
    files = _project_files(d)
    if not refs or not files:
        return None
    return Example(name=d.name, origin=origin, reference=refs[0].read_text(), files=files)


def load_examples(dirs: list[tuple[Path, str]] | None = None) -> list[Example]:
    """All examples under the bench folder and the validated store (missing folders are empty)."""
    dirs = (
        dirs if dirs is not None else [(BENCH_EXAMPLES, "bench"), (validated_store(), "validated")]
    )
    found = []
    for base, origin in dirs:
        if base.is_dir():
            found += [
                e for d in sorted(base.iterdir()) if d.is_dir() and (e := _load_dir(d, origin))
            ]
    return found


def _bag(text: str) -> Counter[str]:
    return Counter(w.lower() for w in _WORD.findall(text) if w not in _BOILERPLATE)


def similarity(a: str, b: str) -> float:
    """Cosine similarity of identifier bags (0 when either side has none)."""
    ba, bb = _bag(a), _bag(b)
    dot = sum(v * bb[k] for k, v in ba.items())
    norm = math.sqrt(sum(v * v for v in ba.values())) * math.sqrt(sum(v * v for v in bb.values()))
    return dot / norm if norm else 0.0


def rank_examples(reference: str, examples: list[Example], k: int = 2) -> list[Example]:
    """The k examples most like the task; examples too long for a prompt are skipped."""
    fitting = [e for e in examples if sum(len(t) for t in e.files.values()) <= MAX_EXAMPLE_CHARS]
    fitting.sort(key=lambda e: similarity(reference, e.reference), reverse=True)
    return fitting[:k]


def store_validated(reference: Path, project: Path, meta: dict[str, object]) -> Path:
    """Keeps a validated generation for later prompts; same reference and files, same key."""
    files = _project_files(project)
    ref_text = reference.read_text(encoding="utf-8")
    key = hash_parts([ref_text, *[f"{p}\0{t}" for p, t in sorted(files.items())]])
    dest = validated_store() / f"{reference.stem}-{key}"
    if dest.exists():
        return dest
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    for rel, text in files.items():
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp / rel).write_text(text, encoding="utf-8")
    (tmp / "reference.py").write_text(ref_text, encoding="utf-8")
    (tmp / "meta.json").write_text(json.dumps(meta, indent=1, default=str), encoding="utf-8")
    try:
        tmp.rename(dest)
    except OSError:  # a concurrent run stored the same generation first
        shutil.rmtree(tmp, ignore_errors=True)
    return dest
