// 18.5: position tables (learned, sinusoidal) and the permutation check.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "internal.hpp"

namespace attn {

Tensor positions(PositionKind kind, std::size_t T, std::size_t C, const PositionOptions& opts) {
    if (T < 1) detail::to_index({"positions", "T"}, 0, 1, kMaxElements);
    if (C < 1) detail::to_index({"positions", "C"}, 0, 1, kMaxElements);
    if (kind == PositionKind::Learned) {
        if (opts.t_max < 1) detail::to_index({"positions", "opts.tMax"}, 0, 1, kMaxElements);
        if (T > opts.t_max) throw Error(ErrorCode::position_past_table, {{"fn", "positions"}, {"T", T}, {"tMax", opts.t_max}});
        if (opts.t_max * C > kMaxElements) detail::too_large({"positions", "table"}, "(tMax, C)", {opts.t_max, C});
        const Tensor table = randn({opts.t_max, C}, opts.seed);   // (tMax, C)
        Tensor out = Tensor::from_shape({T, C});
        std::copy(table.data(), table.data() + T * C, out.data());  // rows 0..T-1
        return out;
    }
    if (T * C > kMaxElements) detail::too_large({"positions", "out"}, "(T, C)", {T, C});
    Tensor pe = Tensor::from_shape({T, C});
    for (std::size_t t = 0; t < T; ++t)
        for (std::size_t c = 0; c < C; ++c) {
            const double i2 = double(c - c % 2);   // 2i
            const double angle = double(t) / std::pow(10000.0, i2 / double(C));
            pe(t, c) = c % 2 == 0 ? std::sin(angle) : std::cos(angle);
        }
    return pe;
}

namespace {
constexpr OptionSpec kTMax{"tMax", OptionKind::integer, "the rows of the learned table, at least T (default 64)"};
constexpr OptionSpec kSeed{"seed", OptionKind::integer, "the learned table's seed (default 0)"};
constexpr const char* kPositionKinds[] = {"none", "learned", "sinusoidal"};
constexpr OptionSpec kPositions{"positions", OptionKind::choice, "the positions added to x: 'none' (the default), 'learned' or 'sinusoidal'",
                                kPositionKinds};
constexpr OptionSpec kPositionTMax{"tMax", OptionKind::integer, "the rows of the learned position table (default 64)"};
constexpr OptionSpec kPermutationSeed{"seed", OptionKind::integer, "the permutation's seed (default 0)"};
constexpr OptionSpec kPositionSeed{"positionSeed", OptionKind::integer, "the learned position table's seed (default 0)"};
}  // namespace

const OptionSet& positions_option_set() {
    static const OptionSet set{&kTMax, &kSeed};
    return set;
}

PositionOptions detail::read_position_options(OptionReader& r) {
    PositionOptions po;
    po.t_max = r.index(kTMax, 64, 1, kMaxElements);
    po.seed = r.seed(kSeed);
    return po;
}

Tensor positions(const std::string& kind, double T, double C, const Options& opts) {
    const PositionOptions po = detail::read_options(opts, "positions", positions_option_set(), detail::read_position_options);
    if (kind != "learned" && kind != "sinusoidal")
        throw Error(ErrorCode::not_one_of, {{"fn", "positions"}, {"arg", "kind"}, {"choice", kind},
                                            {"choices", std::vector<std::string>{"learned", "sinusoidal"}}});
    return positions(kind == "learned" ? PositionKind::Learned : PositionKind::Sinusoidal,
                     detail::to_index({"positions", "T"}, T, 1, kMaxElements),
                     detail::to_index({"positions", "C"}, C, 1, kMaxElements), po);
}

PermutationResult permutation_check(const Tensor& x, const PermutationOptions& opts) {
    if (opts.mha.has_memory) throw Error(ErrorCode::self_attention_only, {{"fn", "permutationCheck"}, {"arg", "opts.memory"}});
    detail::require_rank({"permutationCheck", "x"}, x, 3, 3, "(B, T, C)");
    const std::size_t B = x.shape()[0], T = x.shape()[1], C = x.shape()[2];
    Tensor pos = xt::zeros<double>(Shape{T, C});
    if (opts.use_positions) pos = positions(opts.position_kind, T, C, opts.pos);
    PermutationResult res;
    // A uniformly random permutation other than the identity (which would compare attn(x) with
    // itself and show 0 whatever the model): Fisher-Yates, drawn again while it is the identity.
    // Rejection keeps the draw uniform over the T! - 1 others; at most 1/2 of draws are rejected
    // (T = 2), so about two draws at worst. T = 1 has only the identity.
    res.perm.resize(T);
    detail::Rng rng(opts.seed);
    for (bool identity = true; identity && T >= 2;) {
        std::iota(res.perm.begin(), res.perm.end(), std::size_t(0));
        for (std::size_t i = T; i-- > 1;) std::swap(res.perm[i], res.perm[rng.below(i + 1)]);  // Fisher-Yates
        identity = std::is_sorted(res.perm.begin(), res.perm.end());
    }
    if (T < 2) std::iota(res.perm.begin(), res.perm.end(), std::size_t(0));
    Tensor xin = Tensor::from_shape(x.shape()), xperm = Tensor::from_shape(x.shape());
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t c = 0; c < C; ++c) {
                xin(b, t, c) = x(b, t, c) + pos(t, c);                 // x + pos
                xperm(b, t, c) = x(b, res.perm[t], c) + pos(t, c);     // P x + pos
            }
    const Tensor y = multi_head_attention(xin, opts.mha).out;
    res.out_of_permuted = multi_head_attention(xperm, opts.mha).out;   // attn(P x + pos)
    const std::size_t D = y.shape()[2];
    res.permuted_out = Tensor::from_shape(y.shape());                  // P attn(x + pos)
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t e = 0; e < D; ++e) res.permuted_out(b, t, e) = y(b, res.perm[t], e);
    res.max_diff = max_abs_diff(res.out_of_permuted, res.permuted_out);
    res.permuted_input = std::move(xperm);
    return res;
}

const OptionSet& permutation_option_set() {
    static const OptionSet set = detail::joined(mha_option_set(), {&kPositions, &kPositionTMax, &kPermutationSeed, &kPositionSeed});
    return set;
}

PermutationOptions detail::read_permutation_options(OptionReader& r) {
    PermutationOptions po;
    po.mha = read_mha_options(r);
    const std::string kind = r.choice(kPositions, "none");
    po.use_positions = kind != "none";
    po.position_kind = kind == "sinusoidal" ? PositionKind::Sinusoidal : PositionKind::Learned;
    po.pos.t_max = r.index(kPositionTMax, 64, 1, kMaxElements);
    po.seed = r.seed(kPermutationSeed);
    po.pos.seed = r.seed(kPositionSeed);
    return po;
}

PermutationResult permutation_check(const Tensor& x, const Options& opts) {
    return permutation_check(x, detail::read_options(opts, "permutationCheck", permutation_option_set(), detail::read_permutation_options));
}

}  // namespace attn
