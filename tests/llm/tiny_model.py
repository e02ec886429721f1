"""Tiny causal LMs made on the spot for the LLM-path tests (no weights can be downloaded).

A byte-level BPE tokenizer is trained with `tokenizers` on the texts the tests will use; the
model is a 2-layer Llama (head_dim 64, about 0.2M parameters) saved with save_pretrained, so
vLLM, `transformers serve` and the transformers backend load it like any model (both made by
`kernelgen_lm.train.tiny`, which `kernelgen train refresh --base tiny` uses too). `teach`
overfits it on (chat, answer) lessons so that, greedily decoded, it writes a known answer to a
known kind of turn: a real model answering through a real server, with scripted content.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import shutil
from pathlib import Path
from typing import Any

from kernelgen_lm.train import tiny
from kernelgen_lm.train.tiny import tiny_llama, train_tokenizer

Lesson = tuple[list[dict[str, str]], str]


def _encode(tokenizer: Any, messages: list[dict[str, str]], answer: str) -> tuple[list[int], int]:
    prompt = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    p_ids = tokenizer(prompt, add_special_tokens=False).input_ids
    a_ids = tokenizer(answer + "<|end|>", add_special_tokens=False).input_ids
    return p_ids + a_ids, len(p_ids)


def greedy_answer(model: Any, tokenizer: Any, messages: list[dict[str, str]], max_new: int) -> str:
    import torch

    ids = tokenizer.apply_chat_template(
        messages, add_generation_prompt=True, return_tensors="pt", return_dict=True
    )["input_ids"]
    with torch.no_grad():
        out = model.generate(
            ids, max_new_tokens=max_new, do_sample=False, pad_token_id=tokenizer.pad_token_id
        )
    return tokenizer.decode(out[0, ids.shape[1] :], skip_special_tokens=True)


def teach(
    model: Any, tokenizer: Any, lessons: list[Lesson], *, max_steps: int = 600, log: bool = False
) -> int:
    """Trains until every lesson's answer comes back greedily; returns the steps it took."""
    import torch

    encoded = [_encode(tokenizer, m, a) for m, a in lessons]
    opt = torch.optim.AdamW(model.parameters(), lr=5e-3, betas=(0.9, 0.98), weight_decay=0.0)
    # Cosine decay: a high rate memorises fast, the decay stops the late loss spikes.
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=max_steps, eta_min=1e-4)
    losses = [float("inf")] * len(encoded)
    model.train()
    for step in range(1, max_steps + 1):
        k = step % len(encoded)
        ids, n_prompt = encoded[k]
        # The prompt is encoded without gradients (its keys and values are recomputed every
        # step); only the answer is trained on, which is most of the cost saved.
        with torch.no_grad():
            cache = model(input_ids=torch.tensor([ids[: n_prompt - 1]]), use_cache=True)
        x = torch.tensor([ids[n_prompt - 1 :]])
        labels = x.clone()
        labels[0, 0] = -100
        loss = model(input_ids=x, labels=labels, past_key_values=cache.past_key_values).loss
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        opt.step()
        sched.step()
        losses[k] = loss.item()
        if log and step % 10 == 0:
            print(f"step {step} losses {[round(v, 4) for v in losses]}", flush=True)
        if step % 20 == 0 and max(losses) < 0.02:
            model.eval()
            done = all(
                greedy_answer(model, tokenizer, m, len(tokenizer(a).input_ids) + 8).strip()
                == a.strip()
                for m, a in lessons
            )
            model.train()
            if done:
                model.eval()
                return step
    model.eval()
    raise RuntimeError(f"tiny model did not learn its lessons in {max_steps} steps")


def build_model(dest: Path, corpus: list[str], lessons: list[Lesson]) -> Path:
    """A model directory (cached by content): random weights if no lessons, else taught ones."""
    key = hashlib.sha256(
        json.dumps([corpus, lessons, Path(__file__).read_text(), inspect.getsource(tiny)]).encode()
    ).hexdigest()[:16]
    out = dest / f"tiny-{'taught' if lessons else 'random'}-{key}"
    if (out / "config.json").is_file():
        return out
    tokenizer = train_tokenizer(corpus + [a for _, a in lessons] * 4)
    model = tiny_llama(tokenizer)
    if lessons:
        teach(model, tokenizer, lessons)
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    tmp.rename(out)
    return out
