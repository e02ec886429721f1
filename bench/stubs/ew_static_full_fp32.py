"""Static-shape torch.ones, torch.zeros and torch.full broadcast against the input."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * torch.ones(333, 517) + torch.zeros(517) + torch.full((333, 1), 0.25)


def get_inputs():
    return [torch.randn(333, 517)]


def get_init_inputs():
    return []
