"""Content-addressed build cache: an artifact lives under a key hashed from everything it depends
on (sources, emulator headers, flags, chip, dtype combination), so a hit is always valid and a
warm re-validation skips the compiler entirely."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from ascend_tools.toolchain.flags import EMU_DIR


def cache_root() -> Path:
    """`$KERNELGEN_CACHE_DIR`, else `~/.cache/kernelgen`."""
    env = os.environ.get("KERNELGEN_CACHE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "kernelgen"


def hash_parts(parts: Iterable[str | bytes]) -> str:
    h = hashlib.sha256()
    for p in parts:
        b = p.encode() if isinstance(p, str) else p
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()[:24]


def hash_files(paths: Iterable[Path], root: Path | None = None) -> str:
    parts: list[str | bytes] = []
    for p in sorted(paths):
        parts.append(str(p.relative_to(root)) if root else str(p))
        parts.append(p.read_bytes())
    return hash_parts(parts)


_PACKAGE = Path(__file__).resolve().parent.parent  # ascend_tools/

# The Python that writes what the compiler sees besides the headers: the source rewrites, the
# binding wrapper and tiling-template dispatch (toolchain/), and the project reading they rest
# on (entry scan, call arguments, binding). An upgrade that changes any of them must not reuse
# a binary built from the old wrapper.
_GENERATOR_SOURCES = ("toolchain/*.py", "project.py", "binding.py", "config.py", "chips.py")

_SIGNATURES: dict[str, tuple[tuple[tuple[str, int, int], ...], str]] = {}


def _content_hash(name: str, root: Path, files: list[Path]) -> str:
    """Hash of `files`' content under `root`; recomputed only when a file's stat changes."""
    stat = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files)
    known = _SIGNATURES.get(name)
    if known is None or known[0] != stat:
        known = _SIGNATURES[name] = (stat, hash_files(files, root))
    return known[1]


def emulator_hash() -> str:
    """Hash of the emulator headers and harness, and of the Python that generates the sources
    compiled against them (`_GENERATOR_SOURCES`)."""
    headers = [p for p in EMU_DIR.rglob("*") if p.is_file() and p.suffix in (".h", ".cpp", ".hpp")]
    generators = [p for pat in _GENERATOR_SOURCES for p in _PACKAGE.glob(pat) if p.is_file()]
    return hash_parts(
        [
            _content_hash("emulator", EMU_DIR, sorted(headers)),
            _content_hash("generators", _PACKAGE, sorted(generators)),
        ]
    )


_COMPILER_IDS: dict[tuple[str, int, int], str] = {}


def compiler_id(cxx: str) -> str:
    """Which compiler `cxx` is: its resolved path, version and target. Part of every build key,
    because g++ rejects a precompiled header made by another version and objects of two
    versions need not link. Re-asked only when the binary's stat changes (an upgrade)."""
    found = shutil.which(cxx)
    if found is None:
        return f"{cxx}: not found"
    real = os.path.realpath(found)
    st = os.stat(real)
    stat = (real, st.st_mtime_ns, st.st_size)
    if stat not in _COMPILER_IDS:
        try:
            out = subprocess.run(
                [real, "-dumpfullversion", "-dumpmachine"],
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            ).stdout
        except (OSError, subprocess.SubprocessError) as exc:
            out = f"unqueryable: {exc}"
        _COMPILER_IDS[stat] = f"{real} {' '.join(out.split())}"
    return _COMPILER_IDS[stat]


class CacheEntry:
    """A directory for one key; filled in a private temporary directory and published with one
    rename, so a concurrent or interrupted build never leaves a half-written entry."""

    def __init__(self, kind: str, key: str) -> None:
        self.path = cache_root() / kind / key

    @property
    def ready(self) -> bool:
        return (self.path / ".complete").exists()

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Held while building an artifact every process wants at once (the harness, the
        precompiled header): a second validator or test worker waits for the first one's
        result instead of compiling the same thing beside it. Re-check `ready` inside."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.parent / f".{self.path.name}.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    @contextlib.contextmanager
    def building(self) -> Iterator[Path]:
        """A staging directory, removed on exit unless `publish` moved it into place."""
        stage = self.staging()
        try:
            yield stage
        finally:
            shutil.rmtree(stage, ignore_errors=True)

    def staging(self) -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f".{self.path.name}.", dir=self.path.parent))

    def discard(self) -> None:
        """Removes a published entry found unusable (a precompiled header g++ cannot read):
        renamed aside first, so a concurrent reader sees the whole entry or none of it."""
        if not self.path.exists():
            return
        aside = Path(tempfile.mkdtemp(prefix=f".{self.path.name}.gone.", dir=self.path.parent))
        # OSError: already gone (another builder discarded it first).
        with contextlib.suppress(OSError):
            os.rename(self.path, aside / "entry")
        shutil.rmtree(aside, ignore_errors=True)

    def publish(self, staged: Path) -> None:
        (staged / ".complete").write_text("")
        try:
            os.rename(staged, self.path)
        except OSError:
            # Someone else published the same key first (same content); keep theirs.
            shutil.rmtree(staged, ignore_errors=True)
            if not self.ready:
                with contextlib.suppress(OSError):
                    shutil.rmtree(self.path)
                os.rename(staged, self.path)
