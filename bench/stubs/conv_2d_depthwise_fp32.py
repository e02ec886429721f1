"""Depthwise conv2d (groups = C_in = 7) with bias, stride 2, padding 1, then sigmoid."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(7, 7, 3, stride=2, padding=1, groups=7)

    def forward(self, x):
        return torch.sigmoid(self.conv(x))


def get_inputs():
    return [torch.randn(2, 7, 17, 19)]


def get_init_inputs():
    return []
