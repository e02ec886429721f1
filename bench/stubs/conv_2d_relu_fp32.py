"""Model-level block: nn.Conv2d (bias) then ReLU, fused as the epilogue."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.conv(x))


def get_inputs():
    return [torch.randn(2, 3, 17, 19)]


def get_init_inputs():
    return []
