"""torch.bmm with the right operand transposed (q @ k^T shape)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k):
        return torch.bmm(q, k.transpose(1, 2))


def get_inputs():
    return [torch.randn(4, 25, 16), torch.randn(4, 31, 16)]


def get_init_inputs():
    return []
