"""3 x 3 conv, padding 1 (16 -> 16 channels) on an odd 13 x 11 image + bias + ReLU in bf16: the
smallest shape where the cost model takes the Load3D slab lowering."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(16, 16, 3, padding=1).to(torch.bfloat16)

    def forward(self, x):
        return torch.relu(self.conv(x))


def get_inputs():
    return [torch.randn(2, 16, 13, 11, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
