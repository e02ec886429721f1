"""x + 0.25*(y - x)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.lerp(x, y, 0.25)


def get_inputs():
    return [torch.randn((99, 99), dtype=torch.float32), torch.randn((99, 99), dtype=torch.float32)]


def get_init_inputs():
    return []
