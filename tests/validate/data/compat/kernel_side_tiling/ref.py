import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return x * 3.0


def get_inputs():
    return [torch.randn(64)]


def get_init_inputs():
    return []
