"""Records -> training examples, in exactly the chats the product sends at serving time:
generation records as the LLM path's system + task turns answered with `<reasoning>` and
`<file>` blocks, completions as the inline engine's fill-in-the-middle chat, questions as a
plain user turn. Preference pairs: a validated and a failed (or a faster and a slower) answer
to the same task."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ascend_tools.chips import DEFAULT_CHIP, get_chip
from kernelgen_lm.train.records import CotRecord

Chat = list[dict[str, str]]
# Among validated answers to one task, the faster is preferred when it is this much faster.
FASTER_BY = 1.10


class PreferencePair(BaseModel):
    prompt: Chat
    chosen: Chat
    rejected: Chat
    task: str


def prompt_of(r: CotRecord) -> Chat:
    ins = r.instruction
    if ins.kind == "complete":
        from ascend_tools.catalog import load_catalog
        from kernelgen_lm.complete.llm import fim_messages

        return [m.model_dump() for m in fim_messages(ins.prefix, ins.suffix, load_catalog())]
    if ins.kind == "generate":
        from kernelgen_lm.llm.prompt import system_message

        chip = get_chip(ins.chip or DEFAULT_CHIP)
        return [system_message(chip).model_dump(), {"role": "user", "content": ins.text}]
    return [{"role": "user", "content": ins.text}]


def completion_of(r: CotRecord) -> str:
    if r.instruction.kind == "complete":
        return r.answer.text
    from kernelgen_lm.llm.tagged import render_files

    body = render_files(r.answer.files) if r.answer.files else r.answer.text
    if r.reasoning.strip():
        return f"<reasoning>\n{r.reasoning.strip()}\n</reasoning>\n{body}"
    return body


def sft_examples(records: list[CotRecord]) -> list[dict[str, Any]]:
    """Conversational prompt/completion rows for TRL's SFTTrainer (loss on the completion
    only); records whose validation failed are left out (they only feed the pairs)."""
    return [
        {"prompt": prompt_of(r), "completion": [{"role": "assistant", "content": completion_of(r)}]}
        for r in records
        if r.passed
    ]


def preference_pairs(records: list[CotRecord]) -> list[PreferencePair]:
    """Per task and chip: every failed answer against the best validated one (asked with the
    validated one's prompt), and the best validated against a markedly slower validated one.
    Records without a task name group by their exact instruction."""
    groups: dict[tuple[str, str], list[CotRecord]] = {}
    for r in records:
        if r.instruction.kind == "generate" and r.metadata.validation is not None:
            task = r.metadata.task or r.instruction.op or ""
            key = (task, r.instruction.chip or "") if task else ("", r.instruction.text)
            groups.setdefault(key, []).append(r)
    pairs = []
    for (task, _), group in groups.items():
        good = [r for r in group if r.metadata.validation and r.metadata.validation.ok]
        bad = [r for r in group if r.metadata.validation and r.metadata.validation.ok is False]
        if not good:
            continue
        best = max(good, key=lambda r: r.metadata.speedup or 0.0)
        prompt = prompt_of(best)
        chosen = [{"role": "assistant", "content": completion_of(best)}]
        losers = list(bad)
        losers += [
            r
            for r in good
            if r is not best
            and r.metadata.speedup
            and best.metadata.speedup
            and best.metadata.speedup >= FASTER_BY * r.metadata.speedup
        ]
        for r in losers:
            pairs.append(
                PreferencePair(
                    prompt=prompt,
                    chosen=chosen,
                    rejected=[{"role": "assistant", "content": completion_of(r)}],
                    task=task,
                )
            )
    return pairs
