"""3 x 3 conv, stride 2, padding 1 (32 -> 16 channels, odd 29 x 27 image) + bias + ReLU in fp16:
the cost model takes the Load3D slab lowering (a strided window, padding on every edge)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(32, 16, 3, stride=2, padding=1).half()

    def forward(self, x):
        return torch.relu(self.conv(x))


def get_inputs():
    return [torch.randn(2, 32, 29, 27, dtype=torch.float16)]


def get_init_inputs():
    return []
