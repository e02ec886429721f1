"""isfinite / isinf / isnan masks of log(x) and 1/x as floats."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.isfinite(torch.log(x)).float() + 2 * torch.isinf(1 / x).float() + 4 * torch.isnan(torch.sqrt(x)).float()


def get_inputs():
    return [torch.cat([torch.randn(333, 516), torch.zeros(333, 1)], 1)]


def get_init_inputs():
    return []
