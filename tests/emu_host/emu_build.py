"""Minimal g++ driver for the emulator host tests: README build steps, cached by content hash.

Kept inside the tests on purpose (the product's compiler driver is `ascend_tools.toolchain`);
it compiles only the fixture project, the harness and the host API check program.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EMU = REPO / "ascend_tools" / "emu"
INCLUDE = EMU / "include"
HARNESS = EMU / "harness" / "harness_main.cpp"
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
    f"-I{INCLUDE}",
    "-D__CCE_AICORE__=220",
    "-D__CCE_KT_TEST__=1",
    "-DASCENDC_CPU_DEBUG=1",
]


class BuildError(RuntimeError):
    pass


@cache
def _tree_hash() -> str:
    """Hash of everything a compile here can read: emulator headers, harness, test sources."""
    h = hashlib.sha256()
    for root in (EMU, HERE / "fixtures", HERE / "cpp"):
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
    return compile_object(HARNESS, "harness.o")


def host_object() -> Path:
    op_host = FIXTURE / "op_host"
    return compile_object(op_host / "scale_add_custom.cpp", "host.o", f"-I{op_host}")


def wrapper_text(op_type: str, dtypes: dict[str, str]) -> str:
    """The kernel wrapper translation unit of README step 3 for the fixture kernel."""
    lines = [f"#define DTYPE_{n.upper()} {c}" for n, c in dtypes.items()]
    lines += [
        f'#include "{FIXTURE / "op_kernel" / "scale_add_custom.cpp"}"',
        "static void kernelgen_entry(uint8_t** a) {"
        " scale_add_custom(a[0], a[1], a[2], a[3], a[4], a[5], a[6]); }",
        "static const bool kernelgen_registered ="
        ' kernelgen::register_kernel("scale_add_custom", &kernelgen_entry, 7);',
        "",
    ]
    return "\n".join(lines)


def kernel_object(op_type: str = "ScaleAddCustom") -> Path:
    text = wrapper_text(
        op_type, {"x": "float", "y": "float", "bias": "float", "z": "float", "t": "uint8_t"}
    )
    wrapper = CACHE / "wrappers" / (hashlib.sha256(text.encode()).hexdigest()[:16] + ".cpp")
    wrapper.parent.mkdir(parents=True, exist_ok=True)
    if not wrapper.exists():
        wrapper.write_text(text)
    tiling_h = FIXTURE / "op_host" / "scale_add_custom_tiling.h"
    return _cached(
        "kernel.o",
        [*FLAGS, "-include", str(tiling_h), f"-DKERNELGEN_OP_TYPE={op_type}", "-c", str(wrapper)],
        extra_text=text,
    )


def describe_binary() -> Path:
    return link("describe", [host_object(), harness_object()])


def run_binary() -> Path:
    return link("run", [host_object(), kernel_object(), harness_object()])


def check_binary() -> Path:
    src = HERE / "cpp" / "host_api_check.cpp"
    obj = compile_object(src, "check.o", f"-I{FIXTURE / 'op_host'}")
    return link("host_api_check", [obj])
