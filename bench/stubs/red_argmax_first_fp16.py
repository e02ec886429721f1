"""torch.argmax(x, dim=0) on torch.randn(100, 65, dtype=torch.float16)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.argmax(x, dim=0)


def get_inputs():
    return [torch.randn(100, 65, dtype=torch.float16)]


def get_init_inputs():
    return []
