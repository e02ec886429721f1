"""logical_and of a comparison and a float tensor's truth (x != 0), returned as a bool tensor."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.logical_and(x > y, torch.relu(y))


def get_inputs():
    return [torch.randn(65, 333), torch.randn(333)]


def get_init_inputs():
    return []
