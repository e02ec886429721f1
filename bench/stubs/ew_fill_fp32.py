"""x.fill_(v) of a clone with a 0-d tensor value, added to x."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, v):
        return x.clone().fill_(v) + x


def get_inputs():
    return [torch.randn(333, 517), torch.tensor(0.75)]


def get_init_inputs():
    return []
