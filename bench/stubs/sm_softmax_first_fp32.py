"""torch.softmax(x, dim=0) on (100, 77)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=0)


def get_inputs():
    return [torch.randn((100, 77), dtype=torch.float32)]


def get_init_inputs():
    return []
