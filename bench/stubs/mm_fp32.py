"""torch.mm, fp32, odd M/N/K."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.mm(a, b)


def get_inputs():
    return [torch.randn(33, 17), torch.randn(17, 45)]


def get_init_inputs():
    return []
