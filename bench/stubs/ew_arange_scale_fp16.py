"""x * arange(1, cols + 1) * 0.01 + row index on (7, 74) float16."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        cols = torch.arange(1, x.shape[1] + 1, dtype=x.dtype)
        rows = torch.arange(x.shape[0], dtype=x.dtype).unsqueeze(1)
        return x * cols * 0.01 + rows


def get_inputs():
    return [torch.randn((7, 74), dtype=torch.float16)]


def get_init_inputs():
    return []
