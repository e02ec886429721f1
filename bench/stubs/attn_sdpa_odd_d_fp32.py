"""F.scaled_dot_product_attention with a small odd head size (D = 40, Dv = 24)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v)


def get_inputs():
    return [torch.randn(2, 2, 77, 40), torch.randn(2, 2, 129, 40), torch.randn(2, 2, 129, 24)]


def get_init_inputs():
    return []
