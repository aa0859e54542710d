// Inputs shared by the native tests.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "attn/attention.hpp"

namespace fixtures {

// A file of the repository by its path from the root (e.g. "lessons/data/train.txt"), read whole.
// The root is found from the working folder upward (CTest runs in build/<kind>, the scripts at the
// root): nothing absolute is compiled in, so that a compiler cache serves every clone.
inline std::string repo_file(const std::string& path) {
    namespace fs = std::filesystem;
    for (fs::path dir = fs::current_path(); ; dir = dir.parent_path()) {
        if (fs::exists(dir / "CMakeLists.txt") && fs::exists(dir / path)) {
            std::ifstream in(dir / path, std::ios::binary);
            std::stringstream s;
            s << in.rdbuf();
            return s.str();
        }
        if (dir == dir.parent_path()) throw std::runtime_error(path + ": not found above " + fs::current_path().string());
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
