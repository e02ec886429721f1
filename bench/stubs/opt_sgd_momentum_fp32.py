"""SGD with momentum: returns (new param, new buf)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, p, g, buf):
        return (p - 0.01 * (0.9 * buf + g), 0.9 * buf + g)


def get_inputs():
    return [torch.randn((1000, 33), dtype=torch.float32), torch.randn((1000, 33), dtype=torch.float32), torch.randn((1000, 33), dtype=torch.float32)]


def get_init_inputs():
    return []
