// 18.5: the permutation check shuffles for real. Its permutation is never the identity for
// T >= 2 (an identity compares attn(x) with itself and shows 0 whatever the model), it is
// uniform over the other T! - 1 permutations, and the learned position table has a seed of its
// own, so drawing another permutation does not draw another table.
#include <doctest/doctest.h>

#include <map>
#include <vector>

#include "attn/attention.hpp"
#include "fixtures.hpp"

using namespace attn;
using fixtures::mha_opts;

namespace {
bool is_identity(const std::vector<std::size_t>& p) {
    for (std::size_t i = 0; i < p.size(); ++i)
        if (p[i] != i) return false;
    return true;
}
}  // namespace

TEST_SUITE("18.5 positions") {
    TEST_CASE("the shuffle is never the identity for T >= 2, and uniform over the others") {
        for (std::size_t T : {2, 3, 4}) {
            const Tensor x = randn({1, T, 2}, 90);
            PermutationOptions o;
            o.mha = mha_opts(2, 2, 1, 91);
            std::map<std::vector<std::size_t>, int> seen;
            const int draws = T == 2 ? 500 : 3000;
            for (int seed = 0; seed < draws; ++seed) {
                o.seed = std::uint64_t(seed);
                const PermutationResult r = permutation_check(x, o);
                REQUIRE(r.perm.size() == T);
                CHECK_FALSE(is_identity(r.perm));
                ++seen[r.perm];
            }
            const std::size_t others = T == 2 ? 1 : T == 3 ? 5 : 23;   // T! - 1
            CHECK(seen.size() == others);
            for (const auto& [perm, n] : seen)   // each about draws / others; 5 standard deviations apart at most
                CHECK(double(n) == doctest::Approx(double(draws) / double(others)).epsilon(0.35));
        }
        // at T = 2 the only other permutation swaps the rows
        PermutationOptions o;
        o.mha = mha_opts(2, 2, 1, 91);
        o.seed = 0;
        CHECK(permutation_check(randn({1, 2, 2}, 90), o).perm == std::vector<std::size_t>{1, 0});
        // T = 1 has only the identity
        CHECK(permutation_check(randn({1, 1, 2}, 90), o).perm == std::vector<std::size_t>{0});
    }

    TEST_CASE("with the causal mask at T = 2 every shuffle shows a real difference") {
        PermutationOptions o;
        o.mha = mha_opts(2, 2, 1, 92);
        o.mha.causal = true;
        const Tensor x = {{{1.0, 0.0}, {0.0, 1.0}}};   // (1, 2, 2)
        for (std::uint64_t seed = 0; seed < 50; ++seed) {
            o.seed = seed;
            CHECK(permutation_check(x, o).max_diff > 1e-3);
        }
    }

    TEST_CASE("the learned table has its own seed: another shuffle keeps the table, another positionSeed changes it") {
        const Tensor x = randn({1, 4, 3}, 93);
        const Options base{{"wq", randn({3, 3}, 94)}, {"wk", randn({3, 3}, 95)}, {"wv", randn({3, 3}, 96)},
                           {"positions", std::string("learned")}, {"tMax", 6.0}, {"positionSeed", 7.0}};
        auto with = [&](double seed, double positionSeed) {
            Options o = base;
            o["seed"] = seed;
            o["positionSeed"] = positionSeed;
            return permutation_check(x, o);
        };
        // P x + pos: row t is x[perm[t]] + table[t]; the table is positions('learned', T, C, {tMax, seed: positionSeed})
        PositionOptions po;
        po.t_max = 6;
        po.seed = 7;
        const Tensor table = positions(PositionKind::Learned, 4, 3, po);
        for (double seed : {1.0, 2.0, 3.0}) {
            const PermutationResult r = with(seed, 7.0);
            for (std::size_t t = 0; t < 4; ++t)
                for (std::size_t c = 0; c < 3; ++c) CHECK(r.permuted_input(0, t, c) == x(0, r.perm[t], c) + table(t, c));
        }
        const PermutationResult a = with(1.0, 7.0), b = with(1.0, 8.0);
        CHECK(a.perm == b.perm);                                          // the same shuffle
        CHECK(max_abs_diff(a.permuted_input, b.permuted_input) > 1e-2);   // another table
        Options bad = base;
        bad["positionSeed"] = -1.0;
        CHECK_THROWS_AS(permutation_check(x, bad), Error);
    }
}
