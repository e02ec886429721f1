"""The AscendC language server (`kernelgen serve`): LSP in, calls into the cores out."""
