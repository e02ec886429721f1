"""Bind a PyTorch reference to an operator's OpDef: which reference value feeds each OpDef input
and attribute, and which reference result each OpDef output is compared with.

Rules (an explicit `[binding]` table in kernelgen.toml pins entries; the rest is inferred):
- Inputs: the reference's tensor arguments (forward arguments in signature order, then module
  parameters, then buffers) bind by name when every one of them is named like an OpDef input,
  else in order. A tensor list binds to a DYNAMIC input, None to an OPTIONAL input (absent);
  an OPTIONAL input left over is absent; a None left over is dropped. A forward argument
  mutated in place that is named like an OpDef output (not like an input), or that the table's
  `outputs` names, while the tensors outnumber the inputs, fills that output instead.
- Attributes: by name where a forward or `Model.__init__` parameter is named like the attribute;
  the other attributes, in declaration order, take the remaining values in order (forward
  arguments, then init arguments); an attribute left over takes its OpDef default, and so does
  a defaulted attribute whose next value does not fit it (an int for a float attribute, a value
  that does not convert), with a note.
- Outputs: the results are the returned tensors (`return[i]`), then the arguments the forward
  mutates in place (named after the argument). An OpDef output named like a mutated argument
  (or like the OpDef input it binds to) is compared with it; the rest bind in order, a DYNAMIC
  output taking a returned list (or the run of tensors the other outputs leave); an OPTIONAL
  output takes one only while the required outputs after it still get theirs, else is absent.
- Initial values: every output starts as poison unless the table's `initial` gives the value the
  caller fills it with (a reference cannot say it), or the OpDef's `InitValue(0)` has the
  framework zero it before the launch; an output a forward argument fills starts as that
  argument's values.
- Unchecked outputs: every output is compared unless the table's `unchecked` names it (outputs
  the project's own test does not check); at least one output stays compared.
Names match ignoring case and underscores (`negative_slope` = `negativeSlope`).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel

from ascend_tools.config import AttrConstant, BindingTable
from ascend_tools.project import ScalarValue
from ascend_tools.reference import RefArg, RefOutput, TrialData
from ascend_tools.runner.case import AttrValue
from ascend_tools.toolchain.models import AttrDef, OpDefinition, TensorDef


class BindingError(ValueError):
    """The reference and the OpDef do not bind; the message names what did not match and
    shows the `[binding]` table that would say it."""


class InputBinding(BaseModel):
    name: str
    """The OpDef input."""
    arg: str | None
    """The reference argument; None: absent (an OPTIONAL input, null pointer)."""


class AttrBinding(BaseModel):
    name: str
    type: str
    arg: str | None = None
    """The reference value it takes; None: `constant` (from the table or the OpDef default)."""
    constant: Any = None


class OutputBinding(BaseModel):
    name: str
    """The OpDef output."""
    results: list[str]
    """The reference results compared with it (several for a DYNAMIC output fed tensor by
    tensor)."""
    initial: float | None = None
    """The value it holds before the launch (`[binding.initial]`, or 0 from the OpDef's
    `InitValue(0)`); None: poison."""
    checked: bool = True
    """Whether validate compares it (False: named in `[binding] unchecked`)."""
    prefill: str | None = None
    """The forward argument whose values it holds before the launch: an output the caller
    fills with data the kernel reads and updates (an earlier op's result: DrivingSDK's
    scatter_max argmax pass takes the max values in its output `res`), mutated in place by the
    forward and taken by no OpDef input."""
    alias: str | None = None
    """The OpDef input whose buffer it is: its result is a forward argument mutated in place
    and bound to that input under another name (a launch that passes one buffer for both,
    xllm-ops cache_unshared_kv), so it starts as that input and the kernel updates it there.
    (An output the OpDef does not declare, named like an input, is that input read back after
    the launch: an op whose OpDef has no output for a cache it writes.)"""


class OpBinding(BaseModel):
    op: str
    inputs: list[InputBinding]
    attrs: list[AttrBinding]
    outputs: list[OutputBinding]
    notes: list[str] = []


def _key(name: str) -> str:
    return name.replace("_", "").lower()


def _convert(attr: AttrDef, value: object) -> AttrValue:
    """`value` as the attribute's case-file value; ValueError when it cannot be."""
    t = attr.type
    if t == "str":
        text = str(value)
        if not text or any(c.isspace() for c in text):
            raise ValueError(f"string {value!r} must be non-empty and without spaces")
        return text
    if t == "bool":
        if not isinstance(value, (bool, int)):
            raise ValueError(f"{value!r} is not a bool")
        return bool(value)
    if t in ("int", "float"):
        if isinstance(value, (list, tuple, str)) or value is None:
            raise ValueError(f"{value!r} is not a number")
        number = float(value)  # type: ignore[arg-type]
        if t == "int" and not number.is_integer():
            raise ValueError(f"{value!r} is not an integer")
        return int(number) if t == "int" else number
    if t in ("list_int", "list_float"):
        if not isinstance(value, (list, tuple)) or any(
            isinstance(v, (list, tuple, str)) for v in value
        ):
            raise ValueError(f"{value!r} is not a list of numbers")
        return [int(v) if t == "list_int" else float(v) for v in value]
    raise ValueError(f"unsupported attribute type {t!r}")


def _fits_by_position(attr: AttrDef, value: object) -> bool:
    """Whether a value named unlike `attr` may still take it by position: it converts, and an
    integer does not become a float attribute. An int init value is a size or a dim
    (nn.LayerNorm(normalized_shape=1024) next to an OpDef whose one attribute is the float
    epsilon), never a tolerance or a scale, so a defaulted attribute keeps its default."""
    if attr.type == "float" and isinstance(value, int):
        return False
    try:
        _convert(attr, value)
    except (TypeError, ValueError):
        return False
    return True


def _default(attr: AttrDef) -> object:
    text = attr.default or ""
    if text.strip().lower() in ("true", "false"):
        return text.strip().lower() == "true"
    try:
        return json.loads(text)
    except ValueError:
        return text


def attr_value(attr: AttrDef, value: object) -> AttrValue:
    """A reference value converted to the attribute's type; BindingError when it cannot be."""
    try:
        return _convert(attr, value)
    except (TypeError, ValueError) as exc:
        raise BindingError(f"attribute {attr.name} ({attr.type}) cannot take {exc}") from None


def _toml(value: object) -> str:
    """A TOML value: JSON spells strings, numbers, booleans and lists the same way."""
    return json.dumps(value)


def _describe_ref(trial: TrialData) -> str:
    tensors = [
        f"{a.name} ({a.source}{', list' if a.kind == 'tensor_list' else ''})"
        for a in trial.args
        if a.kind in ("tensor", "tensor_list")
    ]
    nones = [a.name for a in trial.args if a.kind == "absent" and not a.defaulted]
    values = [
        f"{a.name}={a.value!r} ({a.source}{', default' if a.defaulted else ''})"
        for a in trial.args
        if a.kind == "value"
    ]
    results = [
        o.name + (f" (mutated in place: {o.inplace_of})" if o.inplace_of else "")
        for o in trial.outputs
    ]
    lines = [f"  reference tensors: {', '.join(tensors) or 'none'}"]
    if nones:
        lines.append(f"  reference None arguments: {', '.join(nones)}")
    lines += [
        f"  reference values: {', '.join(values) or 'none'}",
        f"  reference results: {', '.join(results)}",
    ]
    return "\n".join(lines)


def _describe_op(op: OpDefinition) -> str:
    def tensors(ts: list[TensorDef]) -> str:
        return ", ".join(
            t.name + ("" if t.param_type == "required" else f" ({t.param_type})") for t in ts
        )

    attrs = ", ".join(
        f"{a.name}: {a.type}" + (" (no default)" if a.default is None else "") for a in op.attrs
    )
    return (
        f"  OpDef {op.name} inputs: {tensors(op.inputs) or 'none'}; attrs: {attrs or 'none'}; "
        f"outputs: {tensors(op.outputs) or 'none'}"
    )


def suggested_table(op: OpDefinition, trial: TrialData, table: BindingTable | None) -> str:
    """The `[binding]` table to write: the given entries, and for every other OpDef entry the
    reference name at the same position (`"?"` where there is none)."""
    table = table or BindingTable()
    slots = [a.name for a in _input_slots(trial) if not (a.kind == "absent" and a.defaulted)]
    values = [a.name for a in trial.args if a.kind == "value"]
    results = [o.name for o in trial.outputs]

    def entries(defs: list, given: dict, names: list[str]) -> str:
        free = [n for n in names if n not in given.values()]
        items = []
        for d in defs:
            if d.name in given:
                items.append(f"{d.name} = {_toml(given[d.name])}")
            else:
                items.append(f"{d.name} = {_toml(free.pop(0) if free else '?')}")
        return "{" + ", ".join(items) + "}"

    lines = ["[binding]"]
    if op.inputs:
        lines.append(f"inputs = {entries(op.inputs, table.inputs, slots)}")
    if op.attrs:
        lines.append(f"attrs = {entries(op.attrs, table.attrs, values)}")
    if op.outputs:
        lines.append(f"outputs = {entries(op.outputs, table.outputs, results)}")
    return "\n".join(lines)


def _input_slots(trial: TrialData) -> list[RefArg]:
    return [
        a
        for a in trial.args
        if a.kind in ("tensor", "tensor_list") or (a.kind == "absent" and a.source == "forward")
    ]


def _check_input(d: TensorDef, a: RefArg) -> str | None:
    """Why reference argument `a` cannot feed OpDef input `d` (None: it can)."""
    if a.kind == "absent" and d.param_type != "optional":
        return f"the reference passes None as {a.name} but OpDef input {d.name} is {d.param_type}"
    if a.kind == "tensor_list" and d.param_type != "dynamic":
        return (
            f"the reference passes a tensor list as {a.name} but OpDef input {d.name} is "
            f"{d.param_type} (a tensor list needs a DYNAMIC input)"
        )
    if a.kind == "tensor" and d.param_type == "dynamic":
        return (
            f"the reference passes one tensor as {a.name} but OpDef input {d.name} is dynamic "
            "(pass a list of tensors)"
        )
    return None


def _prefilled(op: OpDefinition, trial: TrialData, table: BindingTable) -> set[str]:
    """The forward arguments that fill OpDef outputs rather than feed inputs: tensors named like
    an output (or named in the table's `outputs`) and not like an input, while the tensors
    outnumber the inputs (the extra ones first: named in the table, then by name). Each is
    compared with its value after the forward: as the forward mutates it, or unchanged."""
    slots = [a for a in _input_slots(trial) if not (a.kind == "absent" and a.defaulted)]
    spare = len(slots) - len(op.inputs)
    if spare <= 0:
        return set()
    inputs = {_key(d.name) for d in op.inputs}
    outputs = {_key(d.name) for d in op.outputs}
    named = set(table.outputs.values())
    candidates = [
        a.name for a in slots
        if a.kind == "tensor" and a.name not in table.inputs.values() and _key(a.name) not in inputs
        and (a.name in named or _key(a.name) in outputs)
    ]
    candidates.sort(key=lambda n: n not in named)
    return set(candidates[:spare])


def _bind_inputs(
    op: OpDefinition, trial: TrialData, pinned: dict[str, str], prefilled: set[str]
) -> list[InputBinding]:
    slots = [a for a in _input_slots(trial) if a.name not in prefilled]
    by_name = {a.name: a for a in slots}
    chosen: dict[str, RefArg | None] = {}
    for d_name, a_name in pinned.items():
        chosen[d_name] = by_name[a_name]
    defs = [d for d in op.inputs if d.name not in chosen]
    free = [a for a in slots if a.name not in pinned.values()]
    d_keys = {_key(d.name): d for d in defs}
    # A None left at its default (not passed by get_inputs) may name nothing.
    if free and all(_key(a.name) in d_keys for a in free if not a.defaulted):
        for a in free:
            d = d_keys.get(_key(a.name))
            if d is not None:
                chosen[d.name] = a
    else:
        order = [a for a in free if not (a.kind == "absent" and a.defaulted)]
        for d, a in zip(defs, order, strict=False):
            chosen[d.name] = a
        for a in order[len(defs) :]:
            if a.kind != "absent":
                raise BindingError(
                    f"reference tensor {a.name} ({a.source}) has no OpDef input left to bind to "
                    f"(OpDef {op.name} has {len(op.inputs)} inputs)"
                    + (
                        "; if the caller fills an OpDef output with it before the launch, name "
                        f"it there: [binding] outputs = {{<output> = {_toml(a.name)}}}"
                        if a.kind == "tensor" and a.source == "forward" and op.outputs else ""
                    )
                )
    out = []
    for d in op.inputs:
        a = chosen.get(d.name)
        if a is None:
            if d.param_type != "optional":
                raise BindingError(
                    f"OpDef input {d.name} ({d.param_type}) gets no tensor from the reference"
                )
            out.append(InputBinding(name=d.name, arg=None))
            continue
        why = _check_input(d, a)
        if why:
            raise BindingError(why)
        out.append(InputBinding(name=d.name, arg=None if a.kind == "absent" else a.name))
    return out


def _bind_attrs(
    op: OpDefinition, trial: TrialData, pinned: dict[str, str | AttrConstant]
) -> tuple[list[AttrBinding], list[str]]:
    values = [a for a in trial.args if a.kind in ("value", "absent") and a.source != "buffer"]
    by_key = {_key(a.name): a for a in values}
    chosen: dict[str, RefArg | AttrConstant] = {}
    for name, target in pinned.items():
        chosen[name] = (
            next(a for a in values if a.name == target) if isinstance(target, str) else target
        )
    for attr in op.attrs:
        if attr.name not in chosen and _key(attr.name) in by_key:
            chosen[attr.name] = by_key[_key(attr.name)]
    used = {id(v) for v in chosen.values() if isinstance(v, RefArg)}
    free = [a for a in values if a.kind == "value" and id(a) not in used]
    skipped = []
    for attr in op.attrs:
        if attr.name in chosen or not free:
            continue
        if attr.default is not None and not _fits_by_position(attr, free[0].value):
            skipped.append(
                f"reference value {free[0].name}={free[0].value!r} ({free[0].source}) is not "
                f"bound by position to {attr.type} attribute {attr.name}, which keeps its "
                f"default {attr.default}"
            )
            continue
        chosen[attr.name] = free.pop(0)
    out = []
    for attr in op.attrs:
        target = chosen.get(attr.name)
        if isinstance(target, RefArg) and target.kind == "value":
            attr_value(attr, target.value)
            out.append(AttrBinding(name=attr.name, type=attr.type, arg=target.name))
            continue
        if target is not None and not isinstance(target, RefArg):
            const = attr_value(attr, target)
        elif attr.default is not None:
            const = attr_value(attr, _default(attr))
        else:
            raise BindingError(
                f"attribute {attr.name} of {op.name} has no default and the reference gives it "
                "no value"
            )
        out.append(AttrBinding(name=attr.name, type=attr.type, constant=const))
    notes = skipped + [
        f"reference value {a.name}={a.value!r} ({a.source}) binds to no attribute"
        for a in free
        if not a.defaulted and a.source == "forward"
    ]
    return out, notes


def _bind_outputs(
    op: OpDefinition, trial: TrialData, inputs: list[InputBinding], pinned: dict[str, str],
    prefilled: set[str],
) -> list[OutputBinding]:
    # An argument that fills an output and that the forward leaves as it was is a result too.
    candidates = trial.outputs + [
        trial.result(n) for n in sorted(prefilled) if all(o.name != n for o in trial.outputs)
    ]
    results = {o.name: o for o in candidates}
    chosen: dict[str, list[RefOutput]] = {
        d: [results.get(r) or trial.result(r)] for d, r in pinned.items()
    }
    input_of = {b.arg: b.name for b in inputs if b.arg}
    for d in op.outputs:
        if d.name in chosen:
            continue
        taken = {id(o) for v in chosen.values() for o in v}
        for o in candidates:
            names = {o.inplace_of, input_of.get(o.inplace_of or "")} - {None}
            if id(o) not in taken and _key(d.name) in {_key(n) for n in names if n}:
                chosen[d.name] = [o]
                break
    taken = {id(o) for v in chosen.values() for o in v}
    free = [o for o in candidates if id(o) not in taken]
    defs = [d for d in op.outputs if d.name not in chosen]
    for i, d in enumerate(defs):
        if not free:
            break
        needed = sum(1 for later in defs[i + 1:] if later.param_type != "optional")
        if d.param_type == "optional" and len(free) <= needed:
            continue  # too few results to spare one: the OPTIONAL output stays absent
        if d.param_type == "dynamic" and not free[0].is_list:
            take = max(1, len(free) - (len(defs) - i - 1))
            run = []
            while free and len(run) < take and not free[0].is_list:
                run.append(free.pop(0))
            chosen[d.name] = run
        else:
            chosen[d.name] = [free.pop(0)]
    # What is left and mutates an argument bound to an input is that input updated in place
    # (an OpDef that declares no output for it): read back under the input's name.
    read_back = [o for o in free if input_of.get(o.inplace_of or "") not in (None, *chosen)]
    free = [o for o in free if o not in read_back]
    if free:
        raise BindingError(
            f"reference result {free[0].name}"
            + (f" (mutated in place: {free[0].inplace_of})" if free[0].inplace_of else "")
            + f" has no OpDef output to compare with (OpDef {op.name} has "
            f"{len(op.outputs)} outputs, the reference gives {len(trial.outputs)} results)"
        )
    out = []
    for d in op.outputs:
        got = chosen.get(d.name)
        if not got and d.param_type == "optional":
            continue  # absent: the launch passes no buffer, as for an undefined optional tensor
        if not got:
            raise BindingError(f"OpDef output {d.name} gets no reference result to compare with")
        if d.param_type != "dynamic" and (len(got) != 1 or got[0].is_list):
            raise BindingError(
                f"reference result {got[0].name} is a tensor list but OpDef output {d.name} "
                f"is {d.param_type} (a tensor list needs a DYNAMIC output)"
            )
        alias = input_of.get(got[0].inplace_of or "") if len(got) == 1 else None
        prefill = got[0].inplace_of if len(got) == 1 and got[0].inplace_of in prefilled else None
        out.append(OutputBinding(
            name=d.name, results=[o.name for o in got], alias=alias if alias != d.name else None,
            prefill=prefill,
        ))
    unused = prefilled - {o.prefill for o in out}
    if unused:
        raise BindingError(
            f"reference tensor {sorted(unused)[0]} is mutated in place and named like no OpDef "
            "input, but fills no OpDef output either (name the output it fills in [binding] "
            "outputs)"
        )
    out += [OutputBinding(name=input_of[o.inplace_of or ""], results=[o.name]) for o in read_back]
    return out


def _check_table(op: OpDefinition, trial: TrialData, table: BindingTable) -> None:
    slots = [a.name for a in _input_slots(trial)]
    values = [a.name for a in trial.args if a.kind in ("value", "absent")]
    results = [o.name for o in trial.outputs]
    fills = [a.name for a in trial.args if a.kind == "tensor" and a.name not in results]
    for section, given, defs, names, what in (
        ("inputs", table.inputs, op.inputs, slots, "reference tensors"),
        ("attrs", table.attrs, op.attrs, values, "reference values"),
        ("outputs", table.outputs, op.outputs, results + fills,
         "reference results and tensor arguments"),
    ):
        known = [d.name for d in defs]
        for d_name, target in given.items():
            if d_name not in known:
                raise BindingError(
                    f"[binding] {section} names {d_name!r}, which is not one of OpDef {op.name}'s "
                    f"{section} ({', '.join(known) or 'none'})"
                )
            if isinstance(target, str) and target not in names:
                raise BindingError(
                    f"[binding] {section}.{d_name} = {target!r} names no reference value; "
                    f"{what}: {', '.join(names) or 'none'}"
                )
    outputs = [d.name for d in op.outputs]
    inputs = {d.name for d in op.inputs}
    for name in table.initial:
        if name not in outputs:
            raise BindingError(
                f"[binding] initial names {name!r}, which is not one of OpDef {op.name}'s "
                f"outputs ({', '.join(outputs) or 'none'})"
            )
        if name in inputs:
            raise BindingError(
                f"[binding] initial names {name!r}, an output named like an input: the tensor "
                "is updated in place and starts with the input's values"
            )
    for name in table.unchecked:
        if name not in outputs:
            raise BindingError(
                f"[binding] unchecked names {name!r}, which is not one of OpDef {op.name}'s "
                f"outputs ({', '.join(outputs) or 'none'})"
            )
    if outputs and set(outputs) <= set(table.unchecked):
        raise BindingError(
            f"[binding] unchecked names every output of OpDef {op.name} "
            f"({', '.join(outputs)}): nothing would be compared"
        )


def _init_value(op: str, name: str, value: int | None) -> float | None:
    """The value the OpDef's `InitValue` makes the framework fill an output with: only 0 in the
    reference's uint64_t form, so anything else is the project's error."""
    if value not in (None, 0):
        raise BindingError(
            f"OpDef {op} output {name}: InitValue({value}); the uint64_t form takes only 0 (it "
            "zeroes the output); for another value say it in [binding] initial"
        )
    return None if value is None else 0.0


def bind_op(op: OpDefinition, trial: TrialData, table: BindingTable | None = None) -> OpBinding:
    """How `trial`'s reference binds to `op` (module docstring); BindingError names the first
    thing that does not match, lists both sides and shows the `[binding]` table to write."""
    given = table or BindingTable()
    try:
        _check_table(op, trial, given)
        prefilled = _prefilled(op, trial, given)
        inputs = _bind_inputs(op, trial, given.inputs, prefilled)
        attrs, notes = _bind_attrs(op, trial, given.attrs)
        outputs = _bind_outputs(op, trial, inputs, given.outputs, prefilled)
        in_place = {d.name for d in op.inputs}  # an output named like an input starts as it
        declared = {d.name: d.init_value for d in op.outputs if d.name not in in_place}
        for o in outputs:
            if o.alias is not None and o.name in given.initial:
                raise BindingError(
                    f"[binding] initial names {o.name!r}, which is input {o.alias} updated in "
                    "place: it starts with the input's values"
                )
            if o.prefill is not None and o.name in given.initial:
                raise BindingError(
                    f"[binding] initial names {o.name!r}, which the reference argument "
                    f"{o.prefill} fills before the launch: it starts with that argument's values"
                )
            zeroed = _init_value(op.name, o.name, declared.get(o.name))
            o.initial = (
                None if o.alias is not None or o.prefill is not None
                else given.initial.get(o.name, zeroed)
            )
            o.checked = o.name not in given.unchecked
    except BindingError as exc:
        raise BindingError(
            f"the reference does not bind to OpDef {op.name}: {exc}\n"
            f"{_describe_ref(trial)}\n{_describe_op(op)}\n"
            "Say how in kernelgen.toml at the project root (OpDef name = reference name; "
            "entries left out are inferred):\n\n"
            f"{suggested_table(op, trial, table)}"
        ) from None
    return OpBinding(op=op.name, inputs=inputs, attrs=attrs, outputs=outputs, notes=notes)


def bind_scalars(
    scalars: dict[str, str], trial: TrialData, table: BindingTable | None = None,
    from_host: bool = False,
) -> dict[str, ScalarValue]:
    """Values of the by-value parameters of a single-file kernel's entry (`uint32_t n`): the
    table's `attrs` entry (a constant, or the name of a reference value), else the reference
    value named like the parameter (a forward or `Model.__init__` scalar). A launch passes
    values there, so each needs one; the error lists the reference's values and the table.
    `from_host`: the sample's host program (the kernel file's own main(), or a main.cpp beside
    it) launches the entry, so a parameter given neither way takes what that program passes
    (left out of the result)."""
    attrs = table.attrs if table is not None else {}
    values = {_key(a.name): a for a in trial.args if a.kind == "value"}
    out: dict[str, ScalarValue] = {}
    missing: list[str] = []
    for name, ctype in scalars.items():
        pinned = attrs.get(name)
        arg = values.get(_key(pinned if isinstance(pinned, str) else name))
        value = pinned if pinned is not None and not isinstance(pinned, str) else (
            arg.value if arg is not None else None)
        if isinstance(value, bool | int | float):
            out[name] = int(value) if "int" in ctype and isinstance(value, float) and \
                value.is_integer() else value
        elif isinstance(value, list) and value and all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in value):
            out[name] = list(value)  # a struct's fields, in declaration order
        elif value is None and not from_host:
            missing.append(name)
        elif value is None:
            continue
        else:
            raise BindingError(f"kernel parameter {name} ({ctype}) is passed by value and "
                               f"cannot take {value!r}: give a number, or a struct's field values "
                               "as a list, in [binding] attrs")
    if missing:
        table_text = ", ".join(f"{m} = ?" for m in missing)
        raise BindingError(
            f"the kernel entry takes {', '.join(f'{m} ({scalars[m]})' for m in missing)} by "
            f"value, and no reference value is named like {'them' if len(missing) > 1 else 'it'}:\n"
            f"{_describe_ref(trial)}\n"
            f"  say the values in kernelgen.toml:\n\n[binding]\nattrs = {{{table_text}}}"
        )
    return out


# ---------------------------------------------------------------- single-file kernels

ParamRole = Literal["input", "output", "in_place", "harness", "host", "absent"]

# Entry parameters of single-file kernels that the harness fills itself when nothing binds them
# (a workspace, an empty tiling buffer: emu/README.md).
HARNESS_PARAMS = ("workspace", "tiling")


class ParamBinding(BaseModel):
    """What one pointer parameter of a single-file entry holds. `in_place`: one buffer that
    starts as reference argument `arg` and is compared after the launch with `result`, its
    value as the forward mutates it (`logits.masked_fill_(...)`)."""

    name: str
    role: ParamRole
    arg: str | None = None
    """The reference tensor argument (input, in_place), or the None argument (absent: the
    parameter gets a null pointer)."""
    arg_index: int = 0
    """Which tensor of `arg` (an element of a tensor list bound by position)."""
    whole_list: bool = False
    """Inputs: the parameter takes all of tensor list `arg` as one ListTensorDesc in GM (a
    `[binding] inputs` entry naming the list), as a DYNAMIC OpDef input reaches its kernel."""
    result: str | None = None
    """The reference result (output, in_place): `return[i]` or a mutated argument's name."""
    result_index: int = 0
    initial: float | None = None
    """Outputs: the value every element holds before the launch (`[binding] initial`)."""
    checked: bool = True


Unit = tuple[str, int]
"""(reference argument or result name, tensor index in it): one tensor a parameter takes."""


def _check_single_table(params: list[str], trial: TrialData, table: BindingTable) -> None:
    args = {a.name: a for a in trial.args if a.kind in ("tensor", "tensor_list", "absent")}
    results = {o.name: o for o in trial.outputs}
    for section, given, known, what in (
        ("inputs", table.inputs, args, "reference tensors"),
        ("outputs", table.outputs, results, "reference results"),
    ):
        for p, target in given.items():
            if p not in params:
                raise BindingError(
                    f"[binding] {section} names {p!r}, which is not one of the entry's pointer "
                    f"parameters ({', '.join(params) or 'none'})"
                )
            if target not in known:
                raise BindingError(
                    f"[binding] {section}.{p} = {target!r} names no reference value; {what}: "
                    f"{', '.join(known) or 'none'}"
                )
            thing = known[target]
            if section == "inputs" and getattr(thing, "kind", "") in ("tensor_list", "absent"):
                continue  # the whole list, one descriptor (ParamBinding.whole_list); None: null
            if len(thing.tensors) != 1:
                raise BindingError(
                    f"[binding] {section}.{p} = {target!r} is a tensor list: one parameter takes "
                    "one tensor, so the list's tensors bind by position"
                )
    for p in set(table.inputs) & set(table.outputs):
        if results[table.outputs[p]].inplace_of != table.inputs[p]:
            raise BindingError(
                f"[binding] names {p} in inputs ({table.inputs[p]!r}) and outputs "
                f"({table.outputs[p]!r}): a parameter is one buffer, so that says it is updated "
                f"in place, but {table.outputs[p]!r} is not {table.inputs[p]!r} as the forward "
                "mutates it"
            )


def _bind_params(params: list[str], trial: TrialData, table: BindingTable) -> dict[str, tuple]:
    """param -> (input unit or None, result unit or None): the table, then names (a forward
    tensor argument named like the parameter), then in-place completion (a parameter bound to
    an argument the forward mutates, whose mutated value nothing else takes, is updated in
    place; likewise the other way round), then position for what is left."""
    mutated_of = {o.inplace_of: o.name for o in trial.outputs if o.inplace_of}
    source_of = {o.name: o.inplace_of for o in trial.outputs if o.inplace_of}
    ins: dict[str, str] = dict(table.inputs)
    outs: dict[str, str] = dict(table.outputs)
    # Names bind forward arguments only: module parameters and buffers keep their documented
    # place after them (a kernel's `weight` and `bias` swapped in its signature still fails).
    forward = {
        _key(a.name): a.name
        for a in trial.tensor_args
        if a.source == "forward" and a.kind == "tensor"
    }
    for p in params:
        name = forward.get(_key(p))
        if p in ins or p in outs or name is None or name in ins.values():
            continue
        ins[p] = name
    for p, a in list(ins.items()):
        r = mutated_of.get(a)
        if p not in outs and r is not None and r not in outs.values():
            outs[p] = r
    for p, r in list(outs.items()):
        a = source_of.get(r)
        if p not in ins and a is not None and a not in ins.values():
            ins[p] = a
    return {p: (ins.get(p), outs.get(p)) for p in params}


def _free_units(trial: TrialData, bound_in: set[str], bound_out: set[str]) -> tuple[
        list[Unit], list[Unit]]:
    free_in = [
        (a.name, k) for a in trial.tensor_args if a.name not in bound_in
        for k in range(len(a.tensors))
    ]
    free_out = [
        (o.name, k) for o in trial.outputs if o.name not in bound_out
        for k in range(len(o.tensors))
    ]
    return free_in, free_out


def _unit_text(u: Unit, trial: TrialData) -> str:
    many = {a.name for a in trial.tensor_args if a.kind == "tensor_list"} | {
        o.name for o in trial.outputs if o.is_list}
    return f"{u[0]}[{u[1]}]" if u[0] in many else u[0]


def suggested_single_table(
    params: list[str], trial: TrialData, table: BindingTable | None
) -> str:
    """The `[binding]` table to write for a single-file entry: the given entries and those the
    names imply, then every other pointer parameter (but the harness's workspace and tiling)
    taking the next reference input, then the next result (`"?"` past the end)."""
    given = table or BindingTable()
    bound = _bind_params(params, trial, given)
    ins = {p: a for p, (a, _) in bound.items() if a}
    outs = {p: r for p, (_, r) in bound.items() if r}
    free_in, free_out = _free_units(trial, set(ins.values()), set(outs.values()))
    free_results = [_unit_text(u, trial) for u in free_out]
    mutated_of = {o.inplace_of: o.name for o in trial.outputs if o.inplace_of}
    for p in params:
        if p in ins or p in outs or p in HARNESS_PARAMS:
            continue
        if free_in:
            unit = free_in.pop(0)
            ins[p] = _unit_text(unit, trial)
            r = mutated_of.get(unit[0])
            if r in free_results:  # the argument the forward mutates: one buffer, in place
                outs[p] = r
                free_results.remove(r)
        else:
            outs[p] = free_results.pop(0) if free_results else "?"
    lines = ["[binding]"]
    for section, entries in (("inputs", ins), ("outputs", outs)):
        if entries:
            items = ", ".join(f"{p} = {_toml(entries[p])}" for p in params if p in entries)
            lines.append(f"{section} = {{{items}}}")
    return "\n".join(lines)


def bind_single(
    params: list[str], trial: TrialData, table: BindingTable | None = None,
    host: bool = False,
) -> list[ParamBinding]:
    """How `trial`'s reference binds to a single-file entry's pointer parameters `params` (in
    entry order): `[binding]` inputs/outputs (a parameter in both, with the mutated value of
    the same argument, is updated in place), then names (a forward tensor argument named like
    a parameter binds to it, in place when the forward mutates it), then the harness's
    `workspace`/`tiling` for parameters of those names, then position (the remaining parameters
    take the remaining input tensors, then the remaining results). `host`: a host program
    launches the entry, so parameters left over after that take the buffers it passes (a
    tiling its GenerateTiling wrote). BindingError names what did not bind and shows the
    table to write."""
    given = table or BindingTable()
    try:
        _check_single_table(params, trial, given)
        bound = _bind_params(params, trial, given)
        out: dict[str, ParamBinding] = {}
        lists = {a.name for a in trial.tensor_args if a.kind == "tensor_list"}
        nones = {a.name for a in trial.args if a.kind == "absent"}
        for p, (a, r) in bound.items():
            if a in nones and given.inputs.get(p) == a:
                out[p] = ParamBinding(name=p, role="absent", arg=a)  # a null pointer, as passed
            elif a in lists and given.inputs.get(p) == a:
                if r:
                    raise BindingError(
                        f"[binding] names {p} in inputs and outputs but its input {a!r} is a "
                        "tensor list: a list parameter is read only")
                out[p] = ParamBinding(name=p, role="input", arg=a, whole_list=True)
            elif a and r:
                out[p] = ParamBinding(name=p, role="in_place", arg=a, result=r)
            elif a:
                out[p] = ParamBinding(name=p, role="input", arg=a)
            elif r:
                out[p] = ParamBinding(name=p, role="output", result=r)
            elif p == "tiling" and host:
                # The host program's launch passes the tiling its GenerateTiling wrote (the
                # harness's where it passes none); the harness's own is empty for a single file.
                out[p] = ParamBinding(name=p, role="host")
            elif p in HARNESS_PARAMS:
                out[p] = ParamBinding(name=p, role="harness")
        free_in, free_out = _free_units(
            trial, {b.arg for b in out.values() if b.arg}, {b.result for b in out.values()
                                                            if b.result})
        rest = [p for p in params if p not in out]
        if host and len(rest) > len(free_in) + len(free_out):
            for p in rest[len(free_in) + len(free_out):]:
                out[p] = ParamBinding(name=p, role="host")
            rest = rest[:len(free_in) + len(free_out)]
        if len(rest) != len(free_in) + len(free_out):
            tensors = ", ".join(_unit_text(u, trial) for u in free_in) or "none"
            results = ", ".join(_unit_text(u, trial) for u in free_out) or "none"
            raise BindingError(
                f"{len(rest)} pointer parameters are left to bind by position "
                f"({', '.join(rest) or 'none'}) but {len(free_in)} reference tensors ({tensors}) "
                f"and {len(free_out)} results ({results}) are left"
            )
        for p, (a, k) in zip(rest, free_in, strict=False):
            out[p] = ParamBinding(name=p, role="input", arg=a, arg_index=k)
        for p, (r, k) in zip(rest[len(free_in):], free_out, strict=True):
            out[p] = ParamBinding(name=p, role="output", result=r, result_index=k)
        _apply_output_table(params, out, given)
    except BindingError as exc:
        raise BindingError(
            f"the reference does not bind to the kernel entry's pointer parameters "
            f"({', '.join(params)}): {exc}\n{_describe_ref(trial)}\n"
            "Say how in kernelgen.toml at the project root (parameter = reference name; a "
            "parameter in both inputs and outputs is updated in place; entries left out are "
            f"inferred):\n\n{suggested_single_table(params, trial, table)}"
        ) from None
    return [out[p] for p in params]


def _apply_output_table(
    params: list[str], out: dict[str, ParamBinding], table: BindingTable
) -> None:
    """`[binding] initial` and `unchecked` on the output parameters, as for OpDef outputs."""
    outputs = [p for p in params if out[p].role in ("output", "in_place")]
    for name in [*table.initial, *table.unchecked]:
        if name not in outputs:
            section = "initial" if name in table.initial else "unchecked"
            raise BindingError(
                f"[binding] {section} names {name!r}, which is not an output parameter of the "
                f"entry ({', '.join(outputs) or 'none'})"
            )
    for name, value in table.initial.items():
        if out[name].role == "in_place":
            raise BindingError(
                f"[binding] initial names {name!r}, a parameter updated in place: it starts "
                "with the input's values"
            )
        out[name].initial = value
    for name in table.unchecked:
        out[name].checked = False
    if outputs and set(outputs) <= set(table.unchecked):
        raise BindingError(
            f"[binding] unchecked names every output parameter ({', '.join(outputs)}): nothing "
            "would be compared"
        )
