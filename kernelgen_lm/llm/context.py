"""Gathers what the task prompt shows: API catalog entries and retrieved examples."""

from __future__ import annotations

from ascend_tools.catalog import ApiEntry, load_catalog
from ascend_tools.chips import Chip
from kernelgen_lm.llm.api_hints import apis_for_reference
from kernelgen_lm.llm.examples import load_examples, rank_examples
from kernelgen_lm.llm.prompt import PromptContext
from kernelgen_lm.llm.reference import ReferenceTask

MAX_SIGNATURES = 2


def render_entry(entry: ApiEntry, chip: Chip) -> str:
    """One catalog entry in a few lines: signatures, what it does, dtypes and limits here."""
    lines = [f"- {entry.qualified_name}: {entry.doc.strip()}"]
    lines += [f"    {sig}" for sig in entry.signatures[:MAX_SIGNATURES]]
    if not entry.supports_arch(chip.arch):
        lines.append(f"    NOT supported on {chip.name} ({chip.arch})")
    if dtypes := entry.dtypes_for(chip.arch):
        lines.append(f"    dtypes on {chip.arch}: {', '.join(dtypes)}")
    lines += [f"    constraint: {c}" for c in entry.constraints[:2]]
    return "\n".join(lines)


def api_reference(source: str, chip: Chip) -> list[str]:
    catalog = load_catalog()
    entries = [e for name in apis_for_reference(source) if (e := catalog.get(name)) is not None]
    return [render_entry(e, chip) for e in entries]


def build_context(
    task: ReferenceTask, op_name: str, chip: Chip, plan_summary: str | None, n_examples: int = 1
) -> PromptContext:
    return PromptContext(
        op_name=op_name,
        reference_source=task.source,
        signature=task.signature,
        plan_summary=plan_summary,
        api_reference=api_reference(task.source, chip),
        examples=rank_examples(task.source, load_examples(), k=n_examples),
    )
