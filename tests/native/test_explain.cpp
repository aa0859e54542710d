// Provenance (explain): the terms the core returns for one cell, added again here in the core's
// order, give the cell bit for bit; the terms themselves are the inputs' numbers; masked entries
// are flagged with exp 0. Shapes with C != D, Tq != Tk, 3 heads, cross-attention.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "attn/attention.hpp"
#include "fixtures.hpp"

using namespace attn;

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

// Re-add the terms as the explanation says the core adds them.
double resum(const Explanation& e) {
    if (e.kind == Explanation::Kind::Softmax) {
        double sum = 0.0;
        for (double x : e.exps) sum += x;
        REQUIRE(same_bits(sum, e.denominator));
        if (e.mask_after && e.masked[e.target]) return 0.0;
        return e.exps[e.target] / sum;
    }
    double s0 = 0.0, s1 = 0.0;
    for (std::size_t i = 0; i < e.terms.size(); ++i) {
        const double p = e.right.empty() ? e.left[i] : e.left[i] * e.right[i];
        REQUIRE(same_bits(p, e.terms[i]));
        if (e.pairwise && i % 2 == 1) s1 += p;
        else s0 += p;
    }
    const double sum = e.pairwise ? s0 + s1 : s0;
    REQUIRE(same_bits(sum, e.sum));
    return sum * e.scale / e.divisor;
}

Options mha_options(const Tensor& x, const MhaOptions& m) {
    Options o{{"x", x}, {"wq", m.wq}, {"wk", m.wk}, {"wv", m.wv}, {"heads", double(m.heads)}, {"causal", m.causal}};
    if (m.has_memory) o["memory"] = m.memory;
    return o;
}

std::vector<double> index_of(const Tensor& t, std::size_t f) {
    std::vector<double> ix(t.dimension());
    for (std::size_t a = t.dimension(); a-- > 0;) { ix[a] = double(f % t.shape()[a]); f /= t.shape()[a]; }
    return ix;
}

}  // namespace

TEST_SUITE("provenance") {
    TEST_CASE("every cell of multiHeadAttention: the terms re-added in the core's order are the cell") {
        struct Case { std::size_t B, T, C, D, heads, Tin; bool causal; };
        const Case cases[] = {{1, 3, 2, 2, 1, 0, true}, {2, 4, 5, 6, 3, 0, true}, {1, 5, 4, 9, 3, 0, false},
                              {2, 3, 4, 6, 3, 5, false}, {1, 4, 3, 6, 3, 2, true}};
        std::uint64_t seed = 40;
        for (const Case& c : cases) {
            CAPTURE(c.T); CAPTURE(c.C); CAPTURE(c.D); CAPTURE(c.heads); CAPTURE(c.Tin); CAPTURE(c.causal);
            MhaOptions m = fixtures::mha_opts(c.C, c.D, c.heads, seed);
            m.causal = c.causal;
            const Tensor x = randn({c.B, c.T, c.C}, seed + 10);
            if (c.Tin) { m.has_memory = true; m.memory = randn({c.B, c.Tin, c.C}, seed + 11); }
            seed += 20;
            const MhaResult r = multi_head_attention(x, m);
            const Options o = mha_options(x, m);
            const std::pair<const char*, const Tensor*> quantities[] = {{"q", &r.q}, {"k", &r.k}, {"v", &r.v},
                {"scores", &r.scores}, {"weights", &r.weights}, {"out", &r.out}};
            for (const auto& [label, t] : quantities)
                for (std::size_t f = 0; f < t->size(); ++f) {
                    const char* name = label;   // CAPTURE's lambda cannot see a structured binding (clang 14, C++17)
                    CAPTURE(name); CAPTURE(f);
                    const Explanation e = explain("multiHeadAttention", name, index_of(*t, f), o);
                    CHECK(same_bits(e.value, t->data()[f]));
                    CHECK(same_bits(resum(e), t->data()[f]));
                }
        }
    }

    TEST_CASE("the terms are the inputs' numbers: S[t, j] = q_t . k_j * scale, A[t, j] with the mask, Y[t, i]") {
        // 3 heads of hs = 2, C = 4, D = 6, T = 4, causal
        MhaOptions m = fixtures::mha_opts(4, 6, 3, 7);
        m.causal = true;
        const Tensor x = randn({1, 4, 4}, 8);
        const MhaResult r = multi_head_attention(x, m);
        const Options o = mha_options(x, m);
        // Q[0, 2, 5] = sum_c x[0, 2, c] wq[c, 5], in order
        const Explanation q = explain("multiHeadAttention", "q", {0, 2, 5}, o);
        REQUIRE(q.terms.size() == 4);
        for (std::size_t c = 0; c < 4; ++c) {
            CHECK(q.left[c] == x(0, 2, c));
            CHECK(q.right[c] == m.wq(c, 5));
            CHECK(q.source[c] == c);
        }
        CHECK_FALSE(q.pairwise);
        // S[h=2, t=3, j=1]: head 2 is columns 4, 5 of q and k; scale 1/sqrt(2)
        const Explanation s = explain("multiHeadAttention", "scores", {0, 2, 3, 1}, o);
        REQUIRE(s.terms.size() == 2);
        CHECK(s.left[0] == r.q(0, 3, 4));
        CHECK(s.left[1] == r.q(0, 3, 5));
        CHECK(s.right[0] == r.k(0, 1, 4));
        CHECK(s.right[1] == r.k(0, 1, 5));
        CHECK(s.scale == 1.0 / std::sqrt(2.0));
        CHECK(s.pairwise);
        // A[h=1, t=1, j=0]: the score row of head 1, j > 1 masked with exp 0, max over j <= 1
        const Explanation a = explain("multiHeadAttention", "weights", {0, 1, 1, 0}, o);
        CHECK(a.kind == Explanation::Kind::Softmax);
        REQUIRE(a.scores.size() == 4);
        CHECK(a.masked == std::vector<std::uint8_t>{0, 0, 1, 1});
        CHECK(a.exps[2] == 0.0);
        CHECK(a.exps[3] == 0.0);
        CHECK(a.max == std::max(r.scores(0, 1, 1, 0), r.scores(0, 1, 1, 1)));
        CHECK(a.exps[0] == std::exp(r.scores(0, 1, 1, 0) - a.max));
        CHECK(a.target == 0);
        // Y[t=2, i=3] (head 1, column 1): weights of row 2 times v[:, 3], only j <= 2
        const Explanation y = explain("multiHeadAttention", "out", {0, 2, 3}, o);
        REQUIRE(y.terms.size() == 3);
        for (std::size_t j = 0; j < 3; ++j) {
            CHECK(y.left[j] == r.weights(0, 1, 2, j));
            CHECK(y.right[j] == r.v(0, j, 3));
        }
    }

    TEST_CASE("sdpa, causalAverage and softmax cells: re-added terms equal the cell") {
        // sdpa with lead axes, Tq != Tk, d != dv, causal
        const Tensor q = randn({2, 3, 4}, 1), k = randn({2, 5, 4}, 2), v = randn({2, 5, 3}, 3);
        for (bool causal : {false, true}) {
            const Options o{{"q", q}, {"k", k}, {"v", v}, {"causal", causal}};
            SdpaOptions so;
            so.causal = causal;
            const SdpaResult r = sdpa(q, k, v, so);
            for (const auto& [name, t] : {std::pair{"scores", &r.scores}, std::pair{"weights", &r.weights}, std::pair{"out", &r.out}})
                for (std::size_t f = 0; f < t->size(); ++f) {
                    const Explanation e = explain("sdpa", name, index_of(*t, f), o);
                    CHECK(same_bits(resum(e), t->data()[f]));
                }
        }
        // the averages of 18.1, each method, batched
        const Tensor x = randn({2, 5, 3}, 4);
        for (const char* method : {"loop", "matrix", "softmax"}) {
            CAPTURE(method);
            const Options o{{"x", x}, {"method", std::string(method)}};
            const Tensor y = causal_average(x, Options{{"method", std::string(method)}});
            for (std::size_t f = 0; f < y.size(); ++f)
                CHECK(same_bits(resum(explain("causalAverage", "out", index_of(y, f), o)), y.data()[f]));
        }
        const Explanation loop = explain("causalAverage", "out", {1, 3, 2}, {{"x", x}, {"method", std::string("loop")}});
        CHECK(loop.terms.size() == 4);
        CHECK(loop.divisor == 4.0);
        CHECK(loop.left[3] == x(1, 3, 2));
        // matmul, batched on both sides and with a shared 2-D left operand (18.1's A X)
        for (const auto& [a, b] : {std::pair{randn({2, 3, 4}, 6), randn({2, 4, 5}, 7)}, std::pair{averaging_matrix(4, true), randn({3, 4, 2}, 8)}}) {
            const Options o{{"a", a}, {"b", b}};
            const Tensor y = matmul(a, b);
            for (std::size_t f = 0; f < y.size(); ++f)
                CHECK(same_bits(resum(explain("matmul", "out", index_of(y, f), o)), y.data()[f]));
        }
        // softmax of 18.2: dim 0 and -1, causal mask before and after, an explicit mask, -inf scores
        Tensor s = randn({4, 4}, 5);
        s(2, 0) = -std::numeric_limits<double>::infinity();
        BoolTensor mt = {{1, 0, 0, 0}, {0, 0, 0, 0}, {1, 1, 0, 1}, {1, 1, 1, 1}};
        for (double dim : {-1.0, 0.0})
            for (const char* order : {"before", "after"})
                for (int mask = 0; mask < 3; ++mask) {
                    Options so{{"dim", dim}, {"maskOrder", std::string(order)}};
                    if (mask == 1) so["mask"] = std::string("causal");
                    if (mask == 2) so["mask"] = mt;
                    const SoftmaxResult r = softmax(s, so);
                    Options o = so;
                    o["scores"] = s;
                    for (std::size_t f = 0; f < s.size(); ++f) {
                        CAPTURE(dim); CAPTURE(order); CAPTURE(mask); CAPTURE(f);
                        const Explanation e = explain("softmax", "weights", index_of(s, f), o);
                        CHECK(same_bits(e.value, r.weights.data()[f]));
                        if (!std::isnan(e.value)) CHECK(same_bits(resum(e), r.weights.data()[f]));
                    }
                }
        // a fully masked row before: NaN with no denominator
        const Explanation nan = explain("softmax", "weights", {1, 2}, {{"scores", s}, {"mask", mt}});
        CHECK(std::isnan(nan.value));
        CHECK(std::isnan(nan.denominator));
    }

    TEST_CASE("explain rejects what it cannot explain, with coded errors") {
        const Tensor x = randn({1, 3, 2}, 1);
        const Options o{{"x", x}, {"wq", randn({2, 2}, 2)}, {"wk", randn({2, 2}, 3)}, {"wv", randn({2, 2}, 4)}};
        auto code = [](auto&& f) {
            try { f(); } catch (const Error& e) { return std::string(e.code_name()); }
            return std::string("none");
        };
        CHECK(code([&] { explain("gpt", "out", {0, 0}, o); }) == "not_one_of");
        CHECK(code([&] { explain("dropout", "out", {0, 0, 0}, {{"x", x}, {"p", 0.5}, {"training", true}, {"seed", 1.0}, {"wq", x}}); }) == "unknown_option");
        CHECK(code([&] { explain("gradcheck", "dq", {0, 0}, {{"q", x}, {"k", x}, {"v", x}}); }) == "length_range");
        CHECK(code([&] { explain("futureProbe", "change", {0, 0, 0}, o); }) == "missing");
        CHECK(code([&] { explain("positions", "out", {5, 0}, {{"kind", std::string("sinusoidal")}, {"T", 3.0}, {"C", 2.0}}); }) == "integer_range");
        CHECK(code([&] { explain("multiHeadAttention", "logits", {0, 0, 0}, o); }) == "not_one_of");
        CHECK(code([&] { explain("multiHeadAttention", "q", {0, 0}, o); }) == "length_range");
        CHECK(code([&] { explain("multiHeadAttention", "q", {0, 3, 0}, o); }) == "integer_range");
        CHECK(code([&] { explain("multiHeadAttention", "q", {0, 0.5, 0}, o); }) == "integer_range");
        CHECK(code([&] { explain("multiHeadAttention", "q", {0, 0, 0}, {{"wq", x}}); }) == "missing");
        Options bad = o;
        bad["heads"] = 3.0;
        CHECK(code([&] { explain("multiHeadAttention", "q", {0, 0, 0}, bad); }) == "heads_not_dividing");
        bad = o;
        bad["dim"] = 1.0;
        CHECK(code([&] { explain("multiHeadAttention", "q", {0, 0, 0}, bad); }) == "unknown_option");
    }

    TEST_CASE("18.5: the sinusoid table, X + P and the attention outputs before and after the permutation") {
        // sinusoid: sin / cos of t / 10000^(2i / C), C odd so that the last column has no partner
        const std::size_t T = 6, C = 5;
        const Options so{{"kind", std::string("sinusoidal")}, {"T", double(T)}, {"C", double(C)}};
        const Tensor pe = positions(PositionKind::Sinusoidal, T, C, {});
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t c = 0; c < C; ++c) {
                CAPTURE(t); CAPTURE(c);
                const Explanation e = explain("positions", "out", {double(t), double(c)}, so);
                CHECK(e.kind == Explanation::Kind::Sinusoid);
                CHECK(e.pair == double(c / 2 * 2));
                CHECK(e.cosine == (c % 2 == 1));
                CHECK(same_bits(e.power, std::pow(10000.0, double(c / 2 * 2) / double(C))));
                CHECK(same_bits(e.angle, double(t) / e.power));
                CHECK(same_bits(e.cosine ? std::cos(e.angle) : std::sin(e.angle), pe(t, c)));
                CHECK(same_bits(e.value, pe(t, c)));
            }
        // learned: a copy of the seeded table's cell
        const Explanation l = explain("positions", "out", {2, 3}, {{"kind", std::string("learned")}, {"T", 4.0}, {"C", 5.0}, {"tMax", 7.0}, {"seed", 9.0}});
        CHECK(l.kind == Explanation::Kind::Copy);
        CHECK(same_bits(l.value, randn({7, 5}, 9)(2, 3)));

        // the permutation check, 3 heads, C != D, both position kinds, with and without the mask
        for (const char* kind : {"none", "learned", "sinusoidal"})
            for (const bool causal : {false, true}) {
                CAPTURE(kind); CAPTURE(causal);
                const std::size_t C2 = 4, D = 6;
                PermutationOptions po;
                po.mha = fixtures::mha_opts(C2, D, 3, 70);
                po.mha.causal = causal;
                po.use_positions = std::string(kind) != "none";
                po.position_kind = std::string(kind) == "sinusoidal" ? PositionKind::Sinusoidal : PositionKind::Learned;
                po.pos.t_max = 8;
                po.pos.seed = 5;
                po.seed = 11;
                const Tensor x = randn({1, 5, C2}, 71);
                const PermutationResult res = permutation_check(x, po);
                Options o = mha_options(x, po.mha);
                o["positions"] = std::string(kind);
                o["tMax"] = 8.0;
                o["positionSeed"] = 5.0;
                o["seed"] = 11.0;
                const Tensor pos = po.use_positions ? positions(po.position_kind, 5, C2, po.pos) : Tensor(xt::zeros<double>(Shape{5, C2}));
                Tensor xin = x;
                for (std::size_t t = 0; t < 5; ++t)
                    for (std::size_t c = 0; c < C2; ++c) xin(0, t, c) += pos(t, c);
                const Tensor y = multi_head_attention(xin, po.mha).out;
                for (std::size_t t = 0; t < 5; ++t) {
                    for (std::size_t c = 0; c < C2; ++c) {
                        const Explanation e = explain("permutationCheck", "permutedInput", {0, double(t), double(c)}, o);
                        CHECK(same_bits(e.left[0], x(0, res.perm[t], c)));   // row perm[t] of x
                        CHECK(same_bits(e.left[1], pos(t, c)));              // row t of the table
                        CHECK(same_bits(resum(e), res.permuted_input(0, t, c)));
                    }
                    for (std::size_t i = 0; i < D; ++i) {
                        const std::vector<double> at{0, double(t), double(i)};
                        const Explanation p = explain("permutationCheck", "permutedOut", at, o);
                        CHECK(p.from == std::vector<std::size_t>{0, res.perm[t], i});
                        CHECK(same_bits(p.value, y(0, res.perm[t], i)));
                        const Explanation a = explain("permutationCheck", "out", at, o);
                        CHECK(same_bits(resum(a), y(0, t, i)));
                        const Explanation b = explain("permutationCheck", "outOfPermuted", at, o);
                        CHECK(same_bits(resum(b), res.out_of_permuted(0, t, i)));
                        CHECK(b.terms.size() == (causal ? t + 1 : 5));
                    }
                }
            }
    }

    TEST_CASE("18.7: gradcheck's gradients, term by term in the backward kernel's order, and its central difference") {
        // two groups, Tq != Tk, d != dv, with and without the mask, both scales
        struct Case { std::size_t Tq, Tk, d, dv; bool causal; const char* scale; };
        for (const Case c : {Case{4, 5, 3, 2, true, "head"}, Case{5, 3, 2, 4, true, "none"}, Case{3, 4, 3, 2, false, "head"}}) {
            CAPTURE(c.Tq); CAPTURE(c.Tk); CAPTURE(c.causal);
            const Tensor q = randn({2, c.Tq, c.d}, 80), k = randn({2, c.Tk, c.d}, 81), v = randn({2, c.Tk, c.dv}, 82);
            const Options o{{"q", q}, {"k", k}, {"v", v}, {"causal", c.causal}, {"scale", std::string(c.scale)}, {"seed", 7.0}};
            SdpaOptions so;
            so.causal = c.causal;
            so.scale = std::string(c.scale) == "head" ? Scale{} : Scale{Scale::Kind::None, 1.0};
            const SdpaResult fwd = sdpa(q, k, v, so);
            const Tensor G = randn(Shape(fwd.out.shape().begin(), fwd.out.shape().end()), 7);
            const SdpaGrads g = sdpa_backward(q, k, v, G, so);
            const double scale = std::string(c.scale) == "head" ? 1.0 / std::sqrt(double(c.d)) : 1.0;
            const std::pair<const char*, const Tensor*> grads[] = {{"dq", &g.dq}, {"dk", &g.dk}, {"dv", &g.dv}};
            for (const auto& [label, t] : grads)
                for (std::size_t f = 0; f < t->size(); ++f) {
                    const char* name = label;   // CAPTURE's lambda cannot see a structured binding (clang 14, C++17)
                    CAPTURE(name); CAPTURE(f);
                    const std::vector<double> at = index_of(*t, f);
                    const Explanation e = explain("gradcheck", name, at, o);
                    CHECK(same_bits(e.value, t->data()[f]));
                    CHECK(same_bits(resum(e), t->data()[f]));
                    const std::size_t n = std::size_t(at[0]), row = std::size_t(at[1]), col = std::size_t(at[2]);
                    // the terms' sources: the visible keys of query row (dq), the queries that see key row (dk, dv)
                    std::vector<std::size_t> want;
                    if (std::string(name) == "dq") for (std::size_t j = 0; j < (c.causal ? std::min(row + 1, c.Tk) : c.Tk); ++j) want.push_back(j);
                    else for (std::size_t i = 0; i < c.Tq; ++i) if (!c.causal || row <= i) want.push_back(i);
                    CHECK(e.source == want);
                    for (std::size_t m = 0; m < e.terms.size(); ++m) {
                        const std::size_t src = e.source[m];
                        if (std::string(name) == "dv") {
                            CHECK(same_bits(e.left[m], fwd.weights(n, src, row)));
                            CHECK(same_bits(e.right[m], G(n, src, col)));
                            continue;
                        }
                        const std::size_t qt = std::string(name) == "dq" ? row : src, kj = std::string(name) == "dq" ? src : row;
                        CHECK(same_bits(e.grad_weight[m], fwd.weights(n, qt, kj)));
                        CHECK(same_bits(e.left[m], e.grad_weight[m] * (e.grad_dweight[m] - e.grad_rowdot[m]) * scale));
                        CHECK(same_bits(e.right[m], std::string(name) == "dq" ? k(n, kj, col) : q(n, qt, col)));
                        // dA[t, j] = dY[t] . V[j] (to rounding: the core adds it pairwise)
                        double da = 0.0;
                        for (std::size_t u = 0; u < c.dv; ++u) da += G(n, qt, u) * v(n, kj, u);
                        CHECK(e.grad_dweight[m] == doctest::Approx(da).epsilon(1e-12));
                    }
                    // the central difference: (L(x + h) - L(x - h)) / 2h, close to the analytic value
                    CHECK(e.eps == 1e-6);
                    CHECK(same_bits(e.numeric, (e.loss_plus - e.loss_minus) / (2.0 * e.eps)));
                    CHECK(std::fabs(e.numeric - e.value) <= 1e-5 + 1e-3 * std::fabs(e.numeric));
                }
        }
    }

    TEST_CASE("18.7: the future probe's change and dropout, cell by cell") {
        const MhaOptions m = fixtures::mha_opts(4, 6, 3, 90);
        const Tensor x = randn({1, 6, 4}, 91);
        Options o = mha_options(x, m);
        o["t"] = 2.0;
        o["seed"] = 4.0;
        const FutureProbeResult pr = future_probe(x, m, 2, 4);
        const Tensor base = multi_head_attention(x, m).out;
        for (std::size_t f = 0; f < pr.change.size(); ++f) {
            CAPTURE(f);
            const Explanation e = explain("futureProbe", "change", index_of(pr.change, f), o);
            CHECK(same_bits(e.left[1], base.data()[f]));
            CHECK(same_bits(std::fabs(e.left[0] - e.left[1]), pr.change.data()[f]));
            CHECK(same_bits(e.value, pr.change.data()[f]));
        }
        const Tensor w = sdpa(randn({1, 5, 3}, 92), randn({1, 5, 3}, 93), randn({1, 5, 2}, 94), SdpaOptions{}).weights;
        for (const bool training : {true, false}) {
            const Tensor y = dropout(w, 0.3, training, 8);
            std::size_t kept = 0;
            for (std::size_t f = 0; f < y.size(); ++f) {
                CAPTURE(training); CAPTURE(f);
                const Explanation e = explain("dropout", "out", index_of(y, f), {{"x", w}, {"p", 0.3}, {"training", training}, {"seed", 8.0}});
                CHECK(same_bits(e.value, y.data()[f]));
                CHECK(same_bits(e.left[0], w.data()[f]));
                CHECK(e.training == training);
                if (training) {
                    CHECK(e.kept == (e.draw >= 0.3));
                    CHECK(same_bits(e.value, e.kept ? w.data()[f] * (1.0 / 0.7) : 0.0));
                    kept += e.kept;
                }
            }
            if (training) CHECK((kept > 0 && kept < y.size()));   // both outcomes occur
        }
    }
}
