import torch


class Model(torch.nn.Module):
    def __init__(self, factor: int = 3, negate: bool = True):
        super().__init__()
        self.factor, self.negate = factor, negate

    def forward(self, x):
        return x * self.factor * (-1 if self.negate else 1)


def get_inputs():
    return [torch.randn(40)]


def get_init_inputs():
    return [3, True]
