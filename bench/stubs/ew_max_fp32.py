"""torch.maximum(x, y) with x(1000, 3), y(1000, 3)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.maximum(x, y)


def get_inputs():
    return [torch.randn((1000, 3), dtype=torch.float32), torch.randn((1000, 3), dtype=torch.float32)]


def get_init_inputs():
    return []
