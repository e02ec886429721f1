"""conv2d + bias, ReLU and a residual add (ResNet-style block tail) in fp16."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 8, 3, padding=1).half()

    def forward(self, x, r):
        return torch.relu(self.conv(x)) + r


def get_inputs():
    return [
        torch.randn(2, 8, 13, 15, dtype=torch.float16),
        torch.randn(2, 8, 13, 15, dtype=torch.float16),
    ]


def get_init_inputs():
    return []
