"""torch.split with sizes along a middle axis: three outputs of unequal widths."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.split(x, [3, 5, 9], dim=1)


def get_inputs():
    return [torch.randn(7, 17, 13)]


def get_init_inputs():
    return []
