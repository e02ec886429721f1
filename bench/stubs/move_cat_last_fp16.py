"""torch.cat along the last axis, fp16, unaligned widths."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y):
        return torch.cat([x, y], dim=-1)


def get_inputs():
    return [torch.randn(17, 9, dtype=torch.float16), torch.randn(17, 14, dtype=torch.float16)]


def get_init_inputs():
    return []
