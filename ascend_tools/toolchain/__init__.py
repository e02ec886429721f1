"""Compiling operator projects: the emulator build (g++) and the CANN toolkit probe."""
