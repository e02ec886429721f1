"""torch.amin(x, dim=1) on (6, 50, 70)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.amin(x, dim=1)


def get_inputs():
    return [torch.randn((6, 50, 70), dtype=torch.float32)]


def get_init_inputs():
    return []
