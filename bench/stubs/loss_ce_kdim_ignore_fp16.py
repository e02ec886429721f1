"""Cross entropy, float16 (N, C, H, W) logits, ignore_index=0 (positions with target 0 skipped)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, t):
        return F.cross_entropy(x, t, ignore_index=0)


def get_inputs():
    return [torch.randn(6, 13, 7, 11, dtype=torch.float16), torch.randint(0, 13, (6, 7, 11))]


def get_init_inputs():
    return []
