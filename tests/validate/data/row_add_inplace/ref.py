"""An in-place update of one row: the forward mutates var through a view and returns None."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, var, delta) -> None:
        var[0].add_(delta)


def get_inputs():
    return [torch.randn(4, 64), torch.randn(64)]


def get_init_inputs():
    return []
