"""SDPA with an additive float mask [Sq, Sk] shared by every batch and head, explicit scale."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, q, k, v, mask):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=0.2)


def get_inputs():
    return [
        torch.randn(2, 2, 77, 64),
        torch.randn(2, 2, 133, 64),
        torch.randn(2, 2, 133, 64),
        torch.randn(77, 133),
    ]


def get_init_inputs():
    return []
