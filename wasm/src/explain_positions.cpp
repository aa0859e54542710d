// Provenance of 18.5: a cell of the position table (a sinusoid, or a copy of the seeded learned
// table) and of the permutation check (P x + pos as a sum of two addends, the attention outputs
// as multiHeadAttention's, P attn(x + pos) as a copy).
#include <cmath>

#include "explain.hpp"

namespace attn::provenance {

namespace {

constexpr const char* kKinds[] = {"learned", "sinusoidal"};
constexpr OptionSpec kKind{"kind", OptionKind::choice, "positions' kind: 'sinusoidal' (the default) or 'learned'", kKinds};
constexpr OptionSpec kT{"T", OptionKind::integer, "positions' T: the number of positions"};
constexpr OptionSpec kC{"C", OptionKind::integer, "positions' C: the width"};

const OptionSet& positions_inputs() {
    static const OptionSet set = detail::joined({&kKind, &kT, &kC}, positions_option_set());
    return set;
}

Explanation explain_positions(const std::string& quantity, const std::vector<double>& at, const Options& opts) {
    one_of(quantity, {"out"});
    detail::OptionReader r(opts, kFn, positions_inputs());
    const std::string kind = r.choice(kKind, "sinusoidal");
    const double T = r.number(kT, 0), C = r.number(kC, 0);
    const PositionOptions po = detail::read_position_options(r);
    r.finish();
    const Tensor pe = positions(kind == "learned" ? PositionKind::Learned : PositionKind::Sinusoidal,   // every check
                                detail::to_index({kFn, "opts.T"}, T, 1, kMaxElements), detail::to_index({kFn, "opts.C"}, C, 1, kMaxElements), po);
    const Shape s = detail::shape_of(pe);
    const auto ix = checked_at(at, s);   // [t, c]
    Explanation e;
    if (kind == "learned") {
        // row t of the seeded (tMax, C) table: a draw, no arithmetic (training would change it)
        const Tensor table = randn({po.t_max, s[1]}, po.seed);
        e.kind = Explanation::Kind::Copy;
        e.from = ix;
        e.left = {table(ix[0], ix[1])};
        e.value = e.left[0];
    } else {
        // as positions() computes it: 2i = c - c % 2, angle = t / 10000^(2i / C), sin or cos
        e.kind = Explanation::Kind::Sinusoid;
        e.position = double(ix[0]);
        e.pair = double(ix[1] - ix[1] % 2);
        e.width = double(s[1]);
        e.power = std::pow(10000.0, e.pair / e.width);
        e.angle = e.position / e.power;
        e.cosine = ix[1] % 2 == 1;
        e.value = e.cosine ? std::cos(e.angle) : std::sin(e.angle);
    }
    return checked(e, pe.data()[flat(s, ix)], "positions out");
}

const OptionSet& permutation_inputs() {
    static const OptionSet set = detail::joined({&kX}, permutation_option_set());
    return set;
}

Explanation explain_permutation(const std::string& quantity, const std::vector<double>& at, const Options& opts) {
    one_of(quantity, {"permutedInput", "out", "outOfPermuted", "permutedOut"});
    detail::OptionReader r(opts, kFn, permutation_inputs());
    const Tensor& x = *r.tensor(kX, "(B, T, C)");
    const PermutationOptions po = detail::read_permutation_options(r);   // as permutationCheck reads them
    r.finish();
    const PermutationResult res = permutation_check(x, po);   // every check, the permutation and the cells
    const std::size_t T = x.shape()[1], C = x.shape()[2];
    Tensor pos = xt::zeros<double>(Shape{T, C});
    if (po.use_positions) pos = positions(po.position_kind, T, C, po.pos);
    const std::string what = "permutationCheck " + quantity;
    Tensor xin = x;   // x + pos as permutationCheck adds it, the input of attn(x + pos)
    for (std::size_t b = 0; b < x.shape()[0]; ++b)
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t c = 0; c < C; ++c) xin(b, t, c) = x(b, t, c) + pos(t, c);
    if (quantity == "permutedInput") {
        const Shape s = detail::shape_of(res.permuted_input);
        const auto ix = checked_at(at, s);   // [b, t, c]: x[b, perm[t], c] + pos[t, c]
        Explanation e;
        e.left = {x(ix[0], res.perm[ix[1]], ix[2]), pos(ix[1], ix[2])};
        e.terms = e.left;
        e.source = {res.perm[ix[1]], ix[1]};
        e.sum = e.value = e.left[0] + e.left[1];
        return checked(e, res.permuted_input.data()[flat(s, ix)], what);
    }
    if (quantity == "permutedOut") {
        const Shape s = detail::shape_of(res.permuted_out);
        const auto ix = checked_at(at, s);   // [b, t, e]: row perm[t] of attn(x + pos)
        const Tensor y = multi_head_attention(xin, po.mha).out;
        Explanation e;
        e.kind = Explanation::Kind::Copy;
        e.from = {ix[0], res.perm[ix[1]], ix[2]};
        e.left = {y(ix[0], res.perm[ix[1]], ix[2])};
        e.value = e.left[0];
        return checked(e, res.permuted_out.data()[flat(s, ix)], what);
    }
    if (quantity == "outOfPermuted") return mha_cell(res.permuted_input, po.mha, "out", at, what);
    return mha_cell(xin, po.mha, "out", at, what);   // out: attn(x + pos)
}

}  // namespace

const Explained kPositions{"positions", positions_inputs, explain_positions};
const Explained kPermutation{"permutationCheck", permutation_inputs, explain_permutation};

}  // namespace attn::provenance
