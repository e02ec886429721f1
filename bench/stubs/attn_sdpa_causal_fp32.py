"""Causal attention with Sq < Sk (top-left: query i sees keys 0..i), float32, [B, H, S, D]."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def get_inputs():
    return [torch.randn(1, 2, 77, 64), torch.randn(1, 2, 100, 64), torch.randn(1, 2, 100, 64)]


def get_init_inputs():
    return []
