"""Which project a file belongs to; its reference and configuration come from
`ascend_tools.config`, the one reader of `kernelgen.toml`."""

from __future__ import annotations

from pathlib import Path

from ascend_tools.config import CONFIG_FILES, ConfigError, project_reference

CONFIG_FILE = CONFIG_FILES[0]


def find_root(file: Path) -> tuple[Path, bool]:
    """(project root, whether it is a real project): the nearest folder above `file` with
    `op_kernel/` or `op_host/` (msopgen layout) or a `kernelgen.toml`, or the file's own folder
    when that is a flat OpDef project (host file beside the kernel, `ascend_tools.project`); a
    lone kernel file is its own project (its folder, False)."""
    for folder in file.parents:
        if (folder / "op_kernel").is_dir() or (folder / "op_host").is_dir() or (
                folder / CONFIG_FILE).is_file():
            return folder, True
        if folder == file.parent and _flat_project(folder):
            return folder, True
    return file.parent, False


def _flat_project(folder: Path) -> bool:
    from ascend_tools.project import load_project

    try:
        return load_project(folder).layout == "flat"
    except (ValueError, OSError):  # ProjectError, or a kernelgen.toml that does not read
        return False


def find_reference(root: Path) -> Path | None:
    """The project's reference (`ascend_tools.config.project_reference`); a configuration that
    cannot be read or names a missing file counts as none here, since validation itself
    reports that error to the user."""
    try:
        return project_reference(root)
    except ConfigError:
        return None
