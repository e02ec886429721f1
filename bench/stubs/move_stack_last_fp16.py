"""torch.stack along a new last axis, fp16 (interleaves the inputs)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y):
        return torch.stack([x, y], dim=-1)


def get_inputs():
    return [torch.randn(11, 19, dtype=torch.float16), torch.randn(11, 19, dtype=torch.float16)]


def get_init_inputs():
    return []
