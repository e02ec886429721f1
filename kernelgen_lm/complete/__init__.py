"""Completion engines (no LSP types): API-aware candidates from the KernelModel and the catalog
(`members`), and the inline (ghost text) engine with its embedded skeletons and LLM
post-processing (`inline`)."""
