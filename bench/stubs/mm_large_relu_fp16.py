"""relu(a @ b) at a size where the cube dominates: fp16, odd M and N."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return torch.relu(a @ b)


def get_inputs():
    return [torch.randn(255, 512, dtype=torch.float16), torch.randn(512, 383, dtype=torch.float16)]


def get_init_inputs():
    return []
