// Temporary-buffer sizes of the SoftMax, normalisation and Pad high-level APIs, shared by the host
// tiling helpers (tiling/tiling_api.h), which size the buffer and split the rows to fit it, and
// the device APIs, which check that the buffer a call gets holds what its tiling was made for.
// The figures are the emulator's own (the API reference publishes no formula): a float working
// copy of each row, plus one 32-byte block per row for SoftMax's running max and sum.
#pragma once

#include <cstdint>

namespace kernelgen {

inline uint32_t softmax_rows_tmp_bytes(uint32_t rows, uint32_t k) { return rows * (k * 4u + 2u * 32u); }

// LayerNorm and RmsNorm: two float rows per row of the group.
inline uint64_t norm_rows_tmp_bytes(uint64_t rows, uint64_t h) { return rows * h * 4u * 2u; }

// Pad: one row of the source widened to 32 bytes (its scratch holds whole padded rows).
inline uint64_t pad_row_tmp_bytes(uint64_t width, uint64_t type_size) { return (width * type_size + 31) / 32 * 32; }

}  // namespace kernelgen
