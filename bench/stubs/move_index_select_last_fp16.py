"""torch.index_select along the last axis (one Gather per row), fp16, int32 indices."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, idx):
        return torch.index_select(x, -1, idx)


def get_inputs():
    return [
        torch.randn(13, 45, dtype=torch.float16),
        torch.randint(0, 45, (29,), dtype=torch.int32),
    ]


def get_init_inputs():
    return []
