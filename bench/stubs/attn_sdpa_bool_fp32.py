"""SDPA with a bool mask [Sq, Sk] (True attends) shared by every batch, [B, S, D] in float32."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, q, k, v, mask):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def get_inputs():
    return [
        torch.randn(3, 77, 64),
        torch.randn(3, 129, 64),
        torch.randn(3, 129, 64),
        torch.rand(77, 129) > 0.5,
    ]


def get_init_inputs():
    return []
