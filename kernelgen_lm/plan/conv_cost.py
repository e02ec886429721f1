"""Which convolution lowering a plan takes: the cost model (`ascend_tools.cost.kernel_time`) on
the counters each lowering would report at the captured shape.

The counters are computed here as the emulator counts them (emu/README.md, "Runtime checks"),
from the units each lowering's host TilingFunc makes (the same choice of R rows per unit):

- gather (`lower/conv.py`): per unit the image rows read, col[K, positions] written and read
  back by the Matmul API (B once, A once per N block of at most 128 positions), the result
  written; the Matmul API's bytes count on the AIV (it runs there in the emulator);
- slab (`lower/conv_slab.py`): per core the weight (and bias column) read and written re-laid
  (AIV) and read into L1 (AIC); per unit the input rows inside the image read and written as
  the slab (AIV), read into L1 (AIC); the output written by Fixpipe (AIC) where the epilogue is
  at most bias + ReLU, else the float result written by Fixpipe, read back and the output
  written (AIV); L1 -> L0 bytes (MTE1): the weight fractals per position block and the Load3D
  columns per channel block.

Both read the epilogue's inputs alike (not counted: it does not change the choice). The slab
lowering is taken only where its modelled time is lower."""

from __future__ import annotations

import math

from ascend_tools.chips import Chip
from ascend_tools.cost import kernel_time
from kernelgen_lm.plan.conv import ConvPlan, out_size

# The lowerings' sizes, defined here (plan does not import lower) and imported by them.
UB_RESERVE = 24 * 1024  # kernelgen_lm.lower.host.UB_RESERVE (a test keeps the two equal)
MAX_POSITIONS = 2048  # output positions per work unit, both lowerings
C0 = 16  # channels per group of the NC1HWC0 slab: 32 bytes of a 2-byte type
BASE = 128  # the slab's cube block cap along Cout and positions (L0C: BASE x BASE floats)
GATHER_POSITIONS = 128  # positions re-laid per Gather of the slab (a 16 x 128-entry table)
SLAB_DTYPES = ("float16", "bfloat16")
SLAB_ARCHES = ("dav-c220",)  # Load3Dv2 into L0B with 2-byte types (img2col.h kLoad3dTypes)


def _up(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def slab_refusal(p: ConvPlan, chip: Chip) -> str | None:
    """Why the slab lowering cannot run this convolution (None: it can)."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = p.geometry2d
    cin = p.inputs[p.x].shape[1]
    if chip.arch not in SLAB_ARCHES:
        return f"{chip.name} ({chip.arch}) has no Load3Dv2 into L0B for 2-byte types"
    if p.dtype not in SLAB_DTYPES:
        return f"{p.dtype}: Load3D's slab path is lowered for float16 and bfloat16 only"
    if p.groups != 1:
        return "groups > 1: each group would need its own slab and weight block"
    if cin % C0:
        return f"Cin = {cin} is not a multiple of C0 = {C0} (whole channel groups only)"
    if p.pointwise:
        return "a pointwise convolution reads the image in place already"
    if max(sh, sw) > 63 or max(kh, kw, dh, dw) > 255:
        return "stride, kernel or dilation outside Load3D's documented ranges"
    if ph >= (kh - 1) * dh + 1 or pw >= (kw - 1) * dw + 1 or max(ph, pw) > 255:
        return "padding as wide as the kernel's span (a unit could read no image row)"
    return None


def _units(oh: int, ow: int, images: int, cores: int, fits) -> tuple[int, int]:
    """(R, rowBlocks) as the hosts choose them: enough units for every core, at most
    MAX_POSITIONS positions, the largest R that `fits`."""
    parts = 1 if images >= cores else -(-cores // images)
    r = -(-oh // parts)
    if r * ow > MAX_POSITIONS:
        r = max(1, MAX_POSITIONS // ow)
    while r > 1 and not fits(r):
        r -= 1
    return r, -(-oh // r)


def _spread(units: list[dict], block_dim: int, aic: list[dict] | None = None) -> dict:
    """Counters in the emulator's format for a mix launch: AIC blocks first, then AIVs; unit
    i runs on core i // per-core share as the kernels split them (big cores first)."""
    n = len(units)
    upc, big = divmod(n, block_dim)
    keys = ("gm_to_ub_bytes", "ub_to_gm_bytes", "gm_to_l1_bytes", "l0c_to_gm_bytes",
            "l1_to_l0_bytes", "cube_macs", "sync_alls")  # fmt: skip
    aiv = [dict.fromkeys(keys, 0.0) for _ in range(block_dim)]
    cube = [dict.fromkeys(keys, 0.0) for _ in range(block_dim)]
    start = 0
    for core in range(block_dim):
        count = upc + (1 if core < big else 0)
        for u in units[start : start + count]:
            for k, v in u.get("aiv", {}).items():
                aiv[core][k] += v
            for k, v in u.get("aic", {}).items():
                cube[core][k] += v
        start += count
        if aic is not None:
            for k, v in aic[0].items():
                cube[core][k] += v
            for k, v in aic[1].items():
                aiv[core][k] += v
    blocks = [dict(b, vector_repeats={}) for b in cube + aiv]
    return {"block_dim": block_dim, "per_block": blocks}


def gather_counters(p: ConvPlan, chip: Chip) -> dict:
    """The gather lowering's counters at the captured shape (non-pointwise)."""
    X = p.inputs[p.x]
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = p.geometry2d
    n, cin, h, w = X.shape[0], X.shape[1], (X.shape[2] if p.spatial == 2 else 1), X.shape[-1]
    oh, ow = out_size(h, kh, sh, ph, dh), out_size(w, kw, sw, pw, dw)
    sz, osz = (4 if p.dtype == "float32" else 2), (4 if p.out_dtype == "float32" else 2)
    cg, cog = cin // p.groups, p.out_shape[1] // p.groups
    taps = kh * kw
    k = cg * taps
    wa = _up(_up(pw, 16) + w + pw, 16)
    budget = chip.ub_bytes - UB_RESERVE

    def im2col(r: int) -> int:
        rows = (r - 1) * sh + (kh - 1) * dh + 1
        pna = _up(r * ow, 16)
        return rows * wa * sz + taps * pna * (sz + 4) + 2 * pna * 4

    r, blocks = _units(oh, ow, n * p.groups, chip.cube_cores, lambda r: im2col(r) <= budget // 2)
    # The host's base block: the fewest panel re-reads within L0C and the UB beside im2col
    # (the epilogue's chunk tiles, a few bytes per element, are left out here).
    pnmax = r * ow
    best: tuple[int, int] | None = None
    base_n = 16
    for bm in range(16, _up(cog, 16) + 1, 16):
        for bn in range(16, _up(pnmax, 16) + 1, 16):
            if bm * bn * 4 > chip.l0c_bytes or im2col(r) + bm * bn * 4 > budget:
                continue
            moved = cog * k * -(-pnmax // bn) + k * pnmax * -(-cog // bm)
            if best is None or moved < best[0]:
                best, base_n = (moved, bm * bn), bn
    units = []
    for _ in range(n * p.groups):
        for rb in range(blocks):
            oy0 = rb * r
            pn = min(r, oh - oy0) * ow
            iy0 = oy0 * sh - ph
            rows_in = (pn // ow - 1) * sh + (kh - 1) * dh + 1
            real = max(0, min(h, iy0 + rows_in) - max(0, iy0))
            nblk = -(-pn // base_n)
            units.append(
                {
                    "aiv": {
                        "gm_to_ub_bytes": cg * real * w * sz,
                        "ub_to_gm_bytes": k * pn * sz + cog * pn * osz,
                        "gm_to_l1_bytes": k * pn * sz + cog * k * sz * nblk,
                        "cube_macs": cog * pn * k,
                    }
                }
            )
    return _spread(units, min(len(units), chip.cube_cores))


def slab_counters(p: ConvPlan, chip: Chip, shared: bool = False) -> dict | None:
    """The slab lowering's counters at the captured shape; None where a unit does not fit.
    `shared`: the weight re-laid once, a share per AIV, then one SyncAll on the AIVs."""
    X = p.inputs[p.x]
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = p.geometry2d
    n, cin, h, w = X.shape[0], X.shape[1], (X.shape[2] if p.spatial == 2 else 1), X.shape[-1]
    oh, ow = out_size(h, kh, sh, ph, dh), out_size(w, kw, sw, pw, dw)
    sz, osz = 2, (4 if p.out_dtype == "float32" else 2)
    cout = p.out_shape[1]
    coutp = _up(cout, 16)
    taps = kh * kw
    k = cin * taps
    budget = chip.ub_bytes - UB_RESERVE
    fused = p.fixpipe_epilogue
    kw_cols = k + (C0 if fused is not None and fused[0] else 0)  # the bias column

    def slab_rows(r: int) -> int:
        return (r - 1) * sh + (kh - 1) * dh + 1

    def relay_ub(r: int, w: int = w) -> int:
        ldx = _up(slab_rows(r) * w, 16)
        src = 16 * max(ldx, C0 * taps) * sz
        dst = max(GATHER_POSITIONS * C0, 256 * taps) * sz
        return src + dst + (GATHER_POSITIONS * C0 + 512) * 4 + 2 * GATHER_POSITIONS * C0 * 4

    def fits(r: int, w: int = w) -> bool:
        l1 = coutp * kw_cols * sz + cin * slab_rows(r) * w * sz
        return relay_ub(r, w) <= budget // 2 and l1 <= chip.l1_bytes

    r, blocks = _units(oh, ow, n, chip.cube_cores, fits)
    # One output row must fit at the captured width and the validation variant's (W + 1).
    if not fits(r) or not fits(1, w + 1):
        return None
    pna = _up(r * ow, 16)
    base_m, base_n = min(coutp, BASE), min(pna, BASE)
    units = []
    for _ in range(n):
        for rb in range(blocks):
            oy0 = rb * r
            pn = min(r, oh - oy0) * ow
            iy0 = oy0 * sh - ph
            need = (pn // ow - 1) * sh + (kh - 1) * dh + 1
            real = min(h, iy0 + need) - max(0, iy0)
            slab = cin * real * w * sz
            nblk, mblk = -(-pn // base_n), -(-coutp // base_m)
            # Fused: Fixpipe writes the output; else the float result goes to the workspace
            # and the vector epilogue reads it back and writes the output.
            result = cout * pn * (osz if fused is not None else 4)
            units.append(
                {
                    "aiv": {
                        "gm_to_ub_bytes": slab + (0 if fused is not None else cout * pn * 4),
                        "ub_to_gm_bytes": slab + (0 if fused is not None else cout * pn * osz),
                    },
                    "aic": {
                        "gm_to_l1_bytes": slab,
                        "l0c_to_gm_bytes": result,
                        "l1_to_l0_bytes": nblk * coutp * kw_cols * sz + mblk * _up(pn, 16) * k * sz,
                        "cube_macs": coutp * pn * kw_cols,  # Mmad counts m x n x k
                    },
                }
            )
    bias = cout * sz if kw_cols > k else 0
    block_dim = min(len(units), chip.cube_cores)
    # Shared: the (row of fractals, channel group) pairs go round-robin over the AIVs; the
    # busiest takes ceil(pairs / cores) of them (charged to every core: an upper bound).
    pairs = coutp // 16 * (cin // C0)
    share = -(-pairs // block_dim) / pairs if shared else 1.0
    relay: dict[str, float] = {
        "gm_to_ub_bytes": (cout * k * sz + bias) * share,
        "ub_to_gm_bytes": coutp * kw_cols * sz * share,
    }
    if shared:
        relay["sync_alls"] = 1
    once = ({"gm_to_l1_bytes": coutp * kw_cols * sz}, relay)
    return _spread(units, block_dim, list(once))


def choose_slab(p: ConvPlan, chip: Chip) -> tuple[bool, bool, str]:
    """(whether the slab lowering is taken, whether its weight is re-laid once for all cores,
    the reason with the modelled times)."""
    why = slab_refusal(p, chip)
    if why is not None:
        return False, False, f"gather lowering: {why}"
    own, shared = slab_counters(p, chip), slab_counters(p, chip, shared=True)
    if own is None or shared is None:
        return False, False, "gather lowering: the weight and one row's slab do not fit L1 / UB"
    t_own, t_shared = kernel_time(own, chip).total_us, kernel_time(shared, chip).total_us
    t_gather = kernel_time(gather_counters(p, chip), chip).total_us
    share = t_shared < t_own
    t_slab = min(t_own, t_shared)
    both = (
        f"modelled slab {t_slab:.2f} us (weight re-laid "
        f"{'once, shared' if share else 'per core'}), gather {t_gather:.2f} us"
    )
    if math.isfinite(t_slab) and t_slab < t_gather:
        return True, share, f"slab lowering ({both})"
    return False, False, f"gather lowering ({both})"
