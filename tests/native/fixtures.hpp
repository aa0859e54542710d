// Inputs shared by the native tests.
#pragma once

#include "attn/attention.hpp"

namespace fixtures {

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
