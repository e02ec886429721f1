"""torch.minimum(x, y) with x(7, 5, 513), y(5, 1)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.minimum(x, y)


def get_inputs():
    return [torch.randn((7, 5, 513), dtype=torch.float32), torch.randn((5, 1), dtype=torch.float32)]


def get_init_inputs():
    return []
