"""F.linear + GELU: the activation fused as the vector epilogue."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w, b):
        return F.gelu(F.linear(x, w, b))


def get_inputs():
    return [torch.randn(3, 21, 40), torch.randn(33, 40), torch.randn(33)]


def get_init_inputs():
    return []
