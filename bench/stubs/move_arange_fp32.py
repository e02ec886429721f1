"""torch.arange(start, end, step) in float32: an output from scalars alone (no inputs)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self):
        return torch.arange(-3.0, 9000.0, 0.5, dtype=torch.float32)


def get_inputs():
    return []


def get_init_inputs():
    return []
