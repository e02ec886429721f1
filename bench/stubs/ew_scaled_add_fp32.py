"""x + 0.5 * y - 2.0 with x(12345,), y(12345,)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return x + 0.5 * y - 2.0


def get_inputs():
    return [torch.randn((12345,), dtype=torch.float32), torch.randn((12345,), dtype=torch.float32)]


def get_init_inputs():
    return []
