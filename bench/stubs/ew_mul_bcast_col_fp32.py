"""x * y with x(300, 77), y(300, 1)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return x * y


def get_inputs():
    return [torch.randn((300, 77), dtype=torch.float32), torch.randn((300, 1), dtype=torch.float32)]


def get_init_inputs():
    return []
