"""torch.gather along axis 0 of a 3-D bfloat16 tensor (elements read on the scalar unit)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, idx):
        return torch.gather(x, 0, idx)


def get_inputs():
    return [torch.randn(9, 6, 11, dtype=torch.bfloat16), torch.randint(0, 9, (5, 6, 7))]


def get_init_inputs():
    return []
