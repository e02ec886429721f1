"""GroupNorm with affine."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, g, c):
        super().__init__()
        self.n = nn.GroupNorm(g, c)
        nn.init.normal_(self.n.weight)

    def forward(self, x):
        return self.n(x)


def get_inputs():
    return [torch.randn((4, 16, 9, 10), dtype=torch.float32)]


def get_init_inputs():
    return [4, 16]
