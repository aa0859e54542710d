// Every rejected input throws attn::Error with a message naming the argument and the
// expected and actual shapes or values. The messages are pinned here.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "attn/attention.hpp"
#include "fixtures.hpp"

using namespace attn;
using fixtures::mha_opts;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
}  // namespace

TEST_SUITE("errors") {
    TEST_CASE("shapes from JavaScript are checked against the data") {
        CHECK_THROWS_WITH_AS(checked_shape("x", {2, 3}, 5), "x: shape (2, 3) needs 6 values, data has 5", Error);
        CHECK_THROWS_WITH_AS(checked_shape("x", {2, 0.5}, 1), "x: shape[1] must be a whole number >= 1, got 0.5", Error);
        CHECK_THROWS_WITH_AS(checked_shape("x", {}, 0), "x: shape must have 1 to 6 axes, got 0", Error);
        CHECK_THROWS_WITH_AS(checked_shape("q", {4096, 4096}, 0),
                             "q: shape (4096, 4096) has 16777216 elements, more than the limit of 4194304", Error);
        CHECK(checked_shape("x", {2, 3}, 6) == Shape{2, 3});
    }

    TEST_CASE("causalAverage rejects wrong ranks and non-finite values") {
        CHECK_THROWS_WITH_AS(causal_average(Tensor{1.0, 2.0}, AverageMethod::Loop),
                             "causalAverage: x: expected (T, C) or (B, T, C), got shape (2,) (rank 1)", Error);
        CHECK_THROWS_WITH_AS(causal_average(Tensor{{1.0, kNaN}}, AverageMethod::Loop),
                             "causalAverage: x: every value must be a finite number, got NaN at [0, 1]", Error);
        Options o{{"method", std::string("mean")}};
        CHECK_THROWS_WITH_AS(causal_average(Tensor{{1.0, 2.0}}, o),
                             "causalAverage: option 'method' must be 'loop', 'matrix' or 'softmax', got 'mean'", Error);
        CHECK_THROWS_WITH_AS(softmax(Tensor{1.0, 2.0}, Options{{"dimension", 0.0}}), "softmax: unknown option 'dimension' (known: dim, mask, maskOrder)", Error);
        Options u{{"methd", std::string("loop")}};
        CHECK_THROWS_WITH_AS(causal_average(Tensor{{1.0, 2.0}}, u), "causalAverage: unknown option 'methd' (known: method)", Error);
    }

    TEST_CASE("the inspection functions take NaN (masked rows) but not infinities") {
        CHECK(std::isnan(max_abs_diff(Tensor{1.0, kNaN}, Tensor{1.0, 2.0})));
        CHECK_THROWS_WITH_AS(max_abs_diff(Tensor{1.0, kInf}, Tensor{1.0, 2.0}),
                             "maxAbsDiff: a: every value must be a finite number or NaN, got Infinity at [1]", Error);
        CHECK_THROWS_WITH_AS(sum_along(Tensor{1.0, -kInf}, 0), "sum: x: every value must be a finite number or NaN, got -Infinity at [1]", Error);
        CHECK_THROWS_WITH_AS(attention_stats(Tensor{kInf, 0.0}), "attentionStats: weights: every value must be a finite number or NaN, got Infinity at [0]", Error);
    }

    TEST_CASE("maxAbsDiff needs equal shapes") {
        CHECK_THROWS_WITH_AS(max_abs_diff(Tensor{{1.0, 2.0}}, Tensor{1.0, 2.0}),
                             "maxAbsDiff: a and b must have the same shape, got (1, 2) and (2,)", Error);
    }

    TEST_CASE("softmax errors: dim out of range, mask shape, rank, NaN, +inf, option types") {
        const Tensor s = xt::zeros<double>(Shape{2, 3, 3});
        SoftmaxOptions o;
        o.dim = 3;
        CHECK_THROWS_WITH_AS(softmax(s, o), "softmax: dim must be in [-3, 2] for scores of shape (2, 3, 3), got 3", Error);
        o.dim = -4;
        CHECK_THROWS_WITH_AS(softmax(s, o), "softmax: dim must be in [-3, 2] for scores of shape (2, 3, 3), got -4", Error);
        SoftmaxOptions m;
        m.mask = MaskKind::Explicit;
        m.mask_tensor = BoolTensor{{1, 0}, {1, 1}};
        CHECK_THROWS_WITH_AS(softmax(s, m), "softmax: mask must have shape (Tq, Tk) = (3, 3) to match scores (2, 3, 3), got (2, 2)", Error);
        SoftmaxOptions c;
        c.mask = MaskKind::Causal;
        CHECK_THROWS_WITH_AS(softmax(Tensor{1.0, 2.0}, c),
                             "softmax: mask 'causal' acts on the last two axes and needs scores of rank >= 2, got shape (2,)", Error);
        CHECK_THROWS_WITH_AS(softmax(Tensor{1.0, kNaN}, SoftmaxOptions{}),
                             "softmax: scores: every value must be a finite number or -Infinity, got NaN at [1]", Error);
        CHECK_THROWS_WITH_AS(softmax(Tensor{kInf, 0.0}, SoftmaxOptions{}),
                             "softmax: scores: every value must be a finite number or -Infinity, got Infinity at [0]", Error);
        CHECK_THROWS_WITH_AS(softmax(xt::zeros<double>(Shape{1, 1, 1, 1, 2}), SoftmaxOptions{}),
                             "softmax: scores: expected a tensor of rank 1 to 4, got shape (1, 1, 1, 1, 2) (rank 5)", Error);
        Options bad{{"maskOrder", std::string("during")}};
        CHECK_THROWS_WITH_AS(softmax(s, bad), "softmax: option 'maskOrder' must be 'before' or 'after', got 'during'", Error);
        Options t{{"dim", std::string("last")}};
        CHECK_THROWS_WITH_AS(softmax(s, t), "softmax: option 'dim' must be a number, got a string", Error);
    }

    TEST_CASE("sdpa errors name q, k, v and their shapes") {
        const Tensor q = xt::zeros<double>(Shape{2, 3, 4});
        CHECK_THROWS_WITH_AS(sdpa(q, xt::zeros<double>(Shape{2, 5, 3}), xt::zeros<double>(Shape{2, 5, 2}), SdpaOptions{}),
                             "sdpa: k must have the same last axis as q (d = 4), got k (2, 5, 3) and q (2, 3, 4)", Error);
        CHECK_THROWS_WITH_AS(sdpa(q, xt::zeros<double>(Shape{2, 5, 4}), xt::zeros<double>(Shape{2, 6, 2}), SdpaOptions{}),
                             "sdpa: v must have as many positions as k (Tk = 5), got v (2, 6, 2) and k (2, 5, 4)", Error);
        CHECK_THROWS_WITH_AS(sdpa(q, xt::zeros<double>(Shape{3, 5, 4}), xt::zeros<double>(Shape{3, 5, 2}), SdpaOptions{}),
                             "sdpa: q, k and v must share their leading axes, got q (2, 3, 4), k (3, 5, 4), v (3, 5, 2)", Error);
        CHECK_THROWS_WITH_AS(sdpa(Tensor{1.0}, Tensor{1.0}, Tensor{1.0}, SdpaOptions{}),
                             "sdpa: q: expected (..., Tq, d), got shape (1,) (rank 1)", Error);
        Options sc{{"scale", std::string("model")}};
        CHECK_THROWS_WITH_AS(sdpa(q, q, q, sc), "sdpa: option 'scale' must be 'head' or 'none' or a number, got 'model'", Error);
        CHECK_THROWS_WITH_AS(sdpa_backward(q, q, q, xt::zeros<double>(Shape{2, 3, 5}), SdpaOptions{}),
                             "sdpaBackward: gradOut must have the shape of the output (..., Tq, dv) = (2, 3, 4), got (2, 3, 5)", Error);
    }

    TEST_CASE("multiHeadAttention errors: heads not dividing the width, weight shapes, memory shape") {
        const Tensor x = xt::zeros<double>(Shape{1, 3, 4});
        CHECK_THROWS_WITH_AS(multi_head_attention(x, mha_opts(4, 4, 3)),
                             "multiHeadAttention: heads = 3 does not divide the projected width D = 4 (wq (4, 4))", Error);
        MhaOptions o = mha_opts(4, 4, 2);
        o.wk = randn({3, 4}, 1);
        CHECK_THROWS_WITH_AS(multi_head_attention(x, o),
                             "multiHeadAttention: wk must have shape (C, D) with C = 4 (the last axis of x (1, 3, 4)), got (3, 4)", Error);
        MhaOptions w = mha_opts(4, 4, 2);
        w.wv = randn({4, 6}, 1);
        CHECK_THROWS_WITH_AS(multi_head_attention(x, w),
                             "multiHeadAttention: wq, wk and wv must have the same shape (C, D), got wq (4, 4), wk (4, 4), wv (4, 6)", Error);
        MhaOptions m = mha_opts(4, 4, 2);
        m.has_memory = true;
        m.memory = xt::zeros<double>(Shape{2, 5, 4});
        CHECK_THROWS_WITH_AS(multi_head_attention(x, m),
                             "multiHeadAttention: memory must have shape (B, Tin, C) = (1, Tin, 4) to match x (1, 3, 4), got (2, 5, 4)", Error);
        CHECK_THROWS_WITH_AS(multi_head_attention(xt::zeros<double>(Shape{3, 4}), mha_opts(4, 4, 2)),
                             "multiHeadAttention: x: expected (B, T, C), got shape (3, 4) (rank 2)", Error);
        Options missing{{"heads", 2.0}};
        CHECK_THROWS_WITH_AS(multi_head_attention(x, missing), "option 'wq' is required: a (C, D) tensor", Error);
        Options zero_heads{{"wq", o.wq}, {"wk", o.wq}, {"wv", o.wq}, {"heads", 0.0}};
        CHECK_THROWS_WITH_AS(multi_head_attention(x, zero_heads), "option 'heads' must be a whole number from 1 to 1048576, got 0", Error);
    }

    TEST_CASE("positions, futureProbe, dropout and gradcheck reject bad arguments") {
        Options o{{"tMax", 4.0}};
        CHECK_THROWS_WITH_AS(positions("learned", 5, 2, o),
                             "positions: T = 5 is past the learned table's tMax = 4 rows; a learned table has no row for position 4", Error);
        CHECK_THROWS_WITH_AS(positions("fourier", 5, 2, Options{}), "positions: kind must be 'learned' or 'sinusoidal', got 'fourier'", Error);
        const Tensor x = randn({1, 4, 4}, 1);
        CHECK_THROWS_WITH_AS(future_probe(x, mha_opts(4, 4, 1), 3, 0),
                             "futureProbe: t must be from 0 to T - 2 = 2 so that positions after t exist, got t = 3", Error);
        CHECK_THROWS_WITH_AS(dropout(x, 1.0, true, 0), "dropout: p must be in [0, 1), got 1", Error);
        CHECK_THROWS_WITH_AS(gradcheck("attention", Options{}), "gradcheck: kind must be 'sdpa' or 'mha', got 'attention'", Error);
        const Tensor big = randn({2, 40, 30}, 1);
        CHECK_THROWS_WITH_AS(gradcheck_sdpa(big, big, big, SdpaOptions{}, 0),
                             "gradcheck: the inputs have 7200 elements; gradcheck perturbs each one, so it is limited to 4096", Error);
    }

    TEST_CASE("finite inputs that overflow float64 on the way are an error, not inf or NaN") {
        const Tensor big = xt::ones<double>(Shape{1, 2, 2}) * 1e200;
        CHECK_THROWS_WITH_AS(sdpa(big, big, big, SdpaOptions{}),
                             "sdpa: the scores q.k * scale overflow float64 (Infinity at flat index 0): the inputs are too large in magnitude", Error);
        MhaOptions o = mha_opts(2, 2, 1);
        o.wq = o.wk = o.wv = xt::ones<double>(Shape{2, 2}) * 1e200;
        CHECK_THROWS_WITH_AS(multi_head_attention(big, o),
                             "multiHeadAttention: the projections q = x wq overflow float64 (Infinity at flat index 0): the inputs are too large in magnitude", Error);
        CHECK_THROWS_WITH_AS(causal_average(Tensor{{1e308, 0.0}, {1e308, 0.0}}, AverageMethod::Loop),
                             "causalAverage: the sums overflow float64 (Infinity at flat index 2): the inputs are too large in magnitude", Error);
        const Tensor huge = xt::ones<double>(Shape{16}) * 1e308;   // p = 0.5 keeps some of 16, each doubled
        CHECK_THROWS_WITH_AS(dropout(huge, 0.5, true, 3), doctest::Contains("dropout: the kept values x / (1 - p) overflow float64 (Infinity at flat index "), Error);
        // large but safe: 1e150 squared is 1e300
        const Tensor ok = xt::ones<double>(Shape{1, 2, 2}) * 1e150;
        CHECK_NOTHROW(sdpa(ok, ok, ok, SdpaOptions{}));
    }

    TEST_CASE("a score tensor past the size limit is refused before it is allocated") {
        const Tensor q = xt::zeros<double>(Shape{1, 2100, 1});
        CHECK_THROWS_WITH_AS(sdpa(q, q, q, SdpaOptions{}),
                             "sdpa: scores (1, 2100, 2100) would have 4410000 elements, more than the limit of 4194304", Error);
    }
}
