"""Broadcast-batched matmul: [2, 3, M, K] @ [3, K, N]."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(2, 3, 19, 17), torch.randn(3, 17, 23)]


def get_init_inputs():
    return []
