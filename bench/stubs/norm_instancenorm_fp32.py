"""InstanceNorm2d (no affine)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.n = nn.InstanceNorm2d(c)

    def forward(self, x):
        return self.n(x)


def get_inputs():
    return [torch.randn((4, 8, 17, 19), dtype=torch.float32)]


def get_init_inputs():
    return [8]
