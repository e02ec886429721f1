"""torch.arange(n): the default int64 iota, no inputs (written on the scalar unit)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self):
        return torch.arange(1000)


def get_inputs():
    return []


def get_init_inputs():
    return []
