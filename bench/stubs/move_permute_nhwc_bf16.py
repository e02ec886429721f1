"""NCHW -> NHWC permute in bfloat16, odd sizes."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.permute(0, 2, 3, 1).contiguous()


def get_inputs():
    return [torch.randn(2, 6, 9, 11, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
