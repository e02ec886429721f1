"""The foreach family in place: torch._foreach_mul_ scales the list and returns None."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, xs: list[torch.Tensor], scalar: float) -> None:
        torch._foreach_mul_(xs, scalar)


def get_inputs():
    return [[torch.randn(2, 32), torch.randn(2, 32), torch.randn(2, 32)], 1.5]


def get_init_inputs():
    return []
