"""vector_norm with ord=0: the count of nonzero elements per row."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.linalg.vector_norm(x, ord=0, dim=-1)


def get_inputs():
    return [torch.relu(torch.randn(333, 517))]


def get_init_inputs():
    return []
