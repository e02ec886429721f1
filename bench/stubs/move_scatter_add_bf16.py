"""x.scatter_add(0, idx, s) along axis 0 with repeated indices, bfloat16."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, idx, s):
        return x.scatter_add(0, idx, s)


def get_inputs():
    return [
        torch.randn(7, 21, dtype=torch.bfloat16),
        torch.randint(0, 7, (12, 21)),
        torch.randn(12, 21, dtype=torch.bfloat16),
    ]


def get_init_inputs():
    return []
