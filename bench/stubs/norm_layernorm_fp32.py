"""LayerNorm over the last dim with affine."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        nn.init.normal_(self.ln.weight); nn.init.normal_(self.ln.bias)

    def forward(self, x):
        return self.ln(x)


def get_inputs():
    return [torch.randn((64, 768), dtype=torch.float32)]


def get_init_inputs():
    return [768]
