"""torch.chunk into three outputs along the last axis, fp16."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.chunk(x, 3, dim=-1)


def get_inputs():
    return [torch.randn(33, 27, dtype=torch.float16)]


def get_init_inputs():
    return []
