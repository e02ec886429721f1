"""Running compiled ops: sandbox, case files, the emulator backend and the NPU backend's probe."""
