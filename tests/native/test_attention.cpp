// 18.3 sdpa, 18.4 / 18.6 multi-head and cross-attention, against the naive reference and
// finite differences.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include <cmath>

#include "attn/attention.hpp"
#include "fixtures.hpp"
#include "kernels.hpp"
#include "reference.hpp"

using namespace attn;
using fixtures::mha_opts;

namespace {
Shape join(Shape lead, std::size_t a, std::size_t b) { lead.push_back(a); lead.push_back(b); return lead; }
}  // namespace

TEST_SUITE("18.3 scaled dot-product attention") {
    TEST_CASE("sdpa matches the naive reference on seeded shapes, causal or not, Tq != Tk") {
        struct Case { Shape lead; std::size_t Tq, Tk, d, dv; };
        const Case cases[] = {{{}, 3, 3, 2, 2}, {{2}, 5, 5, 4, 3}, {{2, 3}, 4, 6, 8, 5}, {{1}, 7, 2, 3, 3},
                              {{3, 2, 1}, 1, 4, 2, 2}};
        std::uint64_t seed = 100;
        for (const Case& c : cases)
            for (bool causal : {false, true})
                for (int scale_kind = 0; scale_kind < 2; ++scale_kind) {
                    CAPTURE(shape_str(join(c.lead, c.Tq, c.d)));
                    CAPTURE(causal);
                    const Tensor q = randn(join(c.lead, c.Tq, c.d), seed++);
                    const Tensor k = randn(join(c.lead, c.Tk, c.d), seed++);
                    const Tensor v = randn(join(c.lead, c.Tk, c.dv), seed++);
                    SdpaOptions o;
                    o.causal = causal;
                    double scale = 1.0 / std::sqrt(double(c.d));
                    if (scale_kind == 1) { o.scale.kind = Scale::Kind::Value; o.scale.value = scale = 0.7; }
                    const SdpaResult r = sdpa(q, k, v, o);
                    const ref::Attn want = ref::sdpa(q, k, v, causal, scale);
                    CHECK(ref::max_abs(r.out, want.out) < 1e-14);
                    CHECK(ref::max_abs(r.weights, want.weights) < 1e-15);
                    // scores are scale * q.k, before the mask
                    const std::size_t last = c.Tq - 1;
                    double s = 0;
                    for (std::size_t e = 0; e < c.d; ++e) s += q.data()[last * c.d + e] * k.data()[(c.Tk - 1) * c.d + e];
                    CHECK(r.scores.data()[last * c.Tk + c.Tk - 1] == doctest::Approx(scale * s).epsilon(1e-13));
                    if (causal && c.Tk > 1) CHECK(r.weights.data()[1] == 0.0);   // row 0 never sees j = 1
                }
    }

    TEST_CASE("the head scale divides by sqrt(d): scores of width 16 are q.k / 4") {
        const Tensor q = randn({2, 16}, 1), k = randn({3, 16}, 2), v = randn({3, 2}, 3);
        const SdpaResult r = sdpa(q, k, v, SdpaOptions{});
        double s = 0;
        for (int e = 0; e < 16; ++e) s += q(1, e) * k(2, e);
        CHECK(r.scores(1, 2) == doctest::Approx(s / 4.0).epsilon(1e-14));
    }

    TEST_CASE("exercise 3: adding a constant vector c to V adds c to every output row") {
        const Tensor q = randn({1, 5, 4}, 7), k = randn({1, 5, 4}, 8), v = randn({1, 5, 3}, 9);
        const Tensor c = {0.5, -2.0, 3.25};
        Tensor v2 = v;
        for (std::size_t j = 0; j < 5; ++j)
            for (std::size_t e = 0; e < 3; ++e) v2(0, j, e) += c(e);
        SdpaOptions o;
        o.causal = true;
        const Tensor y = sdpa(q, k, v, o).out, y2 = sdpa(q, k, v2, o).out;
        for (std::size_t i = 0; i < 5; ++i)
            for (std::size_t e = 0; e < 3; ++e) CHECK(y2(0, i, e) - y(0, i, e) == doctest::Approx(c(e)).epsilon(1e-14));
    }

    TEST_CASE("sdpaBackward matches finite differences") {
        for (bool causal : {false, true}) {
            CAPTURE(causal);
            const Tensor q = randn({2, 4, 3}, 21), k = randn({2, 5, 3}, 22), v = randn({2, 5, 2}, 23);
            const Tensor g = randn({2, 4, 2}, 24);
            SdpaOptions o;
            o.causal = causal;
            const SdpaGrads an = sdpa_backward(q, k, v, g, o);
            const Tensor nq = ref::numeric_grad(q, [&](const Tensor& t) { return ref::dot(sdpa(t, k, v, o).out, g); });
            const Tensor nk = ref::numeric_grad(k, [&](const Tensor& t) { return ref::dot(sdpa(q, t, v, o).out, g); });
            const Tensor nv = ref::numeric_grad(v, [&](const Tensor& t) { return ref::dot(sdpa(q, k, t, o).out, g); });
            CHECK(ref::max_abs(an.dq, nq) < 1e-8);
            CHECK(ref::max_abs(an.dk, nk) < 1e-8);
            CHECK(ref::max_abs(an.dv, nv) < 1e-8);
            CHECK(ref::max_abs(an.dq, xt::zeros<double>(an.dq.shape())) > 1e-3);   // not trivially zero
        }
    }

    TEST_CASE("scores of 1e3 keep the weights finite") {
        // q.k = 1000 and 999 with scale 1: weights 1 / (1 + e^-1) and e^-1 / (1 + e^-1)
        Tensor q = Tensor::from_shape({1, 1}), k = Tensor::from_shape({2, 1});
        q(0, 0) = 1000.0;
        k(0, 0) = 1.0;
        k(1, 0) = 0.999;
        const Tensor v = {{1.0, 0.0}, {0.0, 1.0}};
        SdpaOptions o;
        o.scale.kind = Scale::Kind::None;
        for (const SdpaResult& r : {sdpa(q, k, v, o), sdpa_reference(q, k, v, o)}) {
            CHECK(std::fabs(r.weights(0, 0) - 0.7310585786300049) < 1e-12);
            CHECK(std::fabs(r.weights(0, 1) - 0.2689414213699951) < 1e-12);
            CHECK(std::fabs(r.out(0, 1) - 0.2689414213699951) < 1e-12);
        }
    }

    TEST_CASE("an nn.Linear weight (d, C) becomes the math layout (C, d): x W_math = x W_linear^T") {
        const Tensor wl = {{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}};   // (d, C) = (2, 3)
        const Tensor wm = linear_weight_to_math(wl);
        REQUIRE(wm.shape() == Tensor::shape_type{3, 2});
        CHECK(wm(2, 0) == 3.0);
        CHECK(wm(0, 1) == 4.0);
        CHECK(max_abs_diff(math_weight_to_linear(wm), wl) == 0.0);
    }
}

TEST_SUITE("18.4 / 18.6 multi-head and cross-attention") {
    TEST_CASE("multiHeadAttention matches the per-head reference") {
        struct Case { std::size_t B, T, C, D, NH; bool causal; };
        const Case cases[] = {{1, 3, 2, 2, 1, true}, {2, 5, 4, 4, 2, true}, {2, 6, 6, 8, 4, false},
                              {3, 4, 8, 8, 8, true}, {2, 5, 6, 9, 3, true}, {1, 4, 5, 3, 3, false}};
        std::uint64_t seed = 300;
        for (const Case& c : cases) {
            CAPTURE(c.NH);
            const Tensor x = randn({c.B, c.T, c.C}, seed++);
            MhaOptions o = mha_opts(c.C, c.D, c.NH, seed);
            seed += 3;
            o.causal = c.causal;
            const MhaResult r = multi_head_attention(x, o);
            const double scale = 1.0 / std::sqrt(double(c.D / c.NH));
            const ref::Attn want = ref::mha(x, o.wq, o.wk, o.wv, c.NH, c.causal, scale);
            REQUIRE(r.weights.shape() == Tensor::shape_type{c.B, c.NH, c.T, c.T});
            CHECK(ref::max_abs(r.out, want.out) < 1e-13);
            CHECK(ref::max_abs(r.weights, want.weights) < 1e-14);
        }
    }

    TEST_CASE("multiHeadAttention with results 'out': out bit for bit the same, and nothing else made") {
        // causal and not, one head and several, cross-attention with Tin > T and Tin < T, a T
        // not a multiple of the scores' blocks of four
        struct Case { std::size_t B, T, C, D, NH, Tin; bool causal; };
        const Case cases[] = {{1, 3, 2, 2, 1, 0, true}, {2, 7, 8, 8, 4, 0, true}, {2, 6, 6, 8, 4, 0, false},
                              {3, 9, 8, 8, 2, 5, true}, {2, 5, 6, 9, 3, 11, true}, {1, 13, 4, 4, 2, 6, false}};
        std::uint64_t seed = 700;
        for (const Case& c : cases) {
            CAPTURE(c.T);
            CAPTURE(c.Tin);
            const Tensor x = randn({c.B, c.T, c.C}, seed++);
            MhaOptions o = mha_opts(c.C, c.D, c.NH, seed);
            seed += 3;
            o.causal = c.causal;
            if (c.Tin) {
                o.has_memory = true;
                o.memory = randn({c.B, c.Tin, c.C}, seed++);
            }
            const MhaResult all = multi_head_attention(x, o);
            const Tensor out = multi_head_attention_out(x, o);
            REQUIRE(out.shape() == all.out.shape());
            CHECK(std::memcmp(out.data(), all.out.data(), out.size() * sizeof(double)) == 0);
            // through the option, as JS asks for it
            Options opts{{"wq", o.wq}, {"wk", o.wk}, {"wv", o.wv}, {"heads", double(c.NH)}, {"causal", c.causal}};
            if (c.Tin) opts["memory"] = o.memory;
            const MhaResult dflt = multi_head_attention(x, opts);
            CHECK(std::memcmp(dflt.out.data(), all.out.data(), out.size() * sizeof(double)) == 0);
            CHECK(dflt.weights.dimension() == 4);
            opts["results"] = std::string("all");
            CHECK(std::memcmp(multi_head_attention(x, opts).scores.data(), all.scores.data(), all.scores.size() * sizeof(double)) == 0);
            opts["results"] = std::string("out");
            const MhaResult only = multi_head_attention(x, opts);
            CHECK(std::memcmp(only.out.data(), all.out.data(), out.size() * sizeof(double)) == 0);
            for (const Tensor* t : {&only.weights, &only.scores, &only.q, &only.k, &only.v}) CHECK(t->dimension() == 0);
        }
    }

    TEST_CASE("scaling by sqrt(C) instead of sqrt(hs) changes the weights only when heads > 1") {
        const Tensor x = randn({1, 5, 8}, 41);
        MhaOptions head = mha_opts(8, 8, 4, 42), model = head;
        model.scale.kind = Scale::Kind::Model;
        const MhaResult a = multi_head_attention(x, head), b = multi_head_attention(x, model);
        CHECK(max_abs_diff(a.weights, b.weights) > 1e-3);
        const ref::Attn want = ref::mha(x, head.wq, head.wk, head.wv, 4, false, 1.0 / std::sqrt(8.0));
        CHECK(ref::max_abs(b.weights, want.weights) < 1e-14);
        head.heads = model.heads = 1;   // hs = C: the two agree
        CHECK(max_abs_diff(multi_head_attention(x, head).weights, multi_head_attention(x, model).weights) == 0.0);
        SUBCASE("'none' and a number") {
            MhaOptions none = head;
            none.scale.kind = Scale::Kind::None;
            const ref::Attn w1 = ref::mha(x, head.wq, head.wk, head.wv, 1, false, 1.0);
            CHECK(ref::max_abs(multi_head_attention(x, none).weights, w1.weights) < 1e-14);
        }
    }

    TEST_CASE("'model' scaling divides by sqrt(C), the input width, not by sqrt(D), the projected width") {
        // C = 6, D = 12, 3 heads of hs = 4: the three scales 1/sqrt(6), 1/sqrt(12), 1/2 all differ
        const Tensor x = randn({2, 4, 6}, 43);
        MhaOptions o = mha_opts(6, 12, 3, 44);
        o.causal = true;
        SUBCASE("model") {
            o.scale.kind = Scale::Kind::Model;
            const MhaResult r = multi_head_attention(x, o);
            const ref::Attn want = ref::mha(x, o.wq, o.wk, o.wv, 3, true, 1.0 / std::sqrt(6.0));
            CHECK(ref::max_abs(r.weights, want.weights) < 1e-14);
            CHECK(ref::max_abs(r.out, want.out) < 1e-13);
            // scores are q.k / sqrt(C) for head 1, query 3, key 2 (columns 4..7 of the projections)
            double s = 0;
            for (std::size_t e = 4; e < 8; ++e) s += r.q(1, 3, e) * r.k(1, 2, e);
            CHECK(std::fabs(r.scores(1, 1, 3, 2) - s / std::sqrt(6.0)) < 1e-13);
        }
        SUBCASE("head") {
            const MhaResult r = multi_head_attention(x, o);
            const ref::Attn want = ref::mha(x, o.wq, o.wk, o.wv, 3, true, 0.5);
            CHECK(ref::max_abs(r.weights, want.weights) < 1e-14);
        }
    }

    TEST_CASE("cross-attention takes keys and values from the memory: weights (B, NH, T_out, T_in)") {
        const Tensor x = randn({2, 3, 4}, 51), mem = randn({2, 6, 4}, 52);
        MhaOptions o = mha_opts(4, 4, 2, 53);
        o.has_memory = true;
        o.memory = mem;
        const MhaResult r = multi_head_attention(x, o);
        REQUIRE(r.weights.shape() == Tensor::shape_type{2, 2, 3, 6});
        REQUIRE(r.out.shape() == Tensor::shape_type{2, 3, 4});
        const ref::Attn want = ref::mha(x, o.wq, o.wk, o.wv, 2, false, 1.0 / std::sqrt(2.0), &mem);
        CHECK(ref::max_abs(r.out, want.out) < 1e-13);
        CHECK(ref::max_abs(r.weights, want.weights) < 1e-14);
        SUBCASE("3 heads, C != D, causal (top-left aligned)") {
            MhaOptions o3 = mha_opts(4, 9, 3, 54);
            o3.has_memory = true;
            o3.memory = mem;
            o3.causal = true;
            const MhaResult r3 = multi_head_attention(x, o3);
            const ref::Attn want3 = ref::mha(x, o3.wq, o3.wk, o3.wv, 3, true, 1.0 / std::sqrt(3.0), &mem);
            CHECK(ref::max_abs(r3.out, want3.out) < 1e-13);
            CHECK(ref::max_abs(r3.weights, want3.weights) < 1e-14);
        }
    }

    TEST_CASE("multi-head gradients with respect to x, wq, wk, wv and memory match finite differences") {
        for (int variant = 0; variant < 3; ++variant) {
            CAPTURE(variant);   // 0 causal self, 1 bidirectional self, 2 cross
            const Tensor x = randn({2, 4, 4}, 61);
            MhaOptions o = mha_opts(4, 6, 2, 62);
            o.causal = variant == 0;
            if (variant == 2) { o.has_memory = true; o.memory = randn({2, 3, 4}, 65); }
            const Tensor g = randn({2, 4, 6}, 66);
            const MhaGrads an = multi_head_attention_backward(x, g, o);
            auto loss = [&](const Tensor& xx, const MhaOptions& oo) { return ref::dot(multi_head_attention(xx, oo).out, g); };
            CHECK(ref::max_abs(an.dx, ref::numeric_grad(x, [&](const Tensor& t) { return loss(t, o); })) < 1e-8);
            CHECK(ref::max_abs(an.dwq, ref::numeric_grad(o.wq, [&](const Tensor& t) { MhaOptions p = o; p.wq = t; return loss(x, p); })) < 1e-8);
            CHECK(ref::max_abs(an.dwk, ref::numeric_grad(o.wk, [&](const Tensor& t) { MhaOptions p = o; p.wk = t; return loss(x, p); })) < 1e-8);
            CHECK(ref::max_abs(an.dwv, ref::numeric_grad(o.wv, [&](const Tensor& t) { MhaOptions p = o; p.wv = t; return loss(x, p); })) < 1e-8);
            if (variant == 2)
                CHECK(ref::max_abs(an.dmemory, ref::numeric_grad(o.memory, [&](const Tensor& t) { MhaOptions p = o; p.memory = t; return loss(x, p); })) < 1e-8);
        }
    }
}

// The kernels keep two sums in one SIMD register (kernels.hpp); docs/toolchain.md, item 10 says the
// order of additions is part of the result. The scalar order, written out here, is the definition:
// every width from 0 to 9 (the odd tail included), values spread over twelve orders of magnitude so
// that another order of additions changes the last bits.
TEST_SUITE("the kernels' order of additions") {
    static double ref_dot2(const double* a, const double* b, std::size_t n) {
        double s0 = 0.0, s1 = 0.0;
        std::size_t c = 0;
        for (; c + 1 < n; c += 2) {
            s0 += a[c] * b[c];
            s1 += a[c + 1] * b[c + 1];
        }
        if (c < n) s0 += a[c] * b[c];
        return s0 + s1;
    }
    static std::vector<double> spread(std::size_t n, unsigned seed) {
        std::vector<double> v(n);
        for (auto& e : v) {
            seed = seed * 1103515245u + 12345u;
            const double u = ((seed >> 8) & 0xffff) / 65536.0;
            e = (u - 0.4) * std::pow(10.0, double((seed >> 4) % 13) - 6.0);
        }
        return v;
    }
    static bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

    TEST_CASE("dot2 and dot2x4 add in the scalar order: even and odd sums, then the two") {
        for (std::size_t n = 0; n <= 9; ++n) {
            const std::size_t stride = n + 3;   // rows apart, as a head's keys are in a wider row
            const auto a = spread(n, 7 + n), b = spread(4 * stride, 11 + n);
            double out[4];
            attn::detail::dot2x4(a.data(), b.data(), stride, n, 0.3, out);
            for (std::size_t r = 0; r < 4; ++r) {
                const double want = ref_dot2(a.data(), b.data() + r * stride, n);
                CHECK(same_bits(attn::detail::dot2(a.data(), b.data() + r * stride, n), want));
                CHECK(same_bits(out[r], want * 0.3));
            }
        }
        // the order is visible: left to right, 1e16 - 1e16 + 1 + 1 is 2; the even sum 1e16 + 1 and the
        // odd sum -1e16 + 1 each round the 1 away, and their total is 0
        const double a[] = {1e16, -1e16, 1.0, 1.0}, ones[] = {1.0, 1.0, 1.0, 1.0};
        CHECK(attn::detail::dot2(a, ones, 4) == 0.0);
    }
    TEST_CASE("axpy4 adds the four rows into o in the order 0, 1, 2, 3, column by column") {
        for (std::size_t n = 0; n <= 9; ++n) {
            const auto o0 = spread(n, 3 + n), v = spread(4 * n, 5 + n);
            auto o = o0;
            const double a0 = 0.7, a1 = -1.3e-3, a2 = 2.9e4, a3 = 0.11;
            attn::detail::axpy4(o.data(), a0, a1, a2, a3, v.data(), v.data() + n, v.data() + 2 * n, v.data() + 3 * n, n);
            for (std::size_t c = 0; c < n; ++c)
                CHECK(same_bits(o[c], (((o0[c] + a0 * v[c]) + a1 * v[n + c]) + a2 * v[2 * n + c]) + a3 * v[3 * n + c]));
        }
    }
    TEST_CASE("axpy adds a x[c] onto each o[c], the scalar operation in each lane") {
        for (std::size_t n = 0; n <= 9; ++n) {
            const auto x = spread(n, 23 + n), o0 = spread(n, 29 + n);
            for (const double a : {0.75, -3.0e-7, 1.0e12}) {
                auto o = o0;
                attn::detail::axpy(o.data(), a, x.data(), n);
                for (std::size_t c = 0; c < n; ++c) CHECK(same_bits(o[c], o0[c] + a * x[c]));
            }
        }
    }
    // out[r, s] (rows x cols) is o0[r, s] + term(r, s, 0) + term(r, s, 1) + ... + term(r, s, inner - 1),
    // added in that order: a matrix product's scalar order, bit for bit
    template <class Term>
    static void check_in_order(const std::vector<double>& out, const std::vector<double>& o0, std::size_t rows, std::size_t cols,
                               std::size_t inner, Term term) {
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t s = 0; s < cols; ++s) {
                double want = o0[r * cols + s];
                for (std::size_t x = 0; x < inner; ++x) want += term(r, s, x);
                CHECK(same_bits(out[r * cols + s], want));
            }
    }
    TEST_CASE("gemm_tn_acc adds a[i, c] b[i, j] over i in the order 0, 1, 2, ... and gemm_nt_acc adds dot2 of two rows") {
        // n from 0 to 9 (whole blocks of four rows and the tail), odd and even widths
        for (std::size_t n = 0; n <= 9; ++n)
            for (std::size_t k = 1; k <= 5; ++k) {
                const std::size_t m = 3 + (n % 2);
                const auto a = spread(n * k, 31 + n), b = spread(n * m, 37 + k), o0 = spread(k * m, 41 + n + k);
                auto out = o0;
                attn::detail::gemm_tn_acc(out.data(), a.data(), b.data(), n, k, m);
                check_in_order(out, o0, k, m, n, [&](std::size_t c, std::size_t j, std::size_t i) { return a[i * k + c] * b[i * m + j]; });
                // out (n, k) += a2 (n, m) b2 (k, m)^T, k rows of b2 in blocks of four and the tail
                const auto a2 = spread(n * m, 43 + k), b2 = spread(k * m, 47 + n), p0 = spread(n * k, 53 + n);
                auto p = p0;
                attn::detail::gemm_nt_acc(p.data(), a2.data(), b2.data(), n, m, k);
                for (std::size_t i = 0; i < n; ++i)
                    for (std::size_t c = 0; c < k; ++c)
                        CHECK(same_bits(p[i * k + c], p0[i * k + c] + attn::detail::dot2(a2.data() + i * m, b2.data() + c * m, m)));
            }
    }
    TEST_CASE("gemm_acc adds a[i, c] b[c, j] over c in the order 0, 1, 2, ... onto out") {
        // k from 0 to 9 (whole passes of four rows of b and the tail), m from 1 to 5 (odd widths)
        for (std::size_t k = 0; k <= 9; ++k)
            for (std::size_t m = 1; m <= 5; ++m) {
                const std::size_t n = 3;
                const auto a = spread(n * k, 13 + k), b = spread(k * m, 17 + m), o0 = spread(n * m, 19 + k + m);
                auto out = o0;
                attn::detail::gemm_acc(out.data(), a.data(), b.data(), n, k, m);
                check_in_order(out, o0, n, m, k, [&](std::size_t i, std::size_t j, std::size_t c) { return a[i * k + c] * b[c * m + j]; });
            }
    }
}
