import torch


class Model(torch.nn.Module):
    """x <- min(x, y), in place."""

    def forward(self, x, y):
        x.copy_(torch.minimum(x, y))
        return x


def get_inputs():
    return [torch.randn(256), torch.randn(256)]
