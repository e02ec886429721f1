"""sigmoid((a @ b) * per-row scale + per-column shift), fp16."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, s, t):
        return torch.sigmoid(a @ b * s + t)


def get_inputs():
    return [
        torch.randn(41, 32, dtype=torch.float16),
        torch.randn(32, 27, dtype=torch.float16),
        torch.rand(41, 1, dtype=torch.float16),
        torch.randn(27, dtype=torch.float16),
    ]


def get_init_inputs():
    return []
