"""Discover an AscendC operator project on disk and describe it (`KernelProject`).

Four layouts are accepted: the msopgen layout (`op_host/<op>_tiling.h`, `op_host/<op>.cpp`,
`op_kernel/<op>.cpp`); `flat`, the same roles in one folder without op_host/ or op_kernel/ (CANN
8.3's simplified custom-op project, whose CMakeLists names the host sources and the kernel file
itself: Ascend/samples AddCustomTiny's `<op>_host.cpp`, `<op>_kernel.cpp`, `<op>_tiling.h`), told
by its files' contents: one registers an OpDef (`OP_ADD(`), another defines the kernel entry; a
single kernel file whose tiling values are constants in the file; and `kernel_launch`: a torch
extension's op_kernel/ next to op_host/ glue that defines no OpDef (no `OP_ADD(`) and launches
the entry itself (`EXEC_KERNEL_CMD(entry, blockDim, ...)`); its kernel binds like a single file
and its glue, torch code, is never compiled. msopgen and flat projects are OpDef projects
(`KernelProject.has_opdef`): their host code is built and describes the op.
The kernel entry is found with a light scan (comments and strings blanked, then a pattern for
`__global__ ... void name(...)`); it needs no full parse, only the name and parameter names.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

# `.asc` is the single-source AscendC file of recent CANN releases: C++ with the same dialect.
KERNEL_SUFFIXES = (".cpp", ".cc", ".cxx", ".asc")
SOURCE_SUFFIXES = (*KERNEL_SUFFIXES, ".h", ".hpp")
_BLOCK_DIM = re.compile(r"//\s*kernelgen:\s*block_dim\s*=\s*(\d+)")
_ENTRY = re.compile(
    r"((?:\bextern\s+\"C\"\s+)?(?:\b__\w+__(?:\([^)]*\))?\s+)+)void\s+([\w#]+)\s*\(([^()]*)\)\s*\{"
)
# `template <int A, int B>` right before an entry (a tiling-template kernel).
_TEMPLATE_HEAD = re.compile(r"\btemplate\s*<([^<>]*)>\s*\Z")
# `#define NAME(A, B) ...` with its continuation lines joined (see `_joined`).
_MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)([^\n]*)", re.M)
# `#include "name"`: the project's own headers (a system `<name>` include is not one of them).
QUOTED_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
_COMMENT_OR_STRING = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"", re.S)


class ProjectError(ValueError):
    """The path is not a usable kernel project; the message says why."""


ScalarValue = bool | int | float | list[int | float]
"""The value of an entry parameter passed by value (`KernelEntry.scalars`): a number, or the
field values of a struct passed whole (a kernel-launch sample's `AddCustomTilingData tiling`)."""


class KernelEntry(BaseModel):
    name: str
    params: list[str]
    line: int
    scalars: dict[str, str] = {}
    """Parameters passed by value, not as a GM pointer, with their C type (a kernel-launch
    kernel's `uint32_t n`): the launch passes values, not buffers."""
    template_params: list[str] = []
    """A tiling-template entry's template parameters, in order (`template <int D_T_X, ...>`
    before `__global__`): the tiling key picks their values (toolchain/tpl.py)."""

    @property
    def tensors(self) -> list[str]:
        """The parameters the launch passes buffers for, in order."""
        return [p for p in self.params if p not in self.scalars]


class KernelProject(BaseModel):
    """A kernel project; file paths are relative to `root`."""

    root: Path
    layout: Literal["msopgen", "flat", "single_file", "kernel_launch"]
    """`flat` builds and binds as `msopgen`, `kernel_launch` as `single_file` (module
    docstring)."""
    op_name: str
    kernel_file: Path
    host_files: list[Path]
    tiling_header: Path | None
    sources: list[Path]
    entry: KernelEntry
    block_dim: int | None = None
    block_dim_expr: str | None = None
    """A single file's launch blockDim written as an expression of the entry's by-value
    parameters (`block_dim_of`)."""
    other_ops: list[str] = []
    """The other ops whose kernels op_kernel/ holds (an msopgen project with several ops); the
    configuration's `op` picks which one this is."""

    def abs(self, rel: Path) -> Path:
        return self.root / rel

    @property
    def has_opdef(self) -> bool:
        """Whether the op is defined by host code (OpDef, TilingFunc) that the build runs:
        the msopgen and flat layouts."""
        return self.layout in ("msopgen", "flat")

    @property
    def host_dir(self) -> Path:
        """The folder of the host sources, relative to the root: op_host/, or the root itself
        in the flat layout; host includes are searched there first."""
        return self.host_files[0].parent if self.host_files else Path("op_host")

    @property
    def kernel_dir(self) -> Path:
        """The folder of the kernel file, relative to the root (op_kernel/ in the msopgen
        layout, the root in the flat one): the kernel's own headers sit there."""
        return self.kernel_file.parent

    @property
    def host_sources(self) -> list[Path]:
        """The sources under `host_dir`: what the host build reads (in the flat layout, every
        source, since host and kernel share the folder and the tiling header)."""
        return [s for s in self.sources if self.host_dir in s.parents]

    @property
    def op_type(self) -> str:
        """The OpDef name msopgen derives from the snake-case op name (add_custom -> AddCustom)."""
        return "".join(part.capitalize() for part in self.op_name.split("_"))

    def is_op(self, op_type: str) -> bool:
        """Whether OpDef `op_type` is this project's op: its kernel is named `op_name`, whether
        the OpType is the plain capitalisation (AddCustom) or holds an acronym (BEVPoolV2 ->
        bev_pool_v2, DrivingSDK's kernels/bev_pool_v2)."""
        return op_type == self.op_type or kernel_name(op_type) == self.op_name


def kernel_name(op_type: str) -> str:
    """The snake-case kernel name of an OpType: an underscore before each capital that follows a
    lower-case letter or digit, and before the last capital of an acronym that a word follows
    (AddCustom -> add_custom, BEVPoolV2 -> bev_pool_v2, RoipointPool3dForward ->
    roipoint_pool3d_forward)."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", op_type)
    return re.sub(r"([A-Z])([A-Z][a-z])", r"\1_\2", text).lower()


def blank(text: str, strings: bool = True) -> str:
    """Comments and (unless `strings` is False) string literals replaced by spaces, newlines
    kept, so offsets and lines hold."""

    def repl(m: re.Match[str]) -> str:
        s = m.group(0)
        if s.startswith('"') and (s == '"C"' or not strings):
            return s
        return re.sub(r"[^\n]", " ", s)

    return _COMMENT_OR_STRING.sub(repl, text)


def find_entry(text: str) -> KernelEntry | None:
    """The first `__global__` function in `text`: its name, parameters and 1-based line. An
    entry a function-like macro defines (`#define DECL(T) extern "C" __global__ __aicore__ void
    f_##T(...) {...}`, then `DECL(half)`: vllm-ascend's bgmv kernels) is the first expansion's
    (`f_half`, at the expansion's line)."""
    clean = blank(text)
    entries = _written_entries(clean)
    return entries[0] if entries else _macro_entry(clean)


def _written_entries(clean: str) -> list[KernelEntry]:
    """Every `__global__` function written out in blanked text, in order, with the template
    parameters of a tiling-template entry."""
    out = []
    for m in _ENTRY.finditer(clean):
        if "__global__" not in m.group(1) or "#" in m.group(2):
            continue
        entry = _entry(m.group(2), m.group(3), clean.count("\n", 0, m.start(2)) + 1)
        template = _TEMPLATE_HEAD.search(clean, 0, m.start())
        if template:
            entry.template_params = [
                re.findall(r"\w+", p)[-1] for p in template.group(1).split(",") if p.strip()
            ]
        out.append(entry)
    return out


def _entry(name: str, param_text: str, line: int) -> KernelEntry:
    params, scalars = [], {}
    for raw in param_text.split(","):
        words = re.findall(r"\w+", raw)
        if not words or words == ["void"]:
            continue
        params.append(words[-1])
        if "*" not in raw and "&" not in raw and not {"GM_ADDR", "__gm__"} & set(words):
            # The type as written (`AscendC::tiling::TCubeTiling`), spaces normalised.
            ctype = raw[: raw.rstrip().rfind(words[-1])]
            scalars[words[-1]] = " ".join(ctype.split())
    return KernelEntry(name=name, params=params, line=line, scalars=scalars)


def _joined(text: str) -> str:
    """Backslash-newline continuations as two spaces: a macro on one line, offsets kept."""
    return text.replace("\\\n", "  ")


def _macro_entry(clean: str) -> KernelEntry | None:
    joined = _joined(clean)
    for macro in _MACRO.finditer(joined):
        m = _ENTRY.search(macro.group(3))
        if not m or "__global__" not in m.group(1):
            continue
        formals = [f.strip() for f in macro.group(2).split(",")]
        call = re.compile(rf"^[ \t]*{macro.group(1)}\s*\(([^()]*)\)", re.M)
        for use in call.finditer(joined):
            actuals = [a.strip() for a in use.group(1).split(",")]
            if len(actuals) != len(formals):
                continue
            values = dict(zip(formals, actuals, strict=True))

            def expand(part: str, values: dict[str, str] = values) -> str:
                return re.sub(r"\s*##\s*", "", re.sub(
                    r"\w+", lambda w: values.get(w.group(0), w.group(0)), part))

            line = clean.count("\n", 0, use.start()) + 1
            return _entry(expand(m.group(2)), expand(m.group(3)), line)
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ProjectError(f"cannot read {path}: {exc.strerror}") from exc


def _sources_under(root: Path, dirs: list[Path]) -> list[Path]:
    found = []
    for d in dirs:
        if d.is_dir():
            found += [
                p for p in sorted(d.rglob("*")) if p.suffix in SOURCE_SUFFIXES and p.is_file()
            ]
    return [p.relative_to(root) for p in found]


def _kernel_with_entry(files: list[Path]) -> tuple[Path, KernelEntry] | None:
    for f in files:
        if f.suffix in KERNEL_SUFFIXES:
            entry = find_entry(_read(f))
            if entry:
                return f, entry
    return None


def load_project(path: Path) -> KernelProject:
    """Describes the project at `path` (a project directory or a single kernel file)."""
    path = Path(path).expanduser().resolve()
    if not path.exists():
        raise ProjectError(f"project not found: {path}")
    if path.is_file():
        return _single_file(path.parent, path)
    if (path / "op_kernel").is_dir():
        return _kernel_launch(path) if _torch_glue(path) else _msopgen(path)
    candidates = sorted(p for p in path.iterdir() if p.suffix in KERNEL_SUFFIXES)
    if not (path / "op_host").is_dir() and (flat := _flat(path, candidates)):
        return flat
    hit = _chosen_file(path, candidates) or _kernel_with_entry(candidates)
    if not hit:
        raise ProjectError(
            f"no kernel found in {path}: expected op_kernel/<op>.cpp (msopgen layout) or a .cpp "
            "or .asc file with a `__global__ __aicore__` entry function"
        )
    return _single_file(path, hit[0])


def _chosen_file(root: Path, files: list[Path]) -> tuple[Path, KernelEntry] | None:
    """In a folder of kernel files, the one the configuration's `op` names (a file stem or an
    entry name: Ascend/samples keeps add_custom_v1..v4.cpp side by side); None when `op` is not
    set. An `op` that names nothing is a ProjectError listing what there is."""
    from ascend_tools.config import load_project_config  # config reads no project: no cycle

    wanted = load_project_config(root).op
    if wanted is None:
        return None
    found = [(f, e) for f in files if f.suffix in KERNEL_SUFFIXES and (e := find_entry(_read(f)))]
    for f, e in found:
        if wanted in (f.stem, e.name):
            return f, e
    names = ", ".join(f"{f.name} ({e.name})" for f, e in found) or "none"
    raise ProjectError(
        f"op = {wanted!r} in kernelgen.toml names no kernel file or entry of {root} (kernel "
        f"files with an entry: {names})"
    )


_OP_ADD = re.compile(r"\bOP_ADD\s*\(")
# Host op code: an OpDef registration or a tiling function's context (`gert::TilingContext*`);
# kernel code has neither.
_HOST_CODE = re.compile(r"\bOP_ADD\s*\(|\bTilingContext\b")
_MAIN = re.compile(r"\bint(?:32_t)?\s+main\s*\(")


def is_host_source(path: str | Path, text: str) -> bool:
    """Whether a project source is host op code (OpDef, TilingFunc) rather than kernel code:
    it sits in op_host/, or it registers an OpDef or takes a TilingContext while defining no
    kernel entry and no main() (a flat project keeps it beside the kernel: the `flat` layout).
    The one rule for both the build (`KernelProject.host_files`) and lint's model."""
    if "op_host" in Path(path).parts:
        return True
    if "OP_ADD" not in text and "TilingContext" not in text:  # cheap: lint asks on every edit
        return False
    clean = blank(text)
    return bool(_HOST_CODE.search(clean)) and not _MAIN.search(clean) and not (
        _written_entries(clean) or _macro_entry(clean))


def _flat(root: Path, files: list[Path]) -> KernelProject | None:
    """The `flat` layout: a folder without op_host/ or op_kernel/ whose sources split into host
    op code (`is_host_source`), one file of which registers an OpDef, and kernel files with an
    entry (the configuration's `op` picks one by entry or file stem, as for a folder of kernel
    files); None when the folder is not one (a single kernel file or a kernel-launch sample)."""
    texts = {f: _read(f) for f in files if f.is_file()}
    host = [f for f, t in texts.items() if is_host_source(f.relative_to(root), t)]
    if not any(_OP_ADD.search(blank(texts[f])) for f in host):
        return None
    kernels = [f for f in texts if f not in host]
    hit = _chosen_file(root, kernels) or _kernel_with_entry(kernels)
    if not hit:
        return None
    kernel, entry = hit
    others = [e.name for f in kernels if f != kernel and (e := find_entry(texts[f]))]
    tiling = _tiling_header(root, entry.name)
    headers = [h for h in sorted(root.iterdir()) if h.suffix in (".h", ".hpp") and h.is_file()]
    return KernelProject(
        root=root,
        layout="flat",
        op_name=entry.name,
        kernel_file=kernel.relative_to(root),
        host_files=[h.relative_to(root) for h in host],
        tiling_header=tiling.relative_to(root) if tiling else None,
        sources=[f.relative_to(root) for f in [*host, kernel, *headers]],
        entry=entry,
        other_ops=others,
    )
_GLUE_LAUNCH = re.compile(r"\b(?:EXEC_KERNEL_CMD|ACLRT_LAUNCH_KERNEL|aclrtlaunch_\w+)\s*\(")


def _torch_glue(root: Path) -> bool:
    """Whether the kernel is launched by host code of its own, not through an OpDef: op_host/
    defines none, and op_host/ or the project root launches a kernel (a torch extension's glue,
    sgl-kernel-npu's csrc/<op>/op_host; a kernel-launch sample's main.cpp beside op_host/ and
    op_kernel/, Ascend/samples TBufPool)."""
    host = [blank(_read(h)) for h in sorted((root / "op_host").rglob("*.cpp"))]
    launchers = host + [blank(_read(h)) for h in sorted(root.glob("*.cpp"))]
    return any(_GLUE_LAUNCH.search(t) for t in launchers) and not any(
        _OP_ADD.search(t) for t in host)


def _kernel_launch(root: Path) -> KernelProject:
    """A torch extension's kernel (`KernelProject.layout` kernel_launch): the op_kernel file
    whose entry the configuration's `op` names (an entry or a file stem), else the first entry
    of the first file; sources are op_kernel/'s files and op_host/'s headers (the kernel's
    tiling struct), never the glue's .cpp."""
    from ascend_tools.config import load_project_config  # config reads no project: no cycle

    config = load_project_config(root)
    files = [p for p in sorted((root / "op_kernel").rglob("*"))
             if p.suffix in KERNEL_SUFFIXES and p.is_file()]
    found = []
    for f in files:
        clean = blank(_read(f))
        entries = _written_entries(clean)
        if not entries and (macro := _macro_entry(clean)):
            entries = [macro]
        found += [(f, e) for e in entries]
    if not found:
        raise ProjectError(
            f"no kernel entry in {root / 'op_kernel'}: no source there defines a "
            "`__global__ __aicore__ void name(...)` function"
        )
    wanted = config.op
    chosen = [(f, e) for f, e in found if wanted in (None, e.name, f.stem)]
    if not chosen:
        names = ", ".join(e.name for _, e in found)
        raise ProjectError(
            f"op = {wanted!r} in kernelgen.toml names no kernel entry or file of "
            f"{root / 'op_kernel'} (entries: {names})"
        )
    kernel, entry = next(((f, e) for f, e in chosen if e.name == wanted), chosen[0])
    glue = sorted((root / "op_host").rglob("*.cpp"))
    launch = _glue_block_dim(glue, entry)
    headers = [h for h in sorted((root / "op_host").rglob("*")) if h.suffix in (".h", ".hpp")]
    return KernelProject(
        root=root,
        layout="kernel_launch",
        op_name=entry.name,
        kernel_file=kernel.relative_to(root),
        host_files=[],
        tiling_header=None,
        sources=_sources_under(root, [root / "op_kernel"]) + [h.relative_to(root) for h in headers],
        entry=entry,
        block_dim=config.block_dim or (int(launch) if launch and launch.isdigit() else None),
        block_dim_expr=None if config.block_dim or (launch and launch.isdigit()) else launch,
        other_ops=[e.name for _, e in found if e.name != entry.name],
    )


def call_args(text: str, start: int) -> list[str]:
    """The comma-separated arguments of the call whose `(` is at `start`, nesting kept."""
    depth, args, cur = 0, [], ""
    for c in text[start:]:
        if c in "([{":
            depth += 1
            if depth == 1:
                continue
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return [*args, cur.strip()]
        elif c == "," and depth == 1:
            args.append(cur.strip())
            cur = ""
            continue
        cur += c
    return [*args, cur.strip()]


def _glue_block_dim(glue: list[Path], entry: KernelEntry) -> str | None:
    """The blockDim torch glue launches `entry` with (`EXEC_KERNEL_CMD(entry, blockDim, args)`,
    `ACLRT_LAUNCH_KERNEL(entry)(blockDim, stream, args)`, `aclrtlaunch_entry(blockDim, stream,
    args)`): a number; the entry's parameter the same variable is passed to (evaluated with
    that by-value argument by `block_dim_of`); else the expression the file sets it to."""
    name = re.escape(entry.name)
    launch = re.compile(
        rf"\bEXEC_KERNEL_CMD\s*(\(\s*{name}\s*,)|\bACLRT_LAUNCH_KERNEL\s*\(\s*{name}\s*\)\s*(\()"
        rf"|\baclrtlaunch_{name}\s*(\()"
    )
    for path in glue:
        body = blank(_read(path))
        for m in launch.finditer(body):
            args = call_args(body, m.start(m.lastindex or 1))
            block, kernel_args = (args[1], args[2:]) if m.group(1) else (args[0], args[2:])
            if block.isdigit():
                return block
            for param, arg in zip(entry.params, kernel_args, strict=False):
                if arg == block and param in entry.scalars:
                    return param
            value = re.search(rf"\b{re.escape(block)}\s*=\s*([^;{{}}=][^;{{}}]*);", body)
            if value:
                return value.group(1).strip()
    return None


def _msopgen(root: Path) -> KernelProject:
    kernel_files = sorted((root / "op_kernel").glob("*.cpp"))
    kernels = [(f, e) for f in kernel_files if (e := find_entry(_read(f)))]
    if not kernels:
        raise ProjectError(
            f"no kernel entry in {root / 'op_kernel'}: no .cpp file there defines a "
            "`__global__ __aicore__ void name(...)` function"
        )
    kernel, entry = _chosen_kernel(root, kernels)
    other_ops = [f.stem for f, _ in kernels if f != kernel]
    op_name = kernel.stem
    host = sorted((root / "op_host").glob("*.cpp"))
    if not host:
        raise ProjectError(
            f"no host sources in {root / 'op_host'} (expected op_host/{op_name}.cpp)"
        )
    tiling = _tiling_header(root / "op_host", op_name)
    return KernelProject(
        root=root,
        layout="msopgen",
        op_name=op_name,
        kernel_file=kernel.relative_to(root),
        host_files=[h.relative_to(root) for h in host],
        tiling_header=tiling.relative_to(root) if tiling else None,
        sources=_sources_under(root, [root / "op_host", root / "op_kernel"]),
        entry=entry,
        other_ops=other_ops,
    )


_REGISTERED_TILING = re.compile(r"\bREGISTER_TILING_DATA_CLASS\s*\(\s*(\w+)\s*,")


def _tiling_header(folder: Path, op_name: str) -> Path | None:
    """The host header in `folder` (op_host/, or a flat project's root) holding the op's tiling
    struct: the one whose `REGISTER_TILING_DATA_CLASS(<OpType>, ...)` registers this op
    (DrivingSDK's scatter_mean keeps ScatterMean's struct in `scatter_mean.h` beside
    `scatter_mean_grad_tiling.h`), else
    `<op>_tiling.h`, else the first `*_tiling.h`, else the first header that defines a tiling
    struct (`op_host/max_pool2d.h` holding BEGIN_TILING_DATA_DEF is as good as `*_tiling.h`)."""
    texts = {h: blank(_read(h)) for h in sorted(folder.glob("*.h"))}
    for h, text in texts.items():
        if any(kernel_name(m.group(1)) == op_name for m in _REGISTERED_TILING.finditer(text)):
            return h
    tilings = [h for h in texts if h.name.endswith("_tiling.h")] or [
        h for h, text in texts.items() if "BEGIN_TILING_DATA_DEF" in text
    ]
    preferred = folder / f"{op_name}_tiling.h"
    return preferred if preferred in tilings else (tilings[0] if tilings else None)


def _chosen_kernel(root: Path, kernels: list[tuple[Path, KernelEntry]]) -> tuple[Path, KernelEntry]:
    """The kernel of the op the project's configuration names (`op`), else the first (a project
    with several ops, such as DrivingSDK's boxes_overlap_bev and boxes_overlap_bev_v1 in one
    folder, gets a note naming the others: `KernelProject.other_ops`)."""
    from ascend_tools.config import load_project_config  # config reads no project: no cycle

    wanted = load_project_config(root).op
    if wanted is None:
        return kernels[0]
    for f, e in kernels:
        if f.stem == wanted:
            return f, e
    names = ", ".join(f.stem for f, _ in kernels)
    raise ProjectError(
        f"op = {wanted!r} in kernelgen.toml names no kernel of {root / 'op_kernel'} "
        f"(kernels with an entry function: {names})"
    )


_DEFINES_MAIN = re.compile(r"\bint(?:32_t)?\s+main\s*\(")


def defines_main(text: str) -> bool:
    """Whether source `text` holds a host program (.asc files and kernel-launch samples keep
    their main() in the kernel's file)."""
    return _DEFINES_MAIN.search(blank(text)) is not None


def _launches(text: str, name: str) -> bool:
    """Whether blanked source `text` launches kernel `name`: `name<<<...>>>`, the CPU-debug
    `ICPU_RUN_KF(name, ...)` or ACL's `ACLRT_LAUNCH_KERNEL(name)`."""
    n = re.escape(name)
    return re.search(
        rf"\b{n}\s*<<<|\bICPU_RUN_KF\s*\(\s*{n}\s*,|\bACLRT_LAUNCH_KERNEL\s*\(\s*{n}\s*\)", text
    ) is not None


def launched_by_own_main(project: KernelProject) -> bool:
    """Whether the kernel file's own main() launches the entry (`name<<<...>>>(...)`): its
    by-value arguments (a TCubeTiling its GenerateTiling filled) are then what that program
    passes, which the emulator captures by running it (emu README "Host launch")."""
    if project.entry.template_params:
        return False
    text = blank(_read(project.abs(project.kernel_file)))
    launch = re.compile(rf"\b{re.escape(project.entry.name)}\s*<<<")
    return defines_main(text) and launch.search(text) is not None


# A host file that must not join the host program: PyTorch / pybind glue (the CppExtensions
# samples), which needs torch's headers.
_GLUE_INCLUDE = re.compile(r'#\s*include\s*[<"](?:torch/|pybind11/|ATen/|torch_npu/)')


def host_program(project: KernelProject) -> list[Path]:
    """The sample's own host program beside a single-file kernel, when another file launches
    the entry from its main() (Ascend/samples kernel-launch samples: main.cpp calls
    `ICPU_RUN_KF(kernel, blockDim, ...)` on the CPU-debug path with a tiling buffer its
    GenerateTiling filled): that file first, then the folder's other .cpp files that define no
    kernel and are no torch glue (the `*_tiling.cpp` it calls into). Empty when there is none
    or the kernel file holds the program itself (`launched_by_own_main`). Relative paths."""
    if project.layout not in ("single_file", "kernel_launch") or project.entry.template_params:
        return []
    kernel = project.abs(project.kernel_file)
    others = [p for p in sorted(kernel.parent.glob("*.cpp")) if p != kernel]
    texts = {p: _read(p) for p in others}
    mains = [p for p in others if defines_main(texts[p])
             and _launches(blank(texts[p]), project.entry.name)]
    if len(mains) != 1:
        return []
    helpers = [p for p in others if p != mains[0] and not defines_main(texts[p])
               and "__global__" not in blank(texts[p]) and not _GLUE_INCLUDE.search(texts[p])]
    return [p.relative_to(project.root) for p in [mains[0], *helpers]]


def _launch_block_dim(kernel: Path, name: str) -> str | None:
    """The blockDim a kernel-launch sample starts `name` with: `name<<<N, ...>>>` or
    `ICPU_RUN_KF(name, N, ...)` in the kernel file or a host file next to it, N a number, a
    variable that file sets (`uint32_t blockDim = 8;`), or the expression it sets it to
    (`(batchSize + numTokensPerCore - 1) / numTokensPerCore`, evaluated by `block_dim_of` with
    the entry's by-value arguments)."""
    launch = re.compile(
        rf"\b{re.escape(name)}\s*<<<\s*(\w+)|\bICPU_RUN_KF\s*\(\s*{re.escape(name)}\s*,\s*(\w+)"
    )
    others = [p for p in sorted(kernel.parent.glob("*.cpp")) if p != kernel]
    for path in [kernel, *others]:
        body = blank(_read(path))
        for m in launch.finditer(body):
            arg = m.group(1) or m.group(2)
            if arg.isdigit():
                return arg
            value = re.search(rf"\b{re.escape(arg)}\s*=\s*([^;{{}}]+);", body)
            if value:
                return value.group(1).strip()
    return None


def block_dim_of(project: KernelProject, values: dict[str, ScalarValue]) -> int:
    """A single-file kernel's block count: its launch's, with the entry's by-value arguments
    for the names in it (a launch written with the host function's parameters, named as the
    entry's); 1 where nothing says."""
    if project.block_dim is not None:
        return project.block_dim
    if project.block_dim_expr is None:
        return 1
    try:
        n = _int_expr(ast.parse(project.block_dim_expr, mode="eval").body, values)
    except (SyntaxError, KeyError, ValueError, ZeroDivisionError):
        return 1
    return n if n > 0 else 1


_INT_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
            ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a // b,
            ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b}


def _int_expr(node: ast.expr, values: dict[str, ScalarValue]) -> int:
    """An integer arithmetic expression as C's unsigned arithmetic evaluates it (`/` truncates);
    ValueError for anything else, KeyError for a name without a value."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.Name):
        return int(values[node.id])
    if isinstance(node, ast.BinOp) and type(node.op) in _INT_OPS:
        return _INT_OPS[type(node.op)](_int_expr(node.left, values), _int_expr(node.right, values))
    raise ValueError(ast.dump(node))


# `SetGlobalBuffer((__gm__ T*)x` or `SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x)`.
_GM_CAST = re.compile(
    r"\bSetGlobalBuffer\s*\(\s*(?:\(\s*__gm__\s+(?P<c>[A-Za-z_][\w:]*)\s*\*\s*\)"
    r"|reinterpret_cast\s*<\s*__gm__\s+(?P<r>[A-Za-z_][\w:]*)\s*\*\s*>\s*\()\s*(?P<name>\w+)\b"
)


_ALIAS = re.compile(r"\busing\s+(\w+)\s*=\s*([\w:]+)\s*;|\btypedef\s+([\w:]+)\s+(\w+)\s*;")
# `template <typename aType, typename bType, typename cType> class MatmulKernel`: a class
# template's type parameters, in order.
_CLASS_TEMPLATE = re.compile(r"\btemplate\s*<([^<>]*)>\s*(?:class|struct)\s+(\w+)")


def _template_arguments(texts: list[str]) -> dict[str, set[str]]:
    """Type parameter of a class template -> the types its instantiations in `texts` give it
    (`MatmulKernel<half, half, float> op;` makes cType float), so a GM cast through a template
    parameter (`reinterpret_cast<__gm__ cType*>(c)`) names the type the entry uses."""
    out: dict[str, set[str]] = {}
    for text in texts:
        for m in _CLASS_TEMPLATE.finditer(text):
            params = [p.split()[-1] if p.split() else "" for p in m.group(1).split(",")]
            use = re.compile(rf"\b{re.escape(m.group(2))}\s*<([^<>;(){{}}]*)>")
            for t in texts:
                for inst in use.finditer(t):
                    args = [a.strip() for a in inst.group(1).split(",")]
                    if len(args) != len(params) or set(args) & set(params):
                        continue  # another arity, or the template's own declaration
                    for name, arg in zip(params, args, strict=True):
                        out.setdefault(name, set()).add(arg.rsplit("::", 1)[-1])
    return out


# A function definition taking GM addresses (`init(GM_ADDR input, ..., __gm__ uint8_t* out) {`):
# its name and parameter list.
_GM_FUNCTION = re.compile(
    r"\b(\w+)\s*\(([^(){};]*\b(?:GM_ADDR|__gm__)\b[^(){};]*)\)\s*(?:const\s*)?\{"
)


def _gm_parameter_links(texts: list[str]) -> dict[str, set[str]]:
    """GM parameter of a function the sources define -> the names the calls of that function
    pass there (`op.init(input_gm, ...)` into `init(GM_ADDR input, ...)`), so that a cast of the
    parameter inside it (ggml's get_row kernels) states the type of the entry's argument."""
    params: dict[tuple[str, int], list[str]] = {}
    for text in texts:
        for m in _GM_FUNCTION.finditer(text):
            names = [re.findall(r"\w+", p)[-1] if re.findall(r"\w+", p) else ""
                     for p in m.group(2).split(",")]
            params[(m.group(1), len(names))] = names
    links: dict[str, set[str]] = {}
    for (function, arity), names in params.items():
        call = re.compile(rf"\b{re.escape(function)}\s*\(")
        for text in texts:
            for m in call.finditer(text):
                args = call_args(text, m.end() - 1)
                if len(args) != arity:
                    continue
                for param, arg in zip(names, args, strict=True):
                    if param and arg != param and re.fullmatch(r"\w+", arg):
                        links.setdefault(param, set()).add(arg)
    return links


def gm_element_types(project: KernelProject) -> dict[str, str]:
    """The element type each GM_ADDR parameter name is cast to in the project's sources
    (`xGm.SetGlobalBuffer((__gm__ float*)x, ...)` or `reinterpret_cast<__gm__ float*>(x)`),
    namespace dropped, through a type alias
    the sources define once (`using Y_T = float;`, vllm-ascend's bgmv kernels). A kernel-launch
    sample has no OpDef, so this cast is the only place its sources state an output's type; a
    class template's type parameter takes the type its instantiations give it
    (`_template_arguments`); a cast of a function's GM parameter holds for the names its
    callers pass there (`_gm_parameter_links`); a name cast to two different types is left
    out."""
    seen: dict[str, set[str]] = {}
    aliases: dict[str, set[str]] = {}
    texts = [blank(_read(project.root / rel)) for rel in project.sources]
    for text in texts:
        for m in _GM_CAST.finditer(text):
            ctype = m.group("c") or m.group("r")
            seen.setdefault(m.group("name"), set()).add(ctype.rsplit("::", 1)[-1])
        for m in _ALIAS.finditer(text):
            alias, target = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
            aliases.setdefault(alias, set()).add(target.rsplit("::", 1)[-1])
    for name, types in _template_arguments(texts).items():
        aliases.setdefault(name, set()).update(types)
    links = _gm_parameter_links(texts)
    for _ in range(2):  # the entry's argument through Init into a helper it calls
        for param, args in links.items():
            for arg in args:
                seen.setdefault(arg, set()).update(seen.get(param, set()))
    resolved = {a: next(iter(t)) for a, t in aliases.items() if len(t) == 1}
    out = {}
    for name, types in seen.items():
        named = {resolved.get(t, t) for t in types}
        if len(named) == 1:
            out[name] = named.pop()
    return out


def _single_file(root: Path, kernel: Path) -> KernelProject:
    if kernel.suffix not in KERNEL_SUFFIXES:
        raise ProjectError(f"{kernel} is not a C++ or .asc source file")
    text = _read(kernel)
    entry = find_entry(text)
    if not entry:
        raise ProjectError(f"no `__global__ __aicore__` entry function in {kernel}")
    from ascend_tools.config import ConfigError, load_project_config

    m = _BLOCK_DIM.search(text)
    launch = None if m else _launch_block_dim(kernel, entry.name)
    try:
        configured = load_project_config(root).block_dim
    except ConfigError as exc:
        raise ProjectError(str(exc)) from exc
    if configured is not None:
        m, launch = None, str(configured)
    headers = [p for p in sorted(root.glob("*")) if p.suffix in (".h", ".hpp") and p.is_file()]
    return KernelProject(
        root=root,
        layout="single_file",
        op_name=entry.name,
        kernel_file=kernel.relative_to(root),
        host_files=[],
        tiling_header=None,
        sources=[kernel.relative_to(root)] + [h.relative_to(root) for h in headers],
        entry=entry,
        block_dim=int(m.group(1)) if m else (int(launch) if launch and launch.isdigit() else None),
        block_dim_expr=launch if launch and not launch.isdigit() else None,
    )
