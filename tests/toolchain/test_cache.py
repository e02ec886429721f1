"""Cache keys follow content; entries appear complete or not at all."""

from __future__ import annotations

import fcntl
from pathlib import Path

import pytest

from ascend_tools.toolchain.cache import CacheEntry, cache_root, hash_files, hash_parts


def test_cache_dir_from_environment(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("KERNELGEN_CACHE_DIR", str(tmp_path / "c"))
    assert cache_root() == tmp_path / "c"
    monkeypatch.delenv("KERNELGEN_CACHE_DIR")
    assert cache_root() == Path.home() / ".cache" / "kernelgen"


def test_key_changes_with_content_and_order_of_parts(tmp_path: Path) -> None:
    a = tmp_path / "a.cpp"
    a.write_text("int x;")
    before = hash_files([a], tmp_path)
    a.write_text("int y;")
    assert hash_files([a], tmp_path) != before
    assert hash_parts(["ab", "c"]) != hash_parts(["a", "bc"])


def test_entry_is_ready_only_after_publish(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("KERNELGEN_CACHE_DIR", str(tmp_path))
    entry = CacheEntry("kernel", "k1")
    stage = entry.staging()
    (stage / "run").write_text("binary")
    assert not entry.ready
    entry.publish(stage)
    assert entry.ready and (entry.path / "run").read_text() == "binary"
    # A second builder of the same key keeps the first entry and leaves no debris.
    again = entry.staging()
    (again / "run").write_text("other")
    entry.publish(again)
    assert (entry.path / "run").read_text() == "binary"
    assert sorted(p.name for p in entry.path.parent.iterdir()) == ["k1"]


def test_failed_build_leaves_no_staging_directory(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("KERNELGEN_CACHE_DIR", str(tmp_path))
    entry = CacheEntry("kernel", "k2")
    with entry.building() as stage:
        (stage / "half-written.o").write_text("x")
    assert not entry.ready
    assert list((tmp_path / "kernel").iterdir()) == []


def test_exclusive_entry_makes_a_second_builder_wait(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("KERNELGEN_CACHE_DIR", str(tmp_path))
    entry = CacheEntry("pch", "k3")
    lock = tmp_path / "pch" / ".k3.lock"
    with entry.exclusive(), open(lock) as other, pytest.raises(BlockingIOError):
        # What a second process (a separate open of the lock file) meets meanwhile.
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    with open(lock) as other:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released: free to take


def test_discard_removes_a_published_entry(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("KERNELGEN_CACHE_DIR", str(tmp_path))
    entry = CacheEntry("pch", "k4")
    entry.publish(entry.staging())
    assert entry.ready
    entry.discard()
    assert not entry.ready and not entry.path.exists()
    assert list((tmp_path / "pch").iterdir()) == []
    entry.discard()  # nothing there: no error


def test_emulator_key_follows_the_python_that_writes_the_wrapper(
    tmp_path: Path, monkeypatch
) -> None:
    """A build made by an older binding wrapper (toolchain/, project.py) is not reused after an
    upgrade that changes it; a change elsewhere in the package (lint) keeps the key."""
    from ascend_tools.toolchain import cache

    emu, pkg = tmp_path / "emu", tmp_path / "pkg"
    (emu / "kernelgen").mkdir(parents=True)
    (emu / "kernelgen" / "tensor.h").write_text("// header")
    (pkg / "toolchain").mkdir(parents=True)
    (pkg / "lint").mkdir()
    (pkg / "toolchain" / "tpl.py").write_text("A = 1\n")
    (pkg / "project.py").write_text("B = 1\n")
    (pkg / "lint" / "rules.py").write_text("C = 1\n")
    monkeypatch.setattr(cache, "EMU_DIR", emu)
    monkeypatch.setattr(cache, "_PACKAGE", pkg)
    monkeypatch.setattr(cache, "_SIGNATURES", {})
    first = cache.emulator_hash()
    (pkg / "lint" / "rules.py").write_text("C = 2\n")
    assert cache.emulator_hash() == first
    header = emu / "kernelgen" / "tensor.h"
    for changed in (pkg / "toolchain" / "tpl.py", pkg / "project.py", header):
        before = cache.emulator_hash()
        changed.write_text(changed.read_text() + "# upgraded\n")
        assert cache.emulator_hash() != before, changed
