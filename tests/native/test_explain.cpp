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
            for (const auto& [name, t] : quantities)
                for (std::size_t f = 0; f < t->size(); ++f) {
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
        CHECK(code([&] { explain("dropout", "out", {0, 0}, o); }) == "not_one_of");
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
}
