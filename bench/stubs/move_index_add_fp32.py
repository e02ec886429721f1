"""x.index_add(0, idx, s) in float32: value rows added on the vector unit, repeats included."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, idx, s):
        return x.index_add(0, idx, s)


def get_inputs():
    return [torch.randn(29, 40), torch.randint(0, 29, (50,)), torch.randn(50, 40)]


def get_init_inputs():
    return []
