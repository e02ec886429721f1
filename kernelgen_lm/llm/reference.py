"""The task as the model sees it: the reference source and the kernel's inputs and outputs.

Shapes and dtypes come from trial 0 of the validator's own reference loader
(`ascend_tools.reference`), so the prompt describes exactly the tensors the kernel will get:
`get_inputs()` tensors, then parameters and buffers, then the outputs.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from ascend_tools.reference import ReferenceError, dtype_name, load_reference, make_trial


class ReferenceTask(BaseModel):
    name: str
    source: str
    signature: str  # kernel inputs and outputs, one per line


def describe_reference(ref_path: Path, dtype: str | None = None) -> ReferenceTask:
    """Reads and runs the reference once; ReferenceError (clear message) if it is unusable."""
    try:
        source = ref_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReferenceError(f"cannot read reference {ref_path}: {exc}") from exc
    ref = load_reference(ref_path)
    trial = make_trial(ref, ref.build_model(), seed=0, dtype=dtype)
    lines = [
        f"kernel input {i} ({name}): shape {tuple(t.shape)}, dtype {dtype_name(t)}"
        for i, (name, t) in enumerate(zip(trial.input_names, trial.inputs, strict=True))
    ]
    lines += [
        f"kernel output {i}: shape {tuple(t.shape)}, dtype {dt}"
        for i, (t, dt) in enumerate(zip(trial.expected, trial.output_dtypes, strict=True))
    ]
    lines += [
        f"forward argument {a.name} = {a.value!r} (an attribute)"
        for a in trial.args
        if a.source == "forward" and a.kind == "value" and not a.defaulted
    ]
    init = ref.init_inputs()
    if init:
        lines.append(
            f"Model(*get_init_inputs()) with {init!r} (attributes: bound by name, else in order)"
        )
    return ReferenceTask(name=ref_path.stem, source=source, signature="\n".join(lines))
