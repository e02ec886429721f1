"""Strided, dilated, padded conv2d in fp16: stride 2, padding (2, 1), dilation 2, GELU."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 9, 3, stride=2, padding=(2, 1), dilation=2).half()

    def forward(self, x):
        return torch.nn.functional.gelu(self.conv(x))


def get_inputs():
    return [torch.randn(2, 4, 19, 17, dtype=torch.float16)]


def get_init_inputs():
    return []
