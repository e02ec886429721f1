"""The task as the model sees it: the reference source and its input shapes and dtypes.

Shapes come from running the reference's `get_inputs()` / `get_init_inputs()` in a child
process (a broken or slow reference cannot take the caller down), with a fixed seed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pydantic import BaseModel

DESCRIBE_TIMEOUT_S = 120

_DESCRIBE = r"""
import json, runpy, sys
import torch
torch.manual_seed(0)
ns = runpy.run_path(sys.argv[1])
def describe(v):
    if isinstance(v, torch.Tensor):
        dtype = str(v.dtype).removeprefix("torch.")
        return {"kind": "tensor", "shape": list(v.shape), "dtype": dtype}
    return {"kind": type(v).__name__, "value": repr(v)[:80]}
inputs = [describe(v) for v in ns["get_inputs"]()]
init = [describe(v) for v in ns.get("get_init_inputs", lambda: [])()]
model = ns["Model"](*ns.get("get_init_inputs", lambda: [])())
named = list(model.named_parameters()) + list(model.named_buffers())
params = [{"name": n, **describe(t)} for n, t in named]
print(json.dumps({"inputs": inputs, "init_inputs": init, "params": params}))
"""


class ReferenceTaskError(ValueError):
    """The reference file cannot be read or run; the message says why."""


class ReferenceTask(BaseModel):
    name: str
    source: str
    signature: str  # inputs, init inputs and parameters, one per line; "" when unknown


def _line(prefix: str, i: int | str, d: dict[str, object]) -> str:
    if d.get("kind") == "tensor":
        return f"{prefix} {i}: tensor shape {tuple(d['shape'])} dtype {d['dtype']}"  # type: ignore[arg-type]
    return f"{prefix} {i}: {d.get('kind')} = {d.get('value')}"


def describe_reference(ref_path: Path) -> ReferenceTask:
    """Reads the reference and lists what it feeds the model; a run failure is reported inline."""
    try:
        source = ref_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReferenceTaskError(f"cannot read reference {ref_path}: {exc}") from exc
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _DESCRIBE, str(ref_path)],
            capture_output=True,
            text=True,
            timeout=DESCRIBE_TIMEOUT_S,
            cwd=ref_path.parent,
        )
    except subprocess.TimeoutExpired:
        return ReferenceTask(name=ref_path.stem, source=source, signature="")
    if proc.returncode != 0 or not proc.stdout.strip():
        return ReferenceTask(name=ref_path.stem, source=source, signature="")
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    lines = [_line("input", i, d) for i, d in enumerate(info["inputs"])]
    lines += [_line("init input", i, d) for i, d in enumerate(info["init_inputs"])]
    lines += [_line("parameter", d["name"], d) for d in info["params"]]
    return ReferenceTask(name=ref_path.stem, source=source, signature="\n".join(lines))
