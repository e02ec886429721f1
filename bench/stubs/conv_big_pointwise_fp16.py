"""Bottleneck-style pointwise conv (1 x 1, 256 -> 256 channels, 28 x 28) + bias + ReLU in fp16."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(256, 256, 1).half()

    def forward(self, x):
        return torch.relu(self.conv(x))


def get_inputs():
    return [torch.randn(2, 256, 28, 28, dtype=torch.float16)]


def get_init_inputs():
    return []
