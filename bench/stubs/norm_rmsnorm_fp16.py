"""x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6).to(x.dtype) on torch.randn(32, 1000, dtype=torch.float16)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6).to(x.dtype)


def get_inputs():
    return [torch.randn(32, 1000, dtype=torch.float16)]


def get_init_inputs():
    return []
