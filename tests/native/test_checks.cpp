// randn, 18.4 statistics, 18.5 positions and permutations, 18.7 gradcheck, future probe, dropout.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "attn/attention.hpp"
#include "fixtures.hpp"
#include "internal.hpp"
#include "reference.hpp"

using namespace attn;
using fixtures::mha_opts;

namespace {
}  // namespace

TEST_SUITE("randn") {
    TEST_CASE("one seed gives one tensor - the draws are standard normal") {
        const Tensor a = randn({1000, 100}, 7), b = randn({1000, 100}, 7), c = randn({1000, 100}, 8);
        CHECK(max_abs_diff(a, b) == 0.0);
        CHECK(max_abs_diff(a, c) > 1.0);
        double mean = 0, var = 0;
        for (double v : a) mean += v;
        mean /= double(a.size());
        for (double v : a) var += (v - mean) * (v - mean);
        var /= double(a.size() - 1);
        CHECK(std::fabs(mean) < 0.01);
        CHECK(var == doctest::Approx(1.0).epsilon(0.01));
        std::size_t beyond2 = 0;
        for (double v : a) beyond2 += std::fabs(v) > 2.0;
        CHECK(double(beyond2) / double(a.size()) == doctest::Approx(0.0455).epsilon(0.05));
        const Tensor s = randn({1000, 100}, 7, 0.5);
        CHECK(s(3, 4) == 0.5 * a(3, 4));
        CHECK_THROWS_WITH_AS(randn({2}, 1, 0.0), "randn: std must be in (0, Infinity), got 0", Error);
    }

    TEST_CASE("the project's log agrees with std::log to within 2 ulp") {
        detail::Rng rng(1);
        for (int i = 0; i < 100000; ++i) {
            const double x = i < 50000 ? rng.uniform() + 1e-300 : std::ldexp(rng.uniform() + 0.5, int(rng.below(200)) - 100);
            const double a = detail::log_det(x), b = std::log(x);
            CHECK_MESSAGE(std::fabs(a - b) <= 2 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::fabs(b)), x);
            if (std::fabs(a - b) > 1e-12) break;
        }
    }
}

TEST_SUITE("18.4 statistics") {
    TEST_CASE("entropy and max weight per row: uniform rows have log n, one-hot rows 0") {
        const Tensor w = {{0.25, 0.25, 0.25, 0.25}, {0.0, 1.0, 0.0, 0.0}, {0.5, 0.5, 0.0, 0.0}};
        const RowStats s = attention_stats(w);
        CHECK(s.entropy(0) == doctest::Approx(std::log(4.0)));
        CHECK(s.entropy(1) == 0.0);
        CHECK(s.entropy(2) == doctest::Approx(std::log(2.0)));
        CHECK(s.max_weight(0) == 0.25);
        CHECK(s.max_weight(1) == 1.0);
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const RowStats n = attention_stats(Tensor{{nan, nan}});
        CHECK(std::isnan(n.entropy(0)));
    }

    TEST_CASE("entropies are in nats") {
        const Tensor w = {{0.5, 0.25, 0.25}, {0.7, 0.2, 0.1}};
        const RowStats s = attention_stats(w);
        CHECK(std::fabs(s.entropy(0) - 1.0397207708399179) < 1e-15);   // 1.5 ln 2; 1.5 in bits
        CHECK(std::fabs(s.entropy(1) - 0.8018185525433372) < 1e-15);   // -(0.7 ln 0.7 + 0.2 ln 0.2 + 0.1 ln 0.1)
        CHECK(s.max_weight(1) == 0.7);
        const Sharpening h = softmax_sharpening(Tensor{0.0, std::log(2.0), 0.0}, 1.0);   // weights (1/4, 1/2, 1/4)
        CHECK(std::fabs(h.entropy - 1.0397207708399179) < 1e-15);
    }

    TEST_CASE("Var(q.k) grows like d - dividing by sqrt(d) keeps it near 1") {
        const DotVariance v = dot_product_variance({1, 4, 16, 64, 256}, 20000, 3);
        REQUIRE(v.dims.size() == 5);
        for (std::size_t i = 0; i < 5; ++i) {
            CAPTURE(v.dims[i]);
            CHECK(v.unscaled[i] == doctest::Approx(v.dims[i]).epsilon(0.06));
            CHECK(v.scaled[i] == doctest::Approx(1.0).epsilon(0.06));
        }
    }

    TEST_CASE("multiplying logits by 8 sharpens the softmax and shrinks its Jacobian") {
        const Tensor two = {0.0, 0.0};
        const Sharpening h = softmax_sharpening(two, 1.0);
        CHECK(h.jacobian(0, 0) == 0.25);
        CHECK(h.jacobian(0, 1) == -0.25);
        CHECK(h.jacobian_norm == doctest::Approx(0.5));
        // The notebook's logits; values computed independently (plain JS, no shift tricks).
        const Tensor logits = {0.1, -0.2, 0.3, -0.2, 0.5};
        const Sharpening a = softmax_sharpening(logits, 1.0), b = softmax_sharpening(logits, 8.0);
        CHECK(a.max_weight == doctest::Approx(0.287173009182289).epsilon(1e-12));
        CHECK(b.max_weight == doctest::Approx(0.7999651538980476).epsilon(1e-12));
        CHECK(a.jacobian_norm == doctest::Approx(0.40333669339919215).epsilon(1e-12));
        CHECK(b.jacobian_norm == doctest::Approx(0.28246296393309056).epsilon(1e-12));
        CHECK(b.entropy < a.entropy - 0.5);
        const Sharpening c = softmax_sharpening(logits, 50.0);
        CHECK(c.jacobian_norm == doctest::Approx(0.00009079264571601066).epsilon(1e-9));   // saturated
    }
}

TEST_SUITE("18.5 positions and permutation equivariance") {
    TEST_CASE("sinusoidal positions follow the paper's formula") {
        const Tensor pe = positions(PositionKind::Sinusoidal, 5, 4, PositionOptions{});
        CHECK(pe(0, 0) == 0.0);
        CHECK(pe(0, 1) == 1.0);
        CHECK(pe(3, 0) == doctest::Approx(std::sin(3.0)));
        CHECK(pe(3, 1) == doctest::Approx(std::cos(3.0)));
        CHECK(pe(4, 2) == doctest::Approx(std::sin(4.0 / 100.0)));   // 10000^(2/4) = 100
        CHECK(pe(4, 3) == doctest::Approx(std::cos(4.0 / 100.0)));
    }

    TEST_CASE("sinusoidal positions at hand-computed entries of a width-6 table: the exponent is 2i / C") {
        // PE[t, 2i] = sin(t / 10000^(2i/6)), PE[t, 2i+1] = cos(the same angle); 10000^(2/6) = 21.544346900318832,
        // 10000^(4/6) = 464.15888336127773
        const Tensor pe = positions(PositionKind::Sinusoidal, 8, 6, PositionOptions{});
        struct Entry { std::size_t t, c; double want; };
        const Entry entries[] = {{1, 0, 0.8414709848078965},  {1, 1, 0.5403023058681398},  {2, 2, 0.09269850077872725},
                                 {3, 3, 0.990320699135675},   {5, 4, 0.010771965118034833}, {5, 5, 0.9999419807006283},
                                 {7, 3, 0.9476790714399449}};
        for (const Entry& e : entries) {
            CAPTURE(e.t);
            CAPTURE(e.c);
            CHECK(std::fabs(pe(e.t, e.c) - e.want) < 1e-15);
        }
    }

    TEST_CASE("a learned table is seeded (tMax, C) - positions past tMax are an error") {
        PositionOptions o;
        o.t_max = 8;
        o.seed = 4;
        const Tensor p = positions(PositionKind::Learned, 5, 3, o);
        const Tensor table = randn({8, 3}, 4);
        CHECK(p(4, 2) == table(4, 2));
        CHECK(p(0, 0) == table(0, 0));
        CHECK_THROWS_WITH_AS(positions(PositionKind::Learned, 9, 3, o),
                             "positions: T = 9 is past the learned table's tMax = 8 rows; a learned table has no row for position 8",
                             Error);
    }

    TEST_CASE("without positions or mask attention is permutation-equivariant - positions or the mask break it") {
        const Tensor x = randn({2, 6, 4}, 71);
        PermutationOptions o;
        o.mha = mha_opts(4, 4, 2, 72);
        o.seed = 5;
        const PermutationResult plain = permutation_check(x, o);
        CHECK(plain.max_diff < 1e-14);
        // the tensors behind the number: row t of P x is row perm[t] of x
        CHECK(plain.permuted_input(1, 0, 2) == x(1, plain.perm[0], 2));
        CHECK(max_abs_diff(plain.out_of_permuted, plain.permuted_out) == plain.max_diff);
        bool moved = false;
        for (std::size_t i = 0; i < plain.perm.size(); ++i) moved |= plain.perm[i] != i;
        CHECK(moved);
        SUBCASE("learned positions") { o.use_positions = true; CHECK(permutation_check(x, o).max_diff > 1e-2); }
        SUBCASE("sinusoidal positions") {
            o.use_positions = true;
            o.position_kind = PositionKind::Sinusoidal;
            CHECK(permutation_check(x, o).max_diff > 1e-2);
        }
        SUBCASE("causal mask") { o.mha.causal = true; CHECK(permutation_check(x, o).max_diff > 1e-2); }
    }
}

TEST_SUITE("18.7 counterexample checks") {
    TEST_CASE("gradcheck passes for sdpa and multi-head attention") {
        SdpaOptions so;
        so.causal = true;
        const GradcheckResult g = gradcheck_sdpa(randn({2, 4, 3}, 81), randn({2, 4, 3}, 82), randn({2, 4, 3}, 83), so, 1);
        CHECK(g.passed);
        REQUIRE(g.inputs.size() == 3);
        CHECK(g.inputs[0].name == "q");
        for (const auto& i : g.inputs) CHECK(i.max_abs_error < 1e-8);
        MhaOptions mo = mha_opts(4, 4, 2, 84);
        mo.causal = true;
        const GradcheckResult m = gradcheck_mha(randn({1, 3, 4}, 87), mo, 2);
        CHECK(m.passed);
        CHECK(m.inputs.size() == 4);
    }

    TEST_CASE("gradcheck fails on a wrong gradient") {
        const Tensor q = randn({3, 2}, 91), k = randn({3, 2}, 92), v = randn({3, 2}, 93), G = randn({3, 2}, 94);
        SdpaOptions o;
        SdpaGrads g = sdpa_backward(q, k, v, G, o);
        g.dq *= std::sqrt(2.0);   // as if the backward forgot the 1/sqrt(d) it needs
        const GradcheckResult r = detail::run_gradcheck(
            {"q", "k", "v"}, {q, k, v},
            [&](const std::vector<Tensor>& in) { return ref::dot(sdpa(in[0], in[1], in[2], o).out, G); },
            {g.dq, g.dk, g.dv});
        CHECK_FALSE(r.passed);
        CHECK_FALSE(r.inputs[0].passed);
        CHECK(r.inputs[1].passed);
        CHECK(r.inputs[0].max_ratio > 1.0);
    }

    TEST_CASE("changing the future leaves the prefix exactly unchanged with the mask, not without") {
        const Tensor x = randn({2, 7, 4}, 101);
        MhaOptions o = mha_opts(4, 4, 2, 102);
        for (std::size_t t = 0; t < 6; ++t) {
            CAPTURE(t);
            o.causal = true;
            const FutureProbeResult masked = future_probe(x, o, t, 9);
            CHECK(masked.max_prefix_change == 0.0);
            CHECK(masked.max_future_change > 1e-3);
            o.causal = false;
            CHECK(future_probe(x, o, t, 9).max_prefix_change > 1e-3);
        }
    }

    TEST_CASE("inverted dropout at p = 0.3 keeps about 70 % of the entries, each divided by 1 - p = 0.7") {
        const Tensor x = randn({50, 40}, 121);
        const Tensor d = dropout(x, 0.3, true, 5);
        std::size_t kept = 0;
        double worst = 0.0;
        for (std::size_t i = 0; i < x.size(); ++i)
            if (d.data()[i] != 0.0) {
                ++kept;
                worst = std::max(worst, std::fabs(d.data()[i] - x.data()[i] / 0.7));
            }
        CHECK(worst < 1e-15);
        CHECK(std::fabs(double(kept) / 2000.0 - 0.7) < 0.03);   // 2000 draws: 0.7 +/- 0.01 (1 sd)
        SUBCASE("the row sums keep their expectation") {
            const Tensor w = xt::ones<double>(Shape{3, 10}) / 10.0;
            const DropoutStats st = dropout_stats(w, 0.3, 20000, 6);
            for (std::size_t i = 0; i < 3; ++i) CHECK(std::fabs(st.mean_row_sums(i) - 1.0) < 0.01);
        }
    }

    TEST_CASE("dropout: evaluation changes nothing - a training sample's rows do not sum to 1, their mean does") {
        SoftmaxOptions so;
        so.mask = MaskKind::Causal;
        const Tensor w = softmax(randn({4, 4}, 111), so).weights;
        CHECK(max_abs_diff(dropout(w, 0.5, false, 1), w) == 0.0);
        const Tensor d = dropout(w, 0.5, true, 1);
        std::size_t zeros = 0;
        for (std::size_t i = 0; i < d.size(); ++i) {
            if (d.data()[i] == 0.0) ++zeros;
            else CHECK(d.data()[i] == doctest::Approx(2.0 * w.data()[i]));
        }
        CHECK(zeros > 6);   // the 6 masked entries plus dropped ones
        const DropoutStats st = dropout_stats(w, 0.5, 20000, 3);
        bool some_row_off = false;
        for (std::size_t i = 0; i < 4; ++i) {
            some_row_off |= std::fabs(st.sample_row_sums(i) - 1.0) > 1e-6;
            CHECK(st.mean_row_sums(i) == doctest::Approx(1.0).epsilon(0.03));
        }
        CHECK(some_row_off);
    }
}
