"""Hinge loss mean(clamp(1 - x*y, min=0))."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.clamp(1 - x * y, min=0).mean()


def get_inputs():
    return [torch.randn((1000,), dtype=torch.float32), torch.randn((1000,), dtype=torch.float32)]


def get_init_inputs():
    return []
