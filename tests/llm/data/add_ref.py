import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return a + b


N = 4096


def get_inputs():
    return [torch.rand(N), torch.rand(N)]


def get_init_inputs():
    return []
