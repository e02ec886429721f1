"""x.narrow(-1, 3, 20): a slice of the last axis, fp16, unaligned start and width."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.narrow(-1, 3, 20)


def get_inputs():
    return [torch.randn(33, 41, dtype=torch.float16)]


def get_init_inputs():
    return []
