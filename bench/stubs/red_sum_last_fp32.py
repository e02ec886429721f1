"""x.sum(dim=-1) on (128, 1000)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.sum(dim=-1)


def get_inputs():
    return [torch.randn((128, 1000), dtype=torch.float32)]


def get_init_inputs():
    return []
