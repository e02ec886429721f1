"""LayerNorm fp16 input, fp32 params as half."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.layer_norm(x, (1000,))


def get_inputs():
    return [torch.randn((32, 1000), dtype=torch.float16)]


def get_init_inputs():
    return []
