"""Builds for the emulator host tests.

Projects whose build the tests need not control go through the product's toolchain
(`ToolchainProject`). The rest is a minimal g++ driver (README build steps, cached by content
hash) for what the toolchain does not make: the scale_add project with the per-build macros
*before* the device header, its describe binary, the host API check program, and single-file
binaries that register chosen entries.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from functools import cache
from pathlib import Path

from ascend_tools.chips import get_chip
from ascend_tools.project import load_project
from ascend_tools.toolchain import emulator
from ascend_tools.toolchain.flags import EMU_DIR, HARNESS_SOURCE, emulator_flags

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "fixtures" / "scale_add"
CACHE = (
    Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "kernelgen-tests" / "emu_host"
)

FLAGS = [
    "-std=c++17",
    "-pthread",
    "-O0",
    "-g0",
    "-Wall",
    *emulator_flags(get_chip()),
]


class BuildError(RuntimeError):
    pass


@cache
def _tree_hash() -> str:
    """Hash of everything a compile here can read: emulator headers, harness, test sources."""
    h = hashlib.sha256()
    for root in (EMU_DIR, HERE / "fixtures", HERE / "cpp"):
        for p in sorted(root.rglob("*")):
            if p.is_file() and p.suffix in (".h", ".cpp"):
                h.update(str(p.relative_to(REPO)).encode())
                h.update(p.read_bytes())
    return h.hexdigest()


def _cached(name: str, args: list[str], extra_text: str = "") -> Path:
    """Runs `g++ args... -o <out>` once per distinct (args, sources) and returns <out>."""
    key = hashlib.sha256("\0".join([_tree_hash(), name, extra_text, *args]).encode()).hexdigest()[
        :24
    ]
    out = CACHE / key / name
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    cmd = ["nice", "g++", *args, "-o", str(tmp)]
    res = subprocess.run(cmd, capture_output=True, text=True, cwd=out.parent)
    if res.returncode != 0:
        raise BuildError(f"{' '.join(cmd)}\n{res.stderr[-4000:]}")
    tmp.replace(out)
    return out


def compile_object(source: Path, name: str, *extra: str) -> Path:
    return _cached(name, [*FLAGS, *extra, "-c", str(source)])


def link(name: str, objects: list[Path]) -> Path:
    return _cached(name, [*(str(o) for o in objects), "-pthread"])


def harness_object() -> Path:
    return compile_object(HARNESS_SOURCE, "harness.o")


def wrapper_object(name: str, text: str) -> Path:
    """Writes a wrapper translation unit (named by its content) and compiles it to `name`."""
    wrapper = CACHE / "wrappers" / (hashlib.sha256(text.encode()).hexdigest()[:16] + ".cpp")
    wrapper.parent.mkdir(parents=True, exist_ok=True)
    if not wrapper.exists():
        wrapper.write_text(text)
    return _cached(name, [*FLAGS, "-c", str(wrapper)], extra_text=text)


def wrapper_text(project: Project) -> str:
    """The kernel wrapper translation unit of README step 3 with the per-build macros and the
    op's tiling header before the kernel, which includes the device header itself (the order
    the toolchain's precompiled header does not use)."""
    kernel = project.root / "op_kernel" / f"{project.stem}.cpp"
    tiling_h = project.root / "op_host" / f"{project.stem}_tiling.h"
    lines = [f"#define KERNELGEN_OP_TYPE {project.op_type}"]
    lines += [f"#define DTYPE_{n.upper()} {c}" for n, c in project.dtypes.items()]
    args = ", ".join(f"a[{i}]" for i in range(project.arity))
    lines += [
        f'#include "{tiling_h}"',
        f'#include "{kernel}"',
        f"static void kernelgen_entry(uint8_t** a) {{ {project.entry}({args}); }}",
        "static const bool kernelgen_registered ="
        f' kernelgen::register_kernel("{project.entry}", &kernelgen_entry, {project.arity});',
        "",
    ]
    return "\n".join(lines)


class Project:
    """A fixture operator project (msopgen layout) under tests/emu_host/fixtures."""

    def __init__(self, name: str, op_type: str, entry: str, arity: int, dtypes: dict[str, str]):
        self.root = HERE / "fixtures" / name
        self.op_type = op_type
        self.entry = entry
        self.arity = arity
        self.dtypes = dtypes
        self.stem = entry  # op_host/<stem>.cpp, op_host/<stem>_tiling.h, op_kernel/<stem>.cpp

    def host_object(self) -> Path:
        op_host = self.root / "op_host"
        return compile_object(op_host / f"{self.stem}.cpp", "host.o", f"-I{op_host}")

    def kernel_object(self) -> Path:
        return wrapper_object("kernel.o", wrapper_text(self))

    def describe_binary(self) -> Path:
        return link("describe", [self.host_object(), harness_object()])

    def run_binary(self) -> Path:
        return link("run", [self.host_object(), self.kernel_object(), harness_object()])


class ToolchainProject:
    """An operator project built for the default chip by `ascend_tools.toolchain.emulator`
    (device header precompiled, per-build macros after it), for one dtype combination."""

    def __init__(self, root: Path, dtypes: dict[str, str]):
        self.root = root
        self.dtypes = dtypes  # OpDef tensor name -> case-file dtype name

    def run_binary(self) -> Path:
        built = emulator.build(load_project(self.root), get_chip(), self.dtypes)
        if not built.ok or built.binary is None:
            raise BuildError("\n".join(d.compiler_style() for d in built.diagnostics))
        return built.binary


SCALE_ADD = Project(
    "scale_add",
    "ScaleAddCustom",
    "scale_add_custom",
    7,
    {"x": "float", "y": "float", "bias": "float", "z": "float", "t": "uint8_t"},
)
ADD_CUSTOM = ToolchainProject(
    HERE / "fixtures" / "add_custom", {"x": "float16", "y": "float16", "z": "float16"}
)
SUM_LIST = ToolchainProject(HERE / "fixtures" / "sum_list", {"xs": "float32", "z": "float32"})
# The corpus Matmul project (tests/data/corpus/matmul_custom), for the out-of-bounds regression.
MATMUL_CORPUS = ToolchainProject(
    REPO / "tests" / "data" / "corpus" / "matmul_custom",
    {"a": "float16", "b": "float16", "c": "float32"},
)


def check_binary() -> Path:
    src = HERE / "cpp" / "host_api_check.cpp"
    obj = compile_object(src, "check.o", f"-I{FIXTURE / 'op_host'}")
    return link("host_api_check", [obj])


def single_file_binary() -> Path:
    """fixtures/single/copy_scale.cpp with both its entries registered, linked with the harness
    alone (no host objects: README single-file mode)."""
    kernel = HERE / "fixtures" / "single" / "copy_scale.cpp"
    text = "\n".join(
        [
            "#define DTYPE_X float",
            "#define DTYPE_Y float",
            f'#include "{kernel}"',
            "static void e4(uint8_t** a) { copy_scale(a[0], a[1], a[2], a[3]); }",
            "static void e2(uint8_t** a) { copy_plain(a[0], a[1]); }",
            'static const bool r4 = kernelgen::register_kernel("copy_scale", &e4, 4);',
            'static const bool r2 = kernelgen::register_kernel("copy_plain", &e2, 2);',
            "",
        ]
    )
    return link("single", [wrapper_object("single.o", text), harness_object()])


def mix_single_binary() -> Path:
    """fixtures/single/mix_scale.cpp (a mix kernel) linked with the harness alone; its own
    binary, since a mix entry makes every launch of a binary a mix launch."""
    kernel = HERE / "fixtures" / "single" / "mix_scale.cpp"
    text = "\n".join(
        [
            "#define DTYPE_X float",
            "#define DTYPE_Y float",
            f'#include "{kernel}"',
            "static void e3(uint8_t** a) { mix_scale(a[0], a[1], a[2]); }",
            'static const bool r3 = kernelgen::register_kernel("mix_scale", &e3, 3);',
            "",
        ]
    )
    return link("mix_single", [wrapper_object("mix_single.o", text), harness_object()])


def syntax_check(source_text: str) -> subprocess.CompletedProcess:
    """g++ -fsyntax-only on a snippet (for compile-time diagnostics of the headers)."""
    return subprocess.run(
        ["nice", "g++", *FLAGS, "-fsyntax-only", "-x", "c++", "-"],
        input=source_text,
        capture_output=True,
        text=True,
    )
