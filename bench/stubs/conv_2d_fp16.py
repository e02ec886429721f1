"""nn.Conv2d with bias in fp16: odd 15 x 13 image, 5 x 3 kernel, no padding."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(5, 12, (5, 3)).half()

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(2, 5, 15, 13, dtype=torch.float16)]


def get_init_inputs():
    return []
