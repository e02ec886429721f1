"""a.t() @ b: the left operand is stored transposed."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a.t() @ b


def get_inputs():
    return [torch.randn(19, 37), torch.randn(19, 26)]


def get_init_inputs():
    return []
