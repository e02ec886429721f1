// Host tiling of scale_rows: 64 rows of 256 floats, 8 rows per core, scale 0.5.
#include <cstdint>
#include <cstring>

void GenerateTiling(uint8_t* tilingBuf) {
    const uint32_t fields[3] = {64, 256, 8};
    const float scale = 0.5f;
    std::memcpy(tilingBuf, fields, sizeof(fields));
    std::memcpy(tilingBuf + sizeof(fields), &scale, sizeof(scale));
}
