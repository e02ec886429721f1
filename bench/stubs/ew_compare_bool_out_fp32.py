"""x > y returned as a bool tensor, with a row-broadcast y."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return x > y


def get_inputs():
    return [torch.randn(65, 333), torch.randn(333)]


def get_init_inputs():
    return []
