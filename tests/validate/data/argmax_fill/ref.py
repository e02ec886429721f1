import torch


class Model(torch.nn.Module):
    """arg[c] = max(arg[c], the last row r with x[r, c] == best[c]); best is read, not changed."""

    def forward(self, x, best, arg):
        rows = torch.arange(x.shape[0], dtype=torch.float32)[:, None].expand_as(x)
        hits = torch.where(x == best, rows, torch.full_like(x, -1.0))
        arg.copy_(torch.maximum(arg, hits.max(0).values))


def get_inputs():
    x = torch.randn(4, 64)
    best = x.max(0).values.clone()
    best[5] = 100.0  # no row holds it: arg[5] stays -1
    return [x, best, torch.full((64,), -1.0)]
