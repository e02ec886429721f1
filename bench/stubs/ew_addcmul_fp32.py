"""torch.addcmul(x, x, y, value=0.3) with x(40, 400), y(40, 400)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.addcmul(x, x, y, value=0.3)


def get_inputs():
    return [torch.randn((40, 400), dtype=torch.float32), torch.randn((40, 400), dtype=torch.float32)]


def get_init_inputs():
    return []
