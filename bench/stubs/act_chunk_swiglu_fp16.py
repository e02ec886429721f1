"""SwiGLU gate: a, b = x.chunk(2, -1); silu(a) * b on (7, 2*37) float16."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        a, b = x.chunk(2, dim=-1)
        return F.silu(a) * b


def get_inputs():
    return [torch.randn((7, 74), dtype=torch.float16)]


def get_init_inputs():
    return []
