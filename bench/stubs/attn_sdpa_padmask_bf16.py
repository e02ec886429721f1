"""SDPA with a key-padding bool mask [B, 1, 1, Sk] (one row for every query), bfloat16."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, q, k, v, mask):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def get_inputs():
    return [
        torch.randn(2, 2, 33, 64).bfloat16(),
        torch.randn(2, 2, 77, 64).bfloat16(),
        torch.randn(2, 2, 77, 64).bfloat16(),
        torch.arange(77).expand(2, 1, 1, 77) < torch.tensor([60, 77]).view(2, 1, 1, 1),
    ]


def get_init_inputs():
    return []
