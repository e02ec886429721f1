"""a @ b in bfloat16."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a @ b


def get_inputs():
    return [torch.randn(31, 24, dtype=torch.bfloat16), torch.randn(24, 50, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
