"""The shell: the `kernelgen` CLI and the pygls language server.

Both only translate: arguments and LSP messages in, calls into `ascend_tools` and
`kernelgen_lm` out, their pydantic models rendered back as text, JSON or LSP types.
"""
