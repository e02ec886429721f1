"""Smoke test in a real editor: headless Neovim attaches `kernelgen serve` with its built-in
LSP client, reads a lint diagnostic and a completion after `pipe->`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lsp.conftest import CORPUS, REPO

NVIM = shutil.which("nvim")

SCRIPT = r"""
local out_path, file, python = _G.KG_OUT, _G.KG_FILE, _G.KG_PYTHON
local result = {}
local function finish()
  local f = io.open(out_path, "w"); f:write(vim.fn.json_encode(result)); f:close()
  vim.cmd("qa!")
end
vim.cmd("edit " .. file)
local buf = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({
  name = "kernelgen",
  cmd = { python, "-m", "server.cli", "serve" },
  root_dir = vim.fn.fnamemodify(file, ":h"),
  init_options = { lintDebounceMs = 0 },
})
vim.lsp.buf_attach_client(buf, client_id)
local ok = vim.wait(60000, function()
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.source == "kernelgen-lint" then return true end
  end
  return false
end, 100)
result.diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(result.diagnostics, { code = d.code, source = d.source, lnum = d.lnum })
end
local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
local row, col
for i, l in ipairs(lines) do
  local s = string.find(l, "pipe->InitBuffer", 1, true)
  if s then row, col = i - 1, s - 1 + 6 break end
end
local params = { textDocument = { uri = vim.uri_from_bufnr(buf) },
                 position = { line = row, character = col } }
local responses = vim.lsp.buf_request_sync(buf, "textDocument/completion", params, 30000)
result.labels = {}
for _, r in pairs(responses or {}) do
  local items = r.result and (r.result.items or r.result) or {}
  for _, item in ipairs(items) do table.insert(result.labels, item.label) end
end
finish()
"""


@pytest.mark.skipif(NVIM is None, reason="Neovim is not installed (apt-get install -y neovim)")
def test_headless_neovim_reads_a_diagnostic_and_a_completion(tmp_path: Path) -> None:
    kernel = tmp_path / "leaky.cpp"
    kernel.write_text((CORPUS / "leaky_relu_tail.cpp").read_text().replace(
        "TILE_LENGTH = 4096", "TILE_LENGTH = 32768", 1))
    out = tmp_path / "out.json"
    script = tmp_path / "smoke.lua"
    script.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KERNELGEN_LLM_")}
    env["PYTHONPATH"] = str(REPO)
    setup = (f"lua _G.KG_OUT={json.dumps(str(out))}; _G.KG_FILE={json.dumps(str(kernel))}; "
             f"_G.KG_PYTHON={json.dumps(sys.executable)}")
    subprocess.run([NVIM, "--headless", "-u", "NONE", "-i", "NONE", "-c", setup,
                    "-c", f"luafile {script}"], env=env, timeout=180, check=True,
                   stdin=subprocess.DEVNULL, capture_output=True)
    result = json.loads(out.read_text())
    codes = {(d["source"], d["code"]) for d in result["diagnostics"]}
    assert ("kernelgen-lint", "ub-overflow") in codes
    assert result["labels"] and result["labels"][0] == "InitBuffer"
