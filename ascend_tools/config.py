"""The project configuration: `kernelgen.toml` at the project root (or `[tool.kernelgen]` in
pyproject.toml), read in one place for every tool that needs it.

    reference = "tests/ref.py"      # the PyTorch reference (relative to the project root)
    op = "boxes_overlap_bev_v1"     # which op of a project with several (op_kernel/<op>.cpp)
    auto_sync = false               # compiled without --cce-auto-sync (default true: on)
    defines = ["USE_INT64_PAD"]     # macros the project's build script defines (NAME or NAME=VALUE)
    block_dim = 8                   # a kernel without an OpDef: its launch's block count
    atol = 1e-2                     # the project's own test's tolerances (default: per dtype)
    rtol = 1e-2

    [lint]                          # ascend_tools.lint.config.LintConfig
    chip = "ascend910b2"
    ignore = ["missing-tail"]

    [binding]                       # how the reference binds to the OpDef (ascend_tools.binding)
    inputs = {x = "input", gamma = "weight"}
    attrs = {alpha = "scale", beta = 0.5}
    outputs = {y = "return[0]", var = "var"}

    unchecked = ["grad_depth"]      # outputs the project's own test does not compare

    [binding.initial]               # outputs the framework fills before the launch
    grad_points = 0.0

The project's reference is `reference` when given, else `ref.py` at the project root, else none.

`auto_sync` says whether the BiSheng compiler's automatic synchronization (`--cce-auto-sync`) is
on for the kernel: it is by default in kernel-launch and custom operator projects, and the
compiler then inserts the flags between S and MTE2/MTE3/V itself, so the emulator's pipe model and
lint do not ask for them (https://www.hiascend.com/document/detail/en/CANNCommunityEdition/900/compiler/BishengCompiler/atlas_bisheng_10_0008.html).
A project built without it sets `auto_sync = false` at the top level (not under `[lint]`).

`defines` are the macros the project's own build defines beyond the sources (CMake
`add_definitions`, a run.sh that writes a `#define` into a header before it builds, as
fbgemm-ascend's jagged_to_padded_dense does): the emulator compiles every unit with them (`-D`)
and lint judges `#ifdef` branches by them.

`atol`/`rtol` replace validate's per-dtype tolerances (`ascend_tools.reference.TOLERANCES`) for a
project whose own test accepts more (Ascend/samples' verify_result.py compares float16 outputs
with an absolute error of 1e-2); `kernelgen validate --atol/--rtol` override them in turn.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import tomllib
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from ascend_tools.chips import DEFAULT_CHIP

CONFIG_FILES = ("kernelgen.toml", "pyproject.toml")
DEFAULT_REFERENCE = "ref.py"


class ConfigError(ValueError):
    """The configuration file is unreadable or malformed; the message says which and why."""


class LintConfig(BaseModel):
    chip: str = DEFAULT_CHIP
    ignore: list[str] = []
    shapes: list[list[int]] | None = None
    """Input shapes (test binding) used to evaluate host tiling values."""
    auto_sync: bool = True
    """Copied from the project's top-level `auto_sync` (the compiler's --cce-auto-sync)."""
    defines: list[str] = []
    """Copied from the project's top-level `defines` (module docstring)."""


AttrConstant = bool | int | float | list[int] | list[float]


class BindingTable(BaseModel):
    """Explicit bindings, OpDef name -> reference name; what it leaves out is inferred.

    inputs: OpDef input -> forward parameter, module parameter or buffer name.
    attrs: OpDef attribute -> forward or `__init__` parameter name, or a constant (not a string).
    outputs: OpDef output -> `return[i]` (i-th returned tensor) or the name of a forward
    parameter the forward mutates in place.
    initial: OpDef output -> the value every element holds before the launch. Validate fills an
    output with poison (NaN, or the largest integer) so that elements the kernel leaves unwritten
    fail; a kernel that accumulates into an output the caller creates filled (`at::zeros` before
    SetAtomicAdd, `at::full(-inf)` before SetAtomicMax) needs that value stated here, since a
    reference cannot say what its output held before the call.
    unchecked: OpDef outputs validate runs but does not compare, for a project whose own test
    checks only the others (DrivingSDK's bev_pool_v2 backward test compares grad_feat, not
    grad_depth); the report lists them as "not compared", so the gap stays visible.
    """

    model_config = ConfigDict(extra="forbid")

    inputs: dict[str, str] = {}
    attrs: dict[str, str | AttrConstant] = {}
    outputs: dict[str, str] = {}
    initial: dict[str, float] = {}
    unchecked: list[str] = []


class ProjectConfig(BaseModel):
    model_config = ConfigDict(extra="ignore")

    reference: str | None = None
    op: str | None = None
    """The op to build and check in an msopgen project whose op_kernel/ holds several kernels
    (op_kernel/<op>.cpp); None: the only one (ascend_tools.project)."""
    auto_sync: bool = True
    """Whether the kernel is compiled with --cce-auto-sync (module docstring)."""
    defines: list[Annotated[str, StringConstraints(pattern=r"^[A-Za-z_]\w*(=.*)?$")]] = []
    """Macros the project's build defines, `NAME` or `NAME=VALUE` (module docstring)."""
    block_dim: int | None = Field(default=None, ge=1, le=65535)
    """The blockDim a kernel without an OpDef (a single file, a torch extension's op_kernel)
    is launched with, where its host code computes it at run time (`GetCoreNumAiv()`); it
    overrides what `ascend_tools.project` reads from that code."""
    atol: float | None = Field(default=None, ge=0)
    rtol: float | None = Field(default=None, ge=0)
    """The project's own tolerances (module docstring); None: the per-dtype defaults."""
    lint: LintConfig | None = None
    binding: BindingTable | None = None
    path: Path | None = None
    """The file the settings came from (None: no configuration file)."""


def _section(data: dict, name: str) -> dict:
    return data if name == "kernelgen.toml" else data.get("tool", {}).get("kernelgen", {})


def load_project_config(root: Path) -> ProjectConfig:
    """The settings of the project at `root`: the first of kernelgen.toml and pyproject.toml
    that has any (all defaults when neither has)."""
    for name in CONFIG_FILES:
        path = root / name
        if not path.is_file():
            continue
        try:
            data = _section(tomllib.loads(path.read_text(encoding="utf-8")), name)
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{path}: {exc}") from exc
        if not data:
            continue
        if isinstance(data.get("lint"), dict) and "auto_sync" in data["lint"]:
            raise ConfigError(
                f"{path}: auto_sync is a project setting (the compiler's --cce-auto-sync, read by "
                "lint and the emulator alike): set it at the top level, not under [lint]"
            )
        try:
            config = ProjectConfig(**{**data, "path": path})
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            raise ConfigError(f"{path}: bad setting {where}: {err['msg']}") from exc
        if config.lint is not None:
            config.lint.auto_sync = config.auto_sync
            config.lint.defines = config.defines
        return config
    return ProjectConfig()


def configured_chip(path: Path) -> str | None:
    """The chip the project at `path` (its folder, or a kernel file in it) sets in `[lint] chip`,
    if it sets one: the project's own target, which validate uses when not told otherwise."""
    root = path if path.is_dir() else path.parent
    lint = load_project_config(root).lint
    return lint.chip if lint is not None and "chip" in lint.model_fields_set else None


def project_reference(root: Path, config: ProjectConfig | None = None) -> Path | None:
    """The project's PyTorch reference: `reference` in the configuration (relative to `root`),
    else `ref.py` at `root`, else None (validation then only compiles)."""
    config = config if config is not None else load_project_config(root)
    if config.reference:
        path = (root / config.reference).resolve()
        if not path.is_file():
            raise ConfigError(f"{config.path}: reference {config.reference!r} not found ({path})")
        return path
    default = root / DEFAULT_REFERENCE
    return default.resolve() if default.is_file() else None


_REFERENCE_LINE = re.compile(r"(?m)^\s*reference\s*=.*$")


def write_reference(root: Path, reference: Path) -> Path:
    """Writes `reference = "..."` into the root's kernelgen.toml (created when missing; other
    content kept) and returns the file. The path is stored relative to the root when inside it."""
    reference = reference.expanduser().resolve()
    try:
        value = reference.relative_to(root.resolve()).as_posix()
    except ValueError:
        value = reference.as_posix()
    line = f"reference = {_toml_string(value)}"
    config = root / CONFIG_FILES[0]
    text = config.read_text(encoding="utf-8") if config.is_file() else ""
    head = _top_level(text)
    if _REFERENCE_LINE.search(head):
        text = _REFERENCE_LINE.sub(line.replace("\\", "\\\\"), head, count=1) + text[len(head) :]
    else:
        text = f"{line}\n{text}"
    tomllib.loads(text)  # never write a file the next read cannot parse
    config.write_text(text, encoding="utf-8")
    return config


def _top_level(text: str) -> str:
    """The part of a TOML text before its first table header (where top-level keys live)."""
    m = re.search(r"(?m)^\s*\[", text)
    return text[: m.start()] if m else text


def _toml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
