"""ResNet-style 3 x 3 conv (64 -> 64 channels, 56 x 56, padding 1) + bias + ReLU in fp16."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(64, 64, 3, padding=1).half()

    def forward(self, x):
        return torch.relu(self.conv(x))


def get_inputs():
    return [torch.randn(2, 64, 56, 56, dtype=torch.float16)]


def get_init_inputs():
    return []
