"""nn.Conv2d without bias, fp32: C_in = 3, odd 17 x 19 image, 3 x 3 kernel, padding 1."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1, bias=False)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(2, 3, 17, 19)]


def get_init_inputs():
    return []
