"""LeakyReLU with the attribute negative_slope (from get_init_inputs) on 77 x 513 elements."""

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS = 77
COLS = 513
NEGATIVE_SLOPE = 0.2


class Model(nn.Module):
    def __init__(self, negative_slope: float):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.leaky_relu(x, negative_slope=self.negative_slope)


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return [NEGATIVE_SLOPE]
