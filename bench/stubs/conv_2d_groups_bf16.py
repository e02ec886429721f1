"""Grouped conv2d (groups = 3) with bias and SiLU in bfloat16."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(6, 9, 3, padding=1, groups=3).to(torch.bfloat16)

    def forward(self, x):
        return torch.nn.functional.silu(self.conv(x))


def get_inputs():
    return [torch.randn(2, 6, 13, 11, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
