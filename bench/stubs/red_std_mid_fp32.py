"""x.std(dim=1, keepdim=True) on (8, 64, 9)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.std(dim=1, keepdim=True)


def get_inputs():
    return [torch.randn((8, 64, 9), dtype=torch.float32)]


def get_init_inputs():
    return []
