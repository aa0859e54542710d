// Inputs shared by the native tests.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "attn/attention.hpp"

namespace fixtures {

// A file of the repository by its path from the root (e.g. "lessons/data/train.txt"), read whole.
// The root is $ATTN_ROOT (CTest sets it), else the first folder upward from the working one that
// holds this project's CMakeLists.txt and the file: nothing absolute is compiled in, so that a
// compiler cache serves every clone.
inline std::string repo_file(const std::string& path) {
    namespace fs = std::filesystem;
    const auto read = [&](const fs::path& root) {
        std::ifstream in(root / path, std::ios::binary);
        if (!in) throw std::runtime_error((root / path).string() + ": cannot be read");
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    };
    if (const char* root = std::getenv("ATTN_ROOT"); root && *root) return read(root);
    for (fs::path dir = fs::current_path(); ; dir = dir.parent_path()) {
        if (fs::exists(dir / "CMakeLists.txt") && fs::exists(dir / "wasm/src") && fs::exists(dir / path)) return read(dir);
        if (dir == dir.parent_path()) throw std::runtime_error(path + ": not found above " + fs::current_path().string() + " (set ATTN_ROOT)");
    }
}

// Seeded N(0, 1) weights (C, D) for multi-head attention, wq/wk/wv from seeds seed, seed+1, seed+2.
inline attn::MhaOptions mha_opts(std::size_t C, std::size_t D, std::size_t heads, std::uint64_t seed = 1) {
    attn::MhaOptions o;
    o.wq = attn::randn({C, D}, seed);
    o.wk = attn::randn({C, D}, seed + 1);
    o.wv = attn::randn({C, D}, seed + 2);
    o.heads = heads;
    return o;
}

}  // namespace fixtures
