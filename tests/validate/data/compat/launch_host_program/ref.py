import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return x * 1.0  # scale 0.5 doubled by tiling key 2


def get_inputs():
    return [torch.randn(64, 256)]


def get_init_inputs():
    return []
