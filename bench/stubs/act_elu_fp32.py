"""elu on (5000,) float32."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.elu(x, alpha=1.3)


def get_inputs():
    return [torch.randn((5000,), dtype=torch.float32)]


def get_init_inputs():
    return []
