"""SGD with momentum returning (new param, new buf); other argument names than the OpDef's, so
tensors and attributes bind in order."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, p, g, b, learning_rate: float, beta: float):
        new_b = beta * b + g
        return p - learning_rate * new_b, new_b


def get_inputs():
    return [torch.randn(8, 32), torch.randn(8, 32), torch.randn(8, 32), 0.1, 0.9]


def get_init_inputs():
    return []
