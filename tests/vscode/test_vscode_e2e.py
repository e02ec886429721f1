"""End to end in a real VS Code: the extension's .vsix installed into code-server (VS Code's
browser build), driven headless by Playwright with Debian's Chromium.

What a user does: open a kernel whose Unified Buffer overflows, see the diagnostic in the
Problems panel, apply the quick fix, ask for a completion, and generate a kernel from a PyTorch
stub with "AscendC: Generate Kernel from Torch Op". Screenshots are kept in
`out/vscode-e2e/` (KERNELGEN_E2E_ARTIFACTS overrides).

Needs `client-vscode/scripts/ci.sh` (the .vsix) and `client-vscode/scripts/e2e-setup.sh`
(Chromium, Node 24, code-server, Playwright in KERNELGEN_E2E_CACHE); run with
`python -m pytest -m vscode tests/vscode`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.vscode

REPO = Path(__file__).resolve().parents[2]
CLIENT = REPO / "client-vscode"
CACHE = Path(os.environ.get("KERNELGEN_E2E_CACHE")
             or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
             / "kernelgen-vscode-e2e")
NODE = CACHE / "node-24.21.0" / "bin"
CODE_SERVER = CACHE / "code-server-4.139.1" / "node_modules" / ".bin" / "code-server"
CHROMIUM = Path("/usr/lib/chromium/chromium")
ARTIFACTS = Path(os.environ.get("KERNELGEN_E2E_ARTIFACTS") or REPO / "out" / "vscode-e2e")
SETUP = "client-vscode/scripts/e2e-setup.sh"

# Bounds of each wait (seconds); the whole test stays under about five minutes.
START_S = 60        # code-server answering /healthz
WORKBENCH_S = 60    # the workbench rendered
SERVER_S = 90       # the language server's first diagnostics
GENERATE_S = 240    # generate + validate a kernel on the emulator

# Keep the workbench quiet: no welcome page, chat panel, trust prompt or update check that would
# take the keyboard focus.
USER_SETTINGS = {
    "workbench.startupEditor": "none",
    "chat.disableAIFeatures": True,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "security.workspace.trust.enabled": False,
    "update.mode": "none",
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "workbench.tips.enabled": False,
    "editor.minimap.enabled": False,
    "files.autoSave": "off",
    "kernelgen.lintDebounceMs": 50,
    "kernelgen.validateOnSave": False,
}


def _vsix() -> Path:
    found = sorted((CLIENT / "dist").glob("*.vsix"))
    if not found:
        pytest.fail("no .vsix in client-vscode/dist: run client-vscode/scripts/ci.sh first")
    return found[-1]


def _playwright():
    """Playwright for Python, from the venv or from the setup script's cache folder."""
    try:
        import playwright.sync_api as api
    except ImportError:
        sys.path.append(str(CACHE / "python"))
        try:
            import playwright.sync_api as api
        except ImportError:
            pytest.fail(f"Playwright is not installed: run {SETUP} first")
    return api


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _server_env(home: Path) -> dict[str, str]:
    """code-server's environment: Node 24 first on PATH, config/data/temp folders in `home`, and
    the checkout's Python packages importable by the language server it starts."""
    env = dict(os.environ)
    env["PATH"] = f"{NODE}{os.pathsep}{env.get('PATH', '')}"
    for var, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("TMPDIR", "tmp")):
        (home / sub).mkdir(parents=True, exist_ok=True)
        env[var] = str(home / sub)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (env.get("PYTHONPATH"), str(REPO)) if p)
    return env


def _make_workspace(ws: Path) -> int:
    """A kernel whose tiles overflow the UB of ascend910b2, the same kernel with an empty CopyIn
    body (for an inline completion), and a PyTorch stub to generate from. Returns the 1-based
    line of the empty body."""
    text = (REPO / "tests" / "data" / "corpus" / "leaky_relu_tail.cpp").read_text()
    assert "TILE_LENGTH = 4096" in text
    kernel = ws / "ub" / "leaky_relu_tail.cpp"
    kernel.parent.mkdir(parents=True)
    kernel.write_text(text.replace("TILE_LENGTH = 4096", "TILE_LENGTH = 32768", 1))
    empty = re.sub(r"(void CopyIn\(uint32_t i, uint32_t len\)\n    \{\n).*?(\n    \})",
                   r"\1        \2", text, count=1, flags=re.S)
    (ws / "inline").mkdir()
    (ws / "inline" / "leaky_copy_in.cpp").write_text(empty)
    body_line = next(i for i, t in enumerate(empty.split("\n")) if "void CopyIn(" in t) + 3
    stub = ws / "stubs" / "act_gelu_fp32.py"
    stub.parent.mkdir()
    shutil.copy(REPO / "bench" / "stubs" / "act_gelu_fp32.py", stub)
    return body_line


@pytest.fixture(scope="module")
def code_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """code-server with the extension installed, serving a fresh workspace; stopped (its whole
    process group) afterwards."""
    for need in (CODE_SERVER, NODE / "node", CHROMIUM):
        if not need.exists():
            pytest.fail(f"{need} is missing: run {SETUP} first")
    probe_dir = tmp_path_factory.mktemp("probe")
    probe = subprocess.run([sys.executable, "-c", "import server.commands.serve"],
                           env=_server_env(probe_dir), cwd=probe_dir, capture_output=True)
    if probe.returncode != 0:
        pytest.skip("the language server (`kernelgen serve`) is not in this checkout")

    home = tmp_path_factory.mktemp("code-server")
    user_data, extensions = home / "user-data", home / "extensions"
    (user_data / "User").mkdir(parents=True)
    (user_data / "User" / "settings.json").write_text(json.dumps(USER_SETTINGS, indent=2))
    # Paths of the machine that runs the server are machine-scoped settings: in code-server they
    # live in the remote ("Machine") settings, not the browser's user settings.
    (user_data / "Machine").mkdir()
    (user_data / "Machine" / "settings.json").write_text(
        json.dumps({"kernelgen.server.pythonPath": sys.executable}, indent=2))
    ws = home / "ws"
    body_line = _make_workspace(ws)
    env = _server_env(home)
    dirs = ["--user-data-dir", str(user_data), "--extensions-dir", str(extensions)]

    subprocess.run([str(CODE_SERVER), *dirs, "--install-extension", str(_vsix())],
                   env=env, check=True, capture_output=True, timeout=120)

    port = _free_port()
    log = (home / "code-server.log").open("wb")
    proc = subprocess.Popen(
        [str(CODE_SERVER), "--bind-addr", f"127.0.0.1:{port}", "--auth", "none",
         "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
         *dirs, str(ws)],
        env=env, cwd=home, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_S
        while True:
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"code-server did not start; log: {home / 'code-server.log'}")
            time.sleep(0.5)
        yield f"{url}/?folder={ws}", ws, body_line
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()
        _keep_logs(home)


def _keep_logs(home: Path) -> None:
    """code-server's log and the extension's output channel (the server's log) as artifacts."""
    logs = ARTIFACTS / "logs"
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir(parents=True)
    shutil.copy(home / "code-server.log", logs)
    for f in (home / "user-data" / "logs").rglob("*.log"):
        if "AscendC" in f.name or f.name in ("exthost.log", "remoteexthost.log"):
            shutil.copy(f, logs / f.name)


def _shot(page, name: str) -> None:
    """A screenshot kept as an artifact; notifications fade in, so wait a moment first."""
    page.wait_for_timeout(1000)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def _open_file(page, name: str) -> None:
    page.keyboard.press("Control+P")
    box = page.locator(".quick-input-widget input")
    box.wait_for(state="visible")
    box.fill(name)
    page.locator(".quick-input-list .monaco-list-row", has_text=name).first.wait_for()
    page.keyboard.press("Enter")
    page.locator(f".tab[aria-label*='{name}']").first.wait_for()


def _go_to_line(page, line: int) -> None:
    page.keyboard.press("Control+G")
    box = page.locator(".quick-input-widget input")
    box.wait_for(state="visible")
    box.fill(f":{line}")
    # Enter before the widget has read the number is lost: wait for its "go to line" row.
    page.locator(".quick-input-list .monaco-list-row", has_text=f"line {line}").first.wait_for()
    page.keyboard.press("Enter")
    page.locator(".quick-input-widget").wait_for(state="hidden")


def _recorded_completions(store: Path) -> int:
    if not store.exists():
        return 0
    try:
        with sqlite3.connect(store) as db:
            query = "SELECT count(*) FROM edits WHERE kind = 'completion'"
            return int(db.execute(query).fetchone()[0])
    except sqlite3.OperationalError:  # the server is still creating it
        return 0


def _run_command(page, title: str) -> None:
    page.keyboard.press("F1")
    box = page.locator(".quick-input-widget input")
    box.wait_for(state="visible")
    box.fill(f">{title}")
    page.locator(".quick-input-list .monaco-list-row", has_text=title).first.wait_for()
    page.keyboard.press("Enter")


def test_diagnostic_quick_fix_completion_and_generate_in_vscode(code_server) -> None:
    url, ws, body_line = code_server
    api = _playwright()
    for old in ARTIFACTS.glob("*.png"):
        old.unlink()
    with api.sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        page = browser.new_page(viewport={"width": 1280, "height": 760})
        page.set_default_timeout(30_000)
        try:
            _session(page, url, ws, body_line, api)
        except Exception:
            _shot(page, "failure")
            raise
        finally:
            browser.close()


def _session(page, url: str, ws: Path, body_line: int, api) -> None:
    expect = api.expect
    expect.set_options(timeout=30_000)
    page.goto(url)
    page.locator(".monaco-workbench").wait_for(timeout=WORKBENCH_S * 1000)
    page.locator(".monaco-workbench .part.editor").click()

    # The overflowing kernel: the server's ub-overflow error reaches the Problems panel.
    _open_file(page, "leaky_relu_tail.cpp")
    page.keyboard.press("Control+Shift+M")
    problems = page.locator(".markers-panel")
    overflow = problems.locator(".monaco-list-row", has_text="ub-overflow")
    overflow.first.wait_for(timeout=SERVER_S * 1000)
    status = page.locator(".statusbar-item", has_text="AscendC")
    expect(status.first).to_contain_text("UB")  # the active kernel's UB use, over 100 %
    _shot(page, "diagnostic")

    # The quick fix, from the light bulb menu on the diagnostic's line.
    fix = page.locator(".action-widget .monaco-list-row", has_text="TILE_LENGTH")
    for attempt in range(3):  # a menu opened before the actions arrived is opened again
        page.locator(".monaco-editor .view-lines").first.click()
        page.keyboard.press("F8")  # next problem: the cursor moves onto the diagnostic
        page.keyboard.press("Escape")
        page.keyboard.press("Control+.")
        try:
            fix.first.wait_for(timeout=20_000)
            break
        except api.Error:
            if attempt == 2:
                raise
            page.keyboard.press("Escape")
    _shot(page, "quick-fix")
    fix.first.click()
    expect(overflow).to_have_count(0, timeout=SERVER_S * 1000)
    editor_text = page.locator(".monaco-editor .view-lines").first
    expect(editor_text).not_to_contain_text("TILE_LENGTH = 32768")
    _shot(page, "diagnostic-fixed")

    # A completion inside the kernel class: the server's AscendC members.
    _go_to_line(page, 40)
    page.keyboard.press("End")
    page.keyboard.press("Enter")
    page.keyboard.type("pipe->")
    page.keyboard.press("Control+Space")
    suggest = page.locator(".suggest-widget .monaco-list-row", has_text="InitBuffer")
    suggest.first.wait_for(timeout=SERVER_S * 1000)
    _shot(page, "completion")
    page.keyboard.press("Escape")

    # Inline completion in an empty CopyIn body: ghost text, accepted with Tab, and the
    # acceptance recorded by the server in the workspace's edit store.
    _open_file(page, "leaky_copy_in.cpp")
    _go_to_line(page, body_line)
    page.keyboard.press("End")
    _run_command(page, "Trigger Inline Suggestion")
    ghost = page.locator(".monaco-editor .ghost-text-decoration, .monaco-editor .ghost-text")
    ghost.first.wait_for(timeout=SERVER_S * 1000)
    _shot(page, "inline-completion")
    page.keyboard.press("Tab")
    expect(ghost).to_have_count(0)
    store = ws / ".kernelgen" / "edits.sqlite"
    deadline = time.monotonic() + 30
    while not _recorded_completions(store):
        assert time.monotonic() < deadline, "the accepted completion was not recorded"
        time.sleep(0.5)

    # Generate a kernel from the stub: progress in a notification whose Cancel works...
    _open_file(page, "act_gelu_fp32.py")
    _run_command(page, "AscendC: Generate Kernel from Torch Op")
    toast = page.locator(".notification-toast")
    progress = toast.filter(has_text="generating a kernel from act_gelu_fp32.py")
    progress.first.wait_for()
    _shot(page, "generate-progress")
    progress.first.get_by_role("button", name="Cancel").click()
    cancelled = toast.filter(has_text="generation from act_gelu_fp32.py cancelled")
    cancelled.first.wait_for()
    _run_command(page, "Notifications: Clear All Notifications")

    # ... then, run again to the end, the kernel opens.
    page.locator(".monaco-editor .view-lines").first.click()
    _run_command(page, "AscendC: Generate Kernel from Torch Op")
    progress.first.wait_for()
    done = toast.filter(has_text="AscendC: generated")
    done.first.wait_for(timeout=GENERATE_S * 1000)
    kernels = list((ws / "stubs").glob("*_kernel/op_kernel/*.cpp"))
    assert kernels, "no generated operator project next to the stub"
    page.locator(f".tab.active[aria-label*='{kernels[0].name}']").wait_for()
    expect(status.first).to_contain_text(re.compile(r"✓ \d+/\d+"))  # its validation
    _shot(page, "generated-kernel")
