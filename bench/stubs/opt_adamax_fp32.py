"""Adamax step (t=3): u = max(b2 * u, |g|); returns (param, m, u)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, p, g, m, u):
        return (p - 0.002 / (1 - 0.9 ** 3) * (0.9 * m + 0.1 * g) / torch.maximum(0.999 * u, g.abs() + 1e-8), 0.9 * m + 0.1 * g, torch.maximum(0.999 * u, g.abs() + 1e-8))


def get_inputs():
    return [torch.randn(4097), torch.randn(4097), torch.randn(4097), torch.rand(4097)]


def get_init_inputs():
    return []
