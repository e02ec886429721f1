"""torch.matmul of two 2-D fp16 matrices, odd M/N/K."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(65, 40, dtype=torch.float16), torch.randn(40, 47, dtype=torch.float16)]


def get_init_inputs():
    return []
