"""3 x 3 conv, padding 1 (48 -> 40 channels: three channel groups, Cout not a multiple of 16) on
an odd 13 x 11 image + bias + ReLU in bf16: the Load3D slab lowering."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(48, 40, 3, padding=1).to(torch.bfloat16)

    def forward(self, x):
        return torch.relu(self.conv(x))


def get_inputs():
    return [torch.randn(2, 48, 13, 11, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
