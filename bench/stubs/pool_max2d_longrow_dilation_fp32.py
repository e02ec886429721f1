"""F.max_pool2d(x, (3, 7), (1, 2), (1, 3), dilation=(2, 3)) on torch.randn(2, 4, 12, 1500): long rows, a wide dilated window, padding on both borders."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.max_pool2d(x, (3, 7), (1, 2), (1, 3), dilation=(2, 3))


def get_inputs():
    return [torch.randn(2, 4, 12, 1500)]


def get_init_inputs():
    return []
