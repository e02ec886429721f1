"""F.layer_norm(x, (512,)) on torch.randn(16, 512, dtype=torch.bfloat16)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.layer_norm(x, (512,))


def get_inputs():
    return [torch.randn(16, 512, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
