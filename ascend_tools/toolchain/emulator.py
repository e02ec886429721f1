"""Build an operator project against the CPU emulator with g++ (steps in `emu/README.md`).

Every artifact is cached by content (see `cache.py`); the device header is precompiled once per
chip so a kernel translation unit only parses the project's own code. Compilers run inside the
sandbox: the sources are untrusted.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from ascend_tools.catalog.vendor import (
    vendor_constants,
    vendor_header_message,
    vendor_headers,
    vendor_use_message,
)
from ascend_tools.chips import Chip
from ascend_tools.config import load_project_config
from ascend_tools.diagnostics import Diagnostic, RuleCode, Severity
from ascend_tools.project import (
    KernelProject,
    ScalarValue,
    blank,
    defines_main,
    launched_by_own_main,
)
from ascend_tools.project import host_program as project_host_program
from ascend_tools.runner.sandbox import SandboxLimits, SandboxResult, run_sandboxed
from ascend_tools.toolchain import compat, tpl
from ascend_tools.toolchain.cache import (
    CacheEntry,
    compiler_id,
    emulator_hash,
    hash_files,
    hash_parts,
)
from ascend_tools.toolchain.dtypes import get_dtype
from ascend_tools.toolchain.errors import (
    SOURCE as COMPILE_SOURCE,
)
from ascend_tools.toolchain.errors import (
    Locator,
    explain_missing_headers,
    make_diagnostic,
    parse_compiler_output,
    unknown_names,
)
from ascend_tools.toolchain.flags import CXX, DEVICE_HEADER, EMU_INCLUDE, HARNESS_SOURCE, chip_flags
from ascend_tools.toolchain.kernel_tiling import generated_tiling
from ascend_tools.toolchain.models import BuildResult, DescribeResult, OpDefinition

COMPILE_LIMITS = SandboxLimits(
    wall_seconds=300, cpu_seconds=300, memory_bytes=8 << 30, output_bytes=256 << 10
)
DESCRIBE_LIMITS = SandboxLimits(wall_seconds=30, cpu_seconds=30, memory_bytes=2 << 30)
PCH_HEADER = "kernelgen_pch.h"
WRAPPER = "kernel_entry.cpp"
COMPILE_ARGV = "compile_argv.json"
KERNEL_MIRROR = "kernel_src"
USE_PCH = True
# g++ cannot read a precompiled header it accepted by its stamp (truncated, damaged on disk).
# A rejected one (-Winvalid-pch: other flags or compiler) only warns and g++ parses the text.
_UNREADABLE_PCH = re.compile(
    r"while reading precompiled header|one or more PCH files were found, but they were invalid"
)
_MISSING_HEADER = re.compile(r"fatal error: (?P<header>[^:\s]+): No such file or directory")
# Rounds of empty stand-ins when explaining missing headers (each may reveal another one).
_EXPLAIN_ROUNDS = 4
# gcc's and clang's words for a name used but declared nowhere (or not in AscendC::): the only
# errors a constant of CANN's headers (vendor_internal.json, form `constant`) is supplied for.
_UNDECLARED = (
    re.compile(r"'(?P<name>\w+)' was not declared in this scope"),
    re.compile(r"use of undeclared identifier '(?P<name>\w+)'"),
    re.compile(r"'(?P<name>\w+)' is not a member of 'AscendC'"),
    re.compile(r"'(?P<name>\w+)' does not name a type"),  # a type name declaring a member
    re.compile(r"unknown type name '(?P<name>\w+)'"),
)
# Force-included (from the build folder, the compiler's working directory) on the retry.
VENDOR_CONSTANTS_HEADER = "kernelgen_vendor_constants.h"


class _Step:
    """Accumulates the compiler runs of one build: time, whether any ran, their diagnostics."""

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.cached = True

    def compile(self, argv: Sequence[str | Path], cwd: Path) -> SandboxResult:
        self.cached = False
        return run_sandboxed(
            [CXX, *map(str, argv)], cwd=cwd, limits=COMPILE_LIMITS, env={"LC_ALL": "C"}
        )

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.start


def _failed(
    out: SandboxResult, locator: Locator, step: _Step | None = None,
    argv: Sequence[str | Path] = (), cwd: Path | None = None,
) -> list[Diagnostic]:
    text = out.stderr + out.stdout
    if out.timed_out or out.signal is not None:
        text += f"\ncompiler {out.describe_end()}"
    diags = parse_compiler_output(text, locator, failed=True)
    if step is not None and cwd is not None and _MISSING_HEADER.search(text):
        diags = explain_missing_headers(diags, *_missing_use(text, step, argv, cwd, locator))
    return diags


def _missing_use(
    text: str, step: _Step, argv: Sequence[str | Path], cwd: Path, locator: Locator
) -> tuple[list[str], list[str]]:
    """(missing headers, names the project then lacks): the same compile again with an empty
    file for each missing header, read for the names it no longer declares."""
    stubs = cwd / "kernelgen_missing_headers"
    missing: list[str] = []
    names: list[str] = []
    for _ in range(_EXPLAIN_ROUNDS):
        new = [h for h in _MISSING_HEADER.findall(text) if h not in missing]
        if not new:
            break
        for h in new:
            stub = (stubs / h).resolve()
            if not stub.is_relative_to(stubs.resolve()):
                continue
            stub.parent.mkdir(parents=True, exist_ok=True)
            stub.write_text("")
        missing += new
        out = step.compile(
            [*argv, "-idirafter", stubs, "-fsyntax-only", "-fmax-errors=200"], cwd
        )
        text = out.stderr + out.stdout
        diags = parse_compiler_output(text, locator, failed=False)
        # A constant CANN's kernel headers declare is supplied after (_supply_vendor_constants).
        names += [n for n in unknown_names(d.message for d in diags)
                  if n not in names and n not in vendor_constants()]
    return missing, names


def _empty_missing_headers(
    out: SandboxResult, step: _Step, argv: list[str | Path], cwd: Path, locator: Locator
) -> tuple[SandboxResult, list[str | Path], list[Diagnostic]]:
    """A compile that failed only for headers nobody ships and the code takes nothing from,
    compiled again with an empty file for each: msopgen writes such headers when it creates a
    project (an `<op>_tiling.h` skeleton the sample's own op_host never fills) and the
    vendor's build finds them there. Returns the last result, its argv, and one warning per
    header made empty, at its #include; the first result unchanged when anything else fails
    than constants _supply_vendor_constants supplies next."""
    text = out.stderr + out.stdout
    if out.returncode == 0 or not _MISSING_HEADER.search(text):
        return out, argv, []
    missing, names = _missing_use(text, step, argv, cwd, locator)
    if names or not missing:
        return out, argv, []
    retry = [*argv, "-idirafter", cwd / "kernelgen_missing_headers"]
    again = step.compile(retry, cwd)
    if again.returncode != 0 and not _undeclared_vendor_constants(again.stderr + again.stdout):
        return out, argv, []
    warnings = [
        d.model_copy(update={
            "severity": Severity.WARNING, "code": RuleCode.COMPILE_WARNING.value,
            "message": (f"{d.message.split(':')[0]}: not found; nothing the project uses comes "
                        "from it, so it was built as an empty file (msopgen generates such "
                        "headers; the include can go)")})
        for d in parse_compiler_output(text, locator, failed=True)
        if d.message.endswith(": No such file or directory")
    ]
    return again, retry, warnings


def _undeclared_vendor_constants(text: str) -> list[str]:
    """The vendor constants these compiler messages call undeclared, in order, once each."""
    table = vendor_constants()
    names: list[str] = []
    for pattern in _UNDECLARED:
        for m in pattern.finditer(text):
            if m.group("name") in table and m.group("name") not in names:
                names.append(m.group("name"))
    return names


def _supply_vendor_constants(
    out: SandboxResult, step: _Step, argv: list[str | Path], at: int, cwd: Path,
    locator: Locator,
) -> tuple[SandboxResult, list[str | Path], list[Diagnostic]]:
    """A kernel compile that failed because the project uses a constant CANN's headers declare
    (PI) and never declares it, compiled again with the table's definition force-included at
    `at` (after the precompiled header): a global of ours for every build would collide with
    the projects that declare their own. Returns the last result, its argv, and one
    `vendor-internal` warning per constant supplied, at its first use."""
    supplied: list[str] = []
    warnings: list[Diagnostic] = []
    for _ in range(len(vendor_constants())):
        text = out.stderr + out.stdout
        new = [n for n in _undeclared_vendor_constants(text) if n not in supplied]
        if out.returncode == 0 or not new:
            break
        for d in parse_compiler_output(text, locator, failed=True):
            name = next((n for n in new if f"'{n}'" in d.message), None)
            if name is not None and not any(f"'{name}'" in w.message for w in warnings):
                message = vendor_use_message(vendor_constants()[name]) + (
                    f" The emulator supplied '{name}' to this build.")
                warnings.append(d.model_copy(update={
                    "severity": Severity.WARNING, "code": RuleCode.VENDOR_INTERNAL.value,
                    "message": message}))
        supplied += new
        (cwd / VENDOR_CONSTANTS_HEADER).write_text(
            "// CANN's constants this project uses undeclared (vendor_internal.json)\n"
            + "".join(vendor_constants()[n]["replacement"] + "\n" for n in supplied)
        )
        if VENDOR_CONSTANTS_HEADER not in argv:
            argv = [*argv[:at], "-include", VENDOR_CONSTANTS_HEADER, *argv[at:]]
        out = step.compile(argv, cwd)
    return out, argv, warnings if out.returncode == 0 else []


def _vendor_header_warnings(
    project: KernelProject, found: list[tuple[str, Path, int]]
) -> list[Diagnostic]:
    """A `vendor-internal` warning at each #include of one of CANN's internal headers that the
    build resolved to a stand-in (compat.vendor_header_includes)."""
    return [
        Diagnostic(
            file=str(path.resolve().relative_to(project.root.resolve())), line=line,
            end_line=line, severity=Severity.WARNING, code=RuleCode.VENDOR_INTERNAL.value,
            message=vendor_header_message(vendor_headers()[header]), source=COMPILE_SOURCE,
        )
        for header, path, line in found
    ]


def _locator(project: KernelProject, remap: dict[Path, tuple[str, int]] | None = None) -> Locator:
    fallback = (str(project.kernel_file), project.entry.line)
    return Locator(project.root, fallback, remap or {})


def _toolchain() -> list[str]:
    """What every artifact depends on beyond its own inputs: the emulator's sources (their
    content, so an edit to any header rebuilds) and the compiler that builds them."""
    return [emulator_hash(), compiler_id(CXX)]


def _harness(chip: Chip, step: _Step) -> tuple[Path | None, list[Diagnostic]]:
    flags = chip_flags(chip)
    entry = CacheEntry("harness", hash_parts(["harness", *_toolchain(), *flags]))
    if entry.ready:
        return entry.path / "harness.o", []
    if not HARNESS_SOURCE.exists():
        return None, [_missing_emulator_part(HARNESS_SOURCE)]
    with entry.exclusive():
        if entry.ready:
            return entry.path / "harness.o", []
        with entry.building() as stage:
            out = step.compile([*flags, "-c", HARNESS_SOURCE, "-o", "harness.o"], stage)
            if out.returncode != 0:
                return None, parse_compiler_output(
                    out.stderr + out.stdout,
                    Locator(HARNESS_SOURCE.parent, ("harness_main.cpp", 1), {}),
                    failed=True,
                )
            entry.publish(stage)
    return entry.path / "harness.o", []


def _missing_emulator_part(path: Path) -> Diagnostic:
    return make_diagnostic(
        ("<emulator>", 1), 1, f"emulator part missing: {path} (is the install complete?)", True
    )


def describe(project: KernelProject, chip: Chip) -> DescribeResult:
    """Compiles the host sources, links them with the harness and asks it for the OpDefs."""
    step = _Step()
    if not project.has_opdef:
        return DescribeResult(ok=True, seconds=0.0, cached=True)
    harness_o, diags = _harness(chip, step)
    if harness_o is None:
        return DescribeResult(ok=False, seconds=step.seconds, cached=False, diagnostics=diags)
    flags = chip_flags(chip)
    host_dir = project.abs(project.host_dir)
    # Newer msopgen projects keep the tiling struct and tiling-key header the host shares with
    # the kernel in op_kernel/ and build the host with that folder on its include path, after
    # op_host/ (Ascend/samples AddTemplateCustom); a flat project has one folder for both.
    kernel_dir = project.abs(project.kernel_dir)
    host_sources = [project.abs(s) for s in project.host_sources]
    per_file = [
        unit_flags(project, [project.abs(src)], [host_dir, kernel_dir])
        for src in project.host_files
    ]
    # The root is part of the key: binaries carry absolute source paths for their error reports.
    key = hash_parts(
        ["host", *_toolchain(), *flags, *(f for fl in per_file for f in fl), str(project.root),
         hash_files(host_sources, project.root)]
    )
    entry = CacheEntry("host", key)
    if not entry.ready:
        with entry.building() as stage:
            objects = []
            warnings: list[Diagnostic] = []
            for i, src in enumerate(project.host_files):
                obj = f"host{i}.o"
                argv: list[str | Path] = [
                    *flags, *per_file[i], f"-I{host_dir}", "-idirafter", str(kernel_dir), "-c",
                    project.abs(src), "-o", obj]
                out, argv = _compile_unit(step, argv, stage, chip, "host")
                out, argv, emptied = _empty_missing_headers(
                    out, step, argv, stage, _locator(project))
                if out.returncode != 0 and Path(src).name.endswith(_GRAPH_PROTO_SUFFIX):
                    warnings.append(_proto_left_out(project, src, out, step, argv, stage))
                    continue
                if out.returncode != 0:
                    return DescribeResult(
                        ok=False,
                        seconds=step.seconds,
                        cached=False,
                        diagnostics=_failed(out, _locator(project), step, argv, stage),
                    )
                warnings += emptied
                objects.append(obj)
            out = step.compile([*objects, harness_o, "-pthread", "-o", "describe"], stage)
            if out.returncode != 0:
                return DescribeResult(
                    ok=False,
                    seconds=step.seconds,
                    cached=False,
                    diagnostics=_failed(out, _locator(project)),
                )
            ran = run_sandboxed(
                [stage / "describe", "--describe", "describe.json"],
                cwd=stage,
                limits=DESCRIBE_LIMITS,
            )
            if ran.returncode != 0 or not (stage / "describe.json").exists():
                msg = (
                    "the host code could not be described (harness --describe "
                    f"{ran.describe_end()}): {ran.stderr.strip()[-800:]}"
                )
                loc = (str(project.host_files[0]), 1)
                return DescribeResult(
                    ok=False,
                    seconds=step.seconds,
                    cached=False,
                    diagnostics=[make_diagnostic(loc, 1, msg, True)],
                )
            (stage / "warnings.json").write_text(json.dumps([d.model_dump() for d in warnings]))
            entry.publish(stage)
    return _read_description(project, entry.path, step)


# op_host/<op>_proto.cpp: the graph-mode prototype of the op (`IMPL_OP(Op).InferShape(...)`, the
# shape and type inference graph compilation runs), which a single-operator launch never runs; a
# repository's own build may not compile it at all (xllm-ops builds op_host's *_def, *_tiling,
# *_infershape and *fallback files only), so one that does not compile is left out with a warning.
_GRAPH_PROTO_SUFFIX = "_proto.cpp"


def _proto_left_out(
    project: KernelProject, src: Path, out: SandboxResult, step: _Step,
    argv: Sequence[str | Path], cwd: Path,
) -> Diagnostic:
    errors = [d for d in _failed(out, _locator(project), step, argv, cwd)
              if d.severity == Severity.ERROR]
    first = f"{errors[0].file}:{errors[0].line}: {errors[0].message}" if errors else "errors"
    return make_diagnostic(
        (str(src), 1), 1,
        f"{src} does not compile ({first}); left out of the build: it holds the op's graph-mode "
        "prototype (shape and type inference for graph compilation), which a single-operator "
        "launch does not run, and the validation goes on without it",
        False,
    )


def _read_description(project: KernelProject, host_dir: Path, step: _Step) -> DescribeResult:
    loc = (str(project.host_files[0]), 1)
    try:
        ops = [
            OpDefinition(**o) for o in json.loads((host_dir / "describe.json").read_text())["ops"]
        ]
    except (ValueError, KeyError, TypeError, ValidationError) as exc:
        return DescribeResult(
            ok=False,
            seconds=step.seconds,
            cached=step.cached,
            diagnostics=[make_diagnostic(loc, 1, f"unreadable --describe output: {exc}", True)],
        )
    wanted = project.op_type
    match = [o for o in ops if project.is_op(o.name)] or (ops if len(ops) == 1 else [])
    if not match:
        names = ", ".join(o.name for o in ops) or "none"
        msg = (
            f"no OpDef named {wanted} (from {project.kernel_file}) is registered with "
            f"OP_ADD; registered: {names}"
        )
        return DescribeResult(
            ok=False,
            seconds=step.seconds,
            cached=step.cached,
            diagnostics=[make_diagnostic(loc, 1, msg, True)],
        )
    # Host builds cached before warnings were kept have no file: they had none to keep.
    saved = host_dir / "warnings.json"
    warnings = [Diagnostic(**d) for d in json.loads(saved.read_text())] if saved.exists() else []
    return DescribeResult(
        ok=True, seconds=step.seconds, cached=step.cached, op=match[0], host_dir=host_dir,
        diagnostics=warnings,
    )


def unit_flags(project: KernelProject, files: Sequence[Path], dirs: Sequence[Path]) -> list[str]:
    """Flags a translation unit of this project made of `files` (searching `dirs`) gets beyond
    the chip's (toolchain/compat.py): the macros the project's build defines (kernelgen.toml
    `defines`), the logging-macro switches for the project files it reads and the include root
    above the project."""
    search = [*dirs, compat.include_root(project.root)]
    closure = compat.include_closure(files, search, project.root)
    build_defines = [f"-D{d}" for d in load_project_config(project.root).defines]
    return [*build_defines, *compat.log_macro_flags(_text(f) for f in closure),
            *compat.include_flags(project.root)]


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _kernel_sources(project: KernelProject) -> list[Path]:
    """The device-side sources: everything under the kernel file's folder."""
    kdir = project.abs(project.kernel_file).parent
    return [project.abs(s) for s in project.sources if project.abs(s).parent.is_relative_to(kdir)]


def _mirror_kernel(project: KernelProject, stage: Path) -> Path | None:
    """When device sources use syntax g++ cannot parse, a copy of the kernel folder with it
    blanked (each file line-marked as its original) in `stage`; its kernel file, else None."""
    kernel = project.abs(project.kernel_file)
    kdir = kernel.parent
    sources = _kernel_sources(project)
    texts = {p: _text(p) for p in sources}
    launched = project.entry.name if launched_by_own_main(project) else None
    rewritten = {
        p: compat.rewrite_source(t, launched if p == kernel else None) for p, t in texts.items()
    }
    if not any(rewritten.values()):
        return None
    mirror = stage / KERNEL_MIRROR
    for p, text in texts.items():
        dst = mirror / p.relative_to(kdir)
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_text(compat.line_marked(rewritten[p] or text, p))
    return mirror / project.abs(project.kernel_file).relative_to(kdir)


# What each precompiled header holds. Device: the API every kernel unit starts with. Host: the
# standard library the vendor's host headers bring (kernelgen/host_std.h); a host unit's own text
# is short, and parsing those headers was most of its compile (2.1 s of a 2.8-s tiling file).
_PCH_SOURCES = {
    "device": f'#include "{DEVICE_HEADER}"\n',
    "host": '#include "kernelgen/host_std.h"\n',
}


def _pch_entry(chip: Chip, kind: str = "device") -> CacheEntry:
    """One precompiled header per (kind, emulator content, compiler, chip flags)."""
    parts = ["pch", *_toolchain(), *chip_flags(chip)]
    return CacheEntry("pch", hash_parts(parts if kind == "device" else [kind, *parts]))


def _pch(chip: Chip, step: _Step, kind: str = "device") -> tuple[Path | None, list[Diagnostic]]:
    flags = chip_flags(chip)
    entry = _pch_entry(chip, kind)
    if entry.ready:
        return entry.path / PCH_HEADER, []
    if not (EMU_INCLUDE / DEVICE_HEADER).exists():
        return None, [_missing_emulator_part(EMU_INCLUDE / DEVICE_HEADER)]
    with entry.exclusive():
        if entry.ready:
            return entry.path / PCH_HEADER, []
        with entry.building() as stage:
            (stage / PCH_HEADER).write_text(_PCH_SOURCES[kind])
            argv = [*flags, "-x", "c++-header", PCH_HEADER, "-o", PCH_HEADER + ".gch"]
            out = step.compile(argv, stage)
            if out.returncode != 0:
                return None, parse_compiler_output(
                    out.stderr + out.stdout,
                    Locator(EMU_INCLUDE, (DEVICE_HEADER, 1), {}),
                    failed=True,
                )
            entry.publish(stage)
    return entry.path / PCH_HEADER, []


def _compile_unit(
    step: _Step, argv: list[str | Path], stage: Path, chip: Chip, kind: str
) -> tuple[SandboxResult, list[str | Path]]:
    """Compiles `argv` with the `kind` precompiled header first when there is one; a header g++
    cannot read is discarded (the next build makes a fresh one) and the unit compiles from the
    header text, as it does when another process discarded it meanwhile."""
    pch = _pch(chip, step, kind)[0] if USE_PCH else None
    pch_flags: list[str | Path] = ["-include", str(pch)] if pch else []
    out = step.compile([*pch_flags, *argv], stage)
    if out.returncode != 0 and pch:
        unreadable = bool(_UNREADABLE_PCH.search(out.stderr))
        if unreadable or not pch.exists():
            if unreadable:
                _pch_entry(chip, kind).discard()
            return step.compile(argv, stage), argv
    return out, [*pch_flags, *argv]


# C library functions the emulator's headers declare (extern "C", global). A kernel entry may
# carry such a name (`extern "C" __global__ __aicore__ void hypot(...)`): device code sees no C
# library, so on the NPU there is no clash; here the wrapper renames the entry around its include.
_LIBC_NAMES = frozenset((
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil",
    "copysign", "cos", "cosh", "div", "erf", "erfc", "exp", "exp2", "expm1", "fabs", "fdim",
    "floor", "fma", "fmax", "fmin", "fmod", "frexp", "hypot", "ilogb", "ldexp", "lgamma",
    "llrint", "llround", "log", "log10", "log1p", "log2", "logb", "lrint", "lround", "modf",
    "nearbyint", "nextafter", "pow", "remainder", "remquo", "rint", "round", "scalbn", "sin",
    "sinh", "sqrt", "tan", "tanh", "tgamma", "trunc", "abort", "atoi", "exit", "free",
    "malloc", "memcmp", "memcpy", "memmove", "memset", "qsort", "rand", "strcmp", "strcpy",
    "strlen",
))


_GUARD = re.compile(r"^[ \t]*#[ \t]*ifndef[ \t]+(\w+)[ \t]*\n[ \t]*#[ \t]*define[ \t]+\1\b", re.M)


def _include_guard(header: Path) -> str | None:
    """The `#ifndef X / #define X` guard of a header, if it has one."""
    m = _GUARD.search(blank(_text(header)))
    return m.group(1) if m else None


# The pure Cube mode of the Matmul API (lib/matmul_intf.h cube_only_mode).
_CUBE_ONLY = re.compile(r"^[ \t]*#[ \t]*define[ \t]+ASCENDC_CUBE_ONLY\b", re.M)
# A mix kernel that declares no kernel type (runtime.h implicit_layout): it raises a cross-core
# flag in mode 2, which only the AIC and the AIVs of one group exchange.
_AIC_AIV_FLAG = re.compile(r"\bCrossCoreSetFlag\s*<\s*2\s*,")
_KERNEL_TYPE = re.compile(r"\bKERNEL_TASK_TYPE(?:_DEFAULT)?\s*\(|\b__mix__\s*\(|\b__cube__\b")


def wrapper_source(
    project: KernelProject, dtypes: dict[str, str], op_type: str | None,
    kernel_file: Path | None = None, scalars: dict[str, ScalarValue] | None = None,
    with_host_program: bool = False,
) -> str:
    """The translation unit that binds the kernel entry to the harness (README step 3).

    The per-build macros are defined here, after the precompiled device header, so one
    precompiled header serves every op and dtype combination. `kernel_file`: a rewritten copy
    of the kernel to include instead of the original (`_mirror_kernel`). `scalars`: the values
    of the entry's by-value parameters (0 where not given, or, `with_host_program`, what the
    sample's host program passes at its launch: the kernel file's own main(), registered here,
    or the one beside it), written into the call: the harness passes buffers only.
    """
    # The kernel's translation unit: the host headers the tiling header includes hold back what
    # CANN's kernel build would not see (kernelgen/host_std.h).
    lines = [
        "// generated by kernelgen: binds the kernel entry to the emulator harness",
        "#define KERNELGEN_KERNEL_TU 1",
    ]
    if op_type:
        lines.append(f"#define KERNELGEN_OP_TYPE {op_type}")
    for name, dt in dtypes.items():
        d = get_dtype(dt)
        lines.append(f"#define DTYPE_{name.upper()} {d.c_type}")
        # A number, as CANN's kernel build defines it: usable in `#if` (compat.rewrite_source)
        # and comparable with the unscoped ge::DataType enumerators in code.
        number = compat.ge_dtype_numbers()[d.ge_type.removeprefix("ge::")]
        lines.append(f"#define ORIG_DTYPE_{name.upper()} {number}")
    tiling = project.abs(project.tiling_header) if project.tiling_header else None
    guard = _include_guard(tiling) if tiling else None
    own = project.abs(project.kernel_file).parent / tiling.name if tiling else None
    if (guard is not None and own is not None and own != tiling and own.is_file()
            and _include_guard(own) == guard):
        # The kernel's own header of that name, under the host header's include guard, holds
        # its side of the tiling (a plain struct, Ascend/samples WholeReduceSumCustom): the host
        # header would hide it, and CANN's kernel build never sees the host one. (A kernel
        # header of the same name with a guard of its own, DrivingSDK scatter_max_v1.h, is the
        # kernel's class: both are included; a flat project's one header is both sides'.)
        tiling = None
    # CANN's kernel builds hand every kernel the tiling macros: GET_TILING_DATA, TILING_KEY_IS
    # and REGISTER_TILING_DEFAULT need no tiling header of the project's (Ascend/samples
    # AddsCustom keeps its struct in op_kernel/; sgl-kernel-npu's kernel-launch builds use
    # REGISTER_TILING_DEFAULT with kernel_operator.h alone).
    lines.append('#include "kernel_tiling/kernel_tiling.h"')
    sources = [_text(p) for p in _kernel_sources(project)]
    if tiling:
        # The structs CANN's build generates from the host's definitions, not the host header
        # (whose own includes the kernel never sees), unless the kernel includes that itself.
        generated = generated_tiling(project)
        lines.append(generated if generated is not None else f'#include "{tiling}"')
        lines += compat.global_tiling_aliases(generated or _text(tiling), sources)
    name = project.entry.name
    call = name
    if name in _LIBC_NAMES:
        call = f"kernelgen_entry_{name}"
        lines += ["#include <cmath>", "#include <cstdlib>", "#include <cstring>",
                  f"#define {name} {call}"]
    # A kernel file that holds its host program too (.asc files, kernel-launch samples) defines
    # main(); the harness has its own, so the file's is renamed around its include.
    own_main = defines_main(_text(project.abs(project.kernel_file)))
    own_launch = launched_by_own_main(project)  # its launches are kernelgen_launch(...) now
    if own_launch or with_host_program:
        lines.append('#include "kernelgen/host_launch.h"')
    if own_main:
        lines.append("#define main kernelgen_kernel_file_main")
    lines.append(f'#include "{kernel_file or project.abs(project.kernel_file)}"')
    if own_main:
        lines.append("#undef main")
    if call != name:
        lines.append(f"#undef {name}")
    if any(map(_CUBE_ONLY.search, sources)):
        lines.append(
            "static const bool kernelgen_cube_only = (::kernelgen::cube_only_mode() = true);")
    code = [blank(t) for t in sources]
    if any(map(_AIC_AIV_FLAG.search, code)) and not any(map(_KERNEL_TYPE.search, code)):
        lines.append("static const bool kernelgen_mix = "
                     "((::kernelgen::implicit_layout() = ::kernelgen::CoreLayout::MIX_1_2), true);")
    entry = project.entry
    n = len(entry.tensors)
    buffers = iter(range(n))
    given = scalars or {}

    def arg(i: int, p: str) -> str:
        if p not in entry.scalars:
            return f"a[{next(buffers)}]"
        if p not in given and with_host_program:  # what the host program passed at its launch
            return f"::kernelgen::host_launch_arg<{entry.scalars[p]}>({i})"
        return _by_value(entry.scalars[p], given.get(p, 0))

    args = ", ".join(arg(i, p) for i, p in enumerate(entry.params))
    if own_launch and with_host_program:
        lines += _register_host_main(name, "kernelgen_kernel_file_main")
    if entry.template_params:
        lines += _template_dispatch(project, call, args)
    else:
        lines.append(f"static void kernelgen_entry(uint8_t** a) {{ {call}({args}); }}")
    lines += [
        f'static const bool kernelgen_registered = kernelgen::register_kernel("{name}", '
        f"&kernelgen_entry, {n});",
        "",
    ]
    return "\n".join(lines)


def _template_dispatch(project: KernelProject, call: str, args: str) -> list[str]:
    """The entry of a tiling-template kernel: one instantiation per combination ASCENDC_TPL_SEL
    lists (toolchain/tpl.py), called for the argument values the tiling key names."""
    entry = project.entry
    try:
        combos = tpl.combinations(
            (blank(_text(p)) for p in _kernel_sources(project)), entry.template_params
        )
    except tpl.TemplateError as exc:
        message = str(exc).replace("\\", "\\\\").replace('"', '\\"')
        return [f'#error "tiling-template kernel {entry.name}: {message}"',
                "static void kernelgen_entry(uint8_t**) {}"]
    not_from_key = (
        "the tiling key was not made by GET_TPL_TILING_KEY: a tiling-template kernel takes "
        "its template arguments from it"
    )
    not_selected = (
        "GET_TPL_TILING_KEY chose template arguments that no ASCENDC_TPL_SEL combination lists"
    )
    out = [
        '#include "ascendc/host_api/tiling/template_argument.h"',
        "static void kernelgen_entry(uint8_t** a) {",
        "    const std::vector<uint64_t>* v = ::kernelgen::tpl_values(::kernelgen::tiling_key());",
        f'    if (v == nullptr) ::kernelgen::fail("tiling-mismatch", "{not_from_key}", "", 0);',
    ]
    for combo in combos:
        values = ", ".join(f"static_cast<uint64_t>({c})" for c in combo)
        out.append(f"    if (*v == std::vector<uint64_t>{{{values}}}) "
                   f"return {call}<{', '.join(combo)}>({args});")
    out += [f'    ::kernelgen::fail("tiling-mismatch", "{not_selected}", "", 0);', "}"]
    return out


def _by_value(ctype: str, value: ScalarValue) -> str:
    """The argument expression of a by-value parameter: a number cast to its type, or a struct
    built from its field values in declaration order (aggregate initialisation)."""
    if isinstance(value, list):
        plain = " ".join(w for w in ctype.split() if w not in ("const", "volatile"))
        # Whole numbers as integer literals: TOML's [64, 2.5] arrives as floats, and a float
        # literal for an integer field is a narrowing error in braces.
        fields = (str(int(v)) if isinstance(v, float) and v.is_integer() else _literal(v)
                  for v in value)
        return f"{plain}{{{', '.join(fields)}}}"
    return f"static_cast<{ctype}>({_literal(value)})"


def _literal(value: bool | int | float) -> str:
    """A C++ literal of a by-value argument (floats round-trip: repr is exact; inf and NaN have
    no literal, so they are spelled through <limits>, which kernel_operator.h includes)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if not isinstance(value, float):
        return str(int(value))
    if math.isnan(value):
        return "std::numeric_limits<double>::quiet_NaN()"
    if math.isinf(value):
        return f"{'-' if value < 0 else ''}std::numeric_limits<double>::infinity()"
    return repr(value)


def _register_host_main(kernel: str, main: str) -> list[str]:
    """Registers the renamed main() `main` as the host program the harness runs up to its
    launch of `kernel` (kernelgen/host_launch.h)."""
    return [
        "static const bool kernelgen_host_registered = ::kernelgen::register_host_launch(",
        f'    "{kernel}", [] {{ return ::kernelgen::call_main(&{main}); }});',
    ]


def _host_program_unit(project: KernelProject, main_file: Path) -> str:
    """The translation unit of the sample's host program's main file: its main() renamed and
    registered for the harness to run up to the launch."""
    return "\n".join([
        "// generated by kernelgen: the sample's host program, run up to its kernel launch",
        "#define main kernelgen_host_main",
        f'#include "{main_file}"',
        "#undef main",
        '#include "kernelgen/host_launch.h"',
        *_register_host_main(project.entry.name, "kernelgen_host_main"),
        "",
    ])


# The header CANN's kernel-launch build generates for each kernel (`aclrtlaunch_<kernel>.h`:
# ACLRT_LAUNCH_KERNEL(kernel)(blockDim, stream, args...)), written for a host program that
# launches through it: here the launch records its arguments (kernelgen/host_launch.h).
ACL_LAUNCH_DIR = "kernelgen_acl_launch"


_ACL_LAUNCH_INCLUDE = re.compile(r'#\s*include\s*[<"]aclrtlaunch_(\w+)\.h[>"]')


def _acl_launch_header(kernel: str, entry: str) -> str:
    """`aclrtlaunch_<kernel>.h`: the entry's launch records itself and ends the program; a
    launch of another kernel of the sample (Ascend/samples' IBShare pair) does nothing."""
    body = (f'    return ::kernelgen::record_launch(blockDim, "{kernel}", args...);'
            if kernel == entry else "    return 0;  // not the kernel under validation")
    return "\n".join([
        "// generated by kernelgen: ACL's launch header, recording the launch for the harness",
        "#pragma once",
        '#include "acl/acl.h"',
        '#include "kernelgen/host_launch.h"',
        "#ifndef ACLRT_LAUNCH_KERNEL",
        "#define ACLRT_LAUNCH_KERNEL(kernel) aclrtlaunch_##kernel",
        "#endif",
        "template <class... A>",
        f"inline uint32_t aclrtlaunch_{kernel}(uint32_t blockDim, aclrtStream, A... args) {{",
        body,
        "}",
        "",
    ])


def _build_host_program(
    project: KernelProject, chip: Chip, step: _Step, stage: Path, locator: Locator
) -> tuple[list[str], list[Diagnostic]]:
    """Objects of the host program beside a single-file kernel (`project.host_program`), or
    the diagnostics of the first file that does not compile."""
    files = [project.abs(f) for f in project_host_program(project)]
    kernel_dir = project.abs(project.kernel_file).parent
    launch_dir = stage / ACL_LAUNCH_DIR
    launch_dir.mkdir(parents=True, exist_ok=True)
    included = (k for f in files for k in _ACL_LAUNCH_INCLUDE.findall(_text(f)))
    kernels = {project.entry.name, *included}
    for kernel in kernels:
        (launch_dir / f"aclrtlaunch_{kernel}.h").write_text(
            _acl_launch_header(kernel, project.entry.name))
    objects: list[str] = []
    for i, src in enumerate(files):
        unit = src
        if i == 0:
            unit = stage / "host_program_main.cpp"
            unit.write_text(_host_program_unit(project, src))
        obj = f"host_program{i}.o"
        # The sample's CMake build defines SOC_VERSION ("Ascend910B2") for its host program,
        # and CUSTOM_ASCEND310P on that chip.
        soc = [f'-DSOC_VERSION="Ascend{chip.name.removeprefix("ascend").upper()}"']
        if chip.name.startswith("ascend310p"):
            soc.append("-DCUSTOM_ASCEND310P")
        argv: list[str | Path] = [
            *chip_flags(chip), *unit_flags(project, [src], [kernel_dir]), *soc,
            f"-I{kernel_dir}", "-idirafter", launch_dir, "-c", unit, "-o", obj]
        out, argv = _compile_unit(step, argv, stage, chip, "host")
        if out.returncode != 0:
            return [], _failed(out, locator, step, argv, stage)
        objects.append(obj)
    return objects, []


def build(
    project: KernelProject, chip: Chip, dtypes: dict[str, str],
    scalars: dict[str, ScalarValue] | None = None, host_program: bool = False,
) -> BuildResult:
    """The run binary for one dtype combination ({OpDef tensor or entry parameter: dtype}) and
    the values of a single-file entry's by-value parameters; `host_program`: with the sample's
    host program (the kernel file's own main(), or the one beside it) built in and registered,
    for the harness to run up to its launch."""
    step = _Step()
    desc = describe(project, chip)
    if not desc.ok:
        return BuildResult(
            ok=False, seconds=step.seconds, cached=desc.cached, diagnostics=desc.diagnostics
        )
    harness_o, diags = _harness(chip, step)
    pch, pch_diags = _pch(chip, step) if USE_PCH else (None, [])
    if harness_o is None or (USE_PCH and pch is None):
        return BuildResult(
            ok=False, seconds=step.seconds, cached=False, diagnostics=diags + pch_diags
        )
    kernel_dir = project.abs(project.kernel_file).parent
    unit = [project.abs(project.kernel_file)]
    if project.tiling_header and generated_tiling(project) is None:
        unit.append(project.abs(project.tiling_header))
    flags = [*chip_flags(chip), *unit_flags(project, unit, [kernel_dir]),
             *compat.core_pass_flags(chip.cce_aicore, map(_text, _kernel_sources(project)))]
    op_type = desc.op.name if desc.op else None
    program = project_host_program(project) if host_program else []
    with_program = host_program and (bool(program) or launched_by_own_main(project))
    key = hash_parts(
        [
            "kernel",
            *_toolchain(),
            *flags,
            str(USE_PCH),
            hash_files([project.abs(s) for s in project.sources], project.root),
            str(project.root),
            json.dumps(sorted(dtypes.items())),
            op_type or "-",
            project.entry.name,
            json.dumps(sorted((scalars or {}).items())),
            hash_files([project.abs(f) for f in program], project.root) if program else "-",
            str(with_program),
        ]
    )
    entry = CacheEntry("kernel", key)
    if not entry.ready:
        with entry.building() as stage:
            wrapper = stage / WRAPPER
            mirrored = _mirror_kernel(project, stage)
            wrapper.write_text(
                wrapper_source(project, dtypes, op_type, mirrored, scalars, with_program))
            locator = _locator(project, {wrapper: (str(project.kernel_file), project.entry.line)})
            kernel_dirs = [mirrored.parent] if mirrored else []
            vendor_includes = compat.vendor_header_includes(_kernel_sources(project))
            stand_ins = (
                ["-idirafter", str(compat.write_vendor_header_stand_ins(
                    [h for h, _, _ in vendor_includes], stage / compat.VENDOR_HEADERS_DIR))]
                if vendor_includes else []
            )
            # The precompiled header comes first (_compile_unit); the force-includes of `flags`
            # follow it.
            argv: list[str | Path] = [
                *flags,
                *(f"-I{d}" for d in kernel_dirs),
                f"-I{kernel_dir}",
                *stand_ins,
                "-c",
                WRAPPER,
                "-o",
                "kernel.o",
            ]
            out, argv = _compile_unit(step, argv, stage, chip, "device")
            at = 2 if argv[0] == "-include" else 0
            # Missing headers first: g++ stops at one, before the names it would find undeclared.
            out, argv, emptied = _empty_missing_headers(out, step, argv, stage, locator)
            out, argv, supplied = _supply_vendor_constants(out, step, argv, at, stage, locator)
            if out.returncode != 0:
                return BuildResult(
                    ok=False,
                    seconds=step.seconds,
                    cached=False,
                    diagnostics=_failed(out, locator, step, argv, stage),
                )
            warnings = (
                _vendor_header_warnings(project, vendor_includes)
                + supplied
                + emptied
                + parse_compiler_output(out.stderr, locator, failed=False)
            )
            # How the unit was compiled, to re-run it by hand (or check the PCH is taken).
            (stage / COMPILE_ARGV).write_text(json.dumps([CXX, *map(str, argv)]))
            (stage / "warnings.json").write_text(json.dumps([d.model_dump() for d in warnings]))
            host_objs = sorted(desc.host_dir.glob("host*.o")) if desc.host_dir else []
            program_objs, program_diags = (
                _build_host_program(project, chip, step, stage, locator) if program else ([], []))
            if program_diags:
                return BuildResult(
                    ok=False, seconds=step.seconds, cached=False, diagnostics=program_diags
                )
            out = step.compile(
                ["kernel.o", *host_objs, *program_objs, harness_o, "-pthread", "-o", "run"], stage
            )
            if out.returncode != 0:
                return BuildResult(
                    ok=False, seconds=step.seconds, cached=False, diagnostics=_failed(out, locator)
                )
            entry.publish(stage)
    warnings = [Diagnostic(**d) for d in json.loads((entry.path / "warnings.json").read_text())]
    return BuildResult(
        ok=True,
        seconds=step.seconds,
        cached=step.cached and desc.cached,
        diagnostics=desc.diagnostics + warnings,
        binary=entry.path / "run",
    )
