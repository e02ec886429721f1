"""Everything about AscendC itself: chips, API catalog, parsing, lint, emulator, toolchain, runner.

Knows nothing of LLMs or LSP (see docs/ARCHITECTURE.md, dependency rule).
"""
