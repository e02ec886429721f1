"""cat of two tensors along the last axis, then relu, on (7, 37) + (7, 21) float16."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.cat([a, b], dim=-1).relu()


def get_inputs():
    return [torch.randn(7, 37, dtype=torch.float16), torch.randn(7, 21, dtype=torch.float16)]


def get_init_inputs():
    return []
