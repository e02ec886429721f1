// Helpers for the emulator test programs: raw tensor files in and out, GM registration, a
// one-block launch, and the report path. The Python side (tests/emu/conftest.py) writes the
// inputs with numpy, runs the program, and compares the outputs.
#pragma once

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

#include "kernel_operator.h"

namespace tio {

inline std::vector<uint8_t> read_bytes(const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) {
        std::fprintf(stderr, "cannot open %s\n", path.c_str());
        std::exit(2);
    }
    std::vector<uint8_t> out;
    uint8_t buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.insert(out.end(), buf, buf + n);
    std::fclose(f);
    return out;
}

inline void write_bytes(const std::string& path, const void* data, size_t n) {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) {
        std::fprintf(stderr, "cannot write %s\n", path.c_str());
        std::exit(2);
    }
    std::fwrite(data, 1, n, f);
    std::fclose(f);
}

// A GM buffer registered with the emulator's allocation registry.
struct Gm {
    std::vector<uint8_t> bytes;
    Gm(std::vector<uint8_t> b, const char* name) : bytes(std::move(b)) {
        kernelgen::gm_register(bytes.data(), bytes.size(), name);
    }
    Gm(size_t n, const char* name) : bytes(n, 0xFF) { kernelgen::gm_register(bytes.data(), bytes.size(), name); }
    GM_ADDR addr() { return bytes.data(); }
};

// The entry of a program's case table named by argv[1]. An argument count not in `argcs` prints
// `usage: <usage>` and an unknown name `unknown case <name>`; both exit with status 2.
template <class Table>
inline const typename Table::mapped_type& select_case(const Table& table, int argc, char** argv,
                                                     std::initializer_list<int> argcs, const char* usage) {
    if (std::find(argcs.begin(), argcs.end(), argc) == argcs.end()) {
        std::fprintf(stderr, "usage: %s\n", usage);
        std::exit(2);
    }
    auto it = table.find(argv[1]);
    if (it == table.end()) {
        std::fprintf(stderr, "unknown case %s\n", argv[1]);
        std::exit(2);
    }
    return it->second;
}

// Runs `body` on `blocks` blocks and writes the report to `report` (if not empty).
template <class F>
inline void run(uint32_t blocks, const std::string& report, F body) {
    kernelgen::state().report_path = report;
    kernelgen::launch(blocks, body);
    kernelgen::write_report("ok");
}

}  // namespace tio
