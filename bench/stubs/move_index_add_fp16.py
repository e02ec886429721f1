"""x.index_add(0, idx, s): rows accumulated at int64 indices with repeats, fp16."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, idx, s):
        return x.index_add(0, idx, s)


def get_inputs():
    return [
        torch.randn(19, 33, dtype=torch.float16),
        torch.randint(0, 19, (25,)),
        torch.randn(25, 33, dtype=torch.float16),
    ]


def get_init_inputs():
    return []
