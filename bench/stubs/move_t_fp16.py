"""x.t() of a 2-D fp16 matrix."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.t()


def get_inputs():
    return [torch.randn(37, 130, dtype=torch.float16)]


def get_init_inputs():
    return []
