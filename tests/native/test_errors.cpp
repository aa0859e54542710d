// Every rejected input throws attn::Error: a code, its parameters, and an English message built
// from them. Each bad input below pins all three; the last case checks that every code of the
// table (attn/errors.hpp) is pinned here, except the ones only the boundary can raise (tested in
// tests/node/errors.test.mjs).
#include <doctest/doctest.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <sstream>
#include <string>

#include "attn/attention.hpp"
#include "attn/gpt.hpp"
#include "fixtures.hpp"

using namespace attn;
using fixtures::mha_opts;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
using Strings = std::vector<std::string>;
using Numbers = std::vector<double>;

bool same(const ErrorParam::Value& a, const ErrorParam::Value& b) {
    if (a.index() != b.index()) return false;
    if (auto x = std::get_if<double>(&a)) {
        const double y = std::get<double>(b);
        return *x == y || (std::isnan(*x) && std::isnan(y));
    }
    return a == b;
}

std::string show(const ErrorParam::Value& v) {
    if (auto d = std::get_if<double>(&v)) return std::to_string(*d);
    if (auto s = std::get_if<std::string>(&v)) return "'" + *s + "'";
    std::string out = "[";
    if (auto n = std::get_if<Numbers>(&v))
        for (double x : *n) out += std::to_string(x) + " ";
    else
        for (const auto& x : std::get<Strings>(v)) out += "'" + x + "' ";
    return out + "]";
}

// `call` must throw attn::Error with this code, message and parameters (all of them, in order).
template <class F>
void expect_error(F&& call, ErrorCode code, const std::string& message, const std::vector<ErrorParam>& params) {
    const std::string name = error_codes()[std::size_t(code)].name;
    CAPTURE(name);
    CHECK_THROWS_WITH_AS(call(), message.c_str(), Error);
    try {
        call();
    } catch (const Error& e) {
        CHECK(std::string(e.code_name()) == name);
        REQUIRE(e.params().size() == params.size());
        for (std::size_t i = 0; i < params.size(); ++i) {
            const std::string param = params[i].name;
            CAPTURE(param);
            CHECK(std::string(e.params()[i].name) == params[i].name);
            INFO("got ", show(e.params()[i].value), ", want ", show(params[i].value));
            CHECK(same(e.params()[i].value, params[i].value));
        }
    }
}
}  // namespace

TEST_SUITE("errors") {
    TEST_CASE("the tables: every code has its parameters declared, and a wrong parameter list is a bug") {
#define ATTN_COUNT(code, params, doc) +1
        CHECK(error_codes().size() == std::size_t(0 ATTN_ERROR_CODES(ATTN_COUNT)));
#undef ATTN_COUNT
        for (std::size_t i = 0; i < error_codes().size(); ++i) {
            CHECK(std::size_t(error_codes()[i].code) == i);
            CHECK(error_codes()[i].params.size() >= 1);
            CHECK(std::string(error_codes()[i].params[0]) == "fn");   // every error names its function
        }
        std::set<std::string> names;
        for (const auto& p : error_params()) CHECK(names.insert(p.name).second);
        CHECK_THROWS_AS(Error(ErrorCode::disposed, {{"function", "x"}}), std::logic_error);
        CHECK_THROWS_AS(Error(ErrorCode::disposed, {{"fn", 1.0}}), std::logic_error);   // fn is a name, not a number
        CHECK_THROWS_AS(Error(ErrorCode::disposed, {{"fn", "x"}, {"arg", "y"}}), std::logic_error);
    }

    TEST_CASE("shapes from JavaScript are checked against the data") {
        expect_error([] { checked_shape("softmax", "scores", {2, 3}, 5); }, ErrorCode::shape_data,
                     "softmax: scores: shape (2, 3) needs 6 values, data has 5",
                     {{"fn", "softmax"}, {"arg", "scores"}, {"shape", Shape{2, 3}}, {"elements", 6}, {"length", 5}});
        expect_error([] { checked_shape("softmax", "scores", {2, 0.5}, 1); }, ErrorCode::shape_dim,
                     "softmax: scores: shape[1] must be a whole number >= 1, got 0.5",
                     {{"fn", "softmax"}, {"arg", "scores"}, {"index", Shape{1}}, {"value", 0.5}});
        expect_error([] { checked_shape("sum", "x", {}, 0); }, ErrorCode::shape_axes, "sum: x: shape must have 1 to 6 axes, got 0",
                     {{"fn", "sum"}, {"arg", "x"}, {"rank", 0}, {"maxRank", 6}});
        expect_error([] { checked_shape("sdpa", "q", {4096, 4096}, 0); }, ErrorCode::too_large,
                     "sdpa: q (4096, 4096) has 16777216 elements, more than the limit of 4194304",
                     {{"fn", "sdpa"}, {"arg", "q"}, {"layout", ""}, {"shape", Shape{4096, 4096}}, {"elements", 16777216}, {"limit", 4194304}});
        CHECK(checked_shape("sum", "x", {2, 3}, 6) == Shape{2, 3});
        expect_error([] { randn({2}, 1, 0.0); }, ErrorCode::number_range, "randn: std must be in (0, Infinity), got 0",
                     {{"fn", "randn"}, {"arg", "std"}, {"value", 0}, {"range", "(0, Infinity)"}});
    }

    TEST_CASE("causalAverage rejects wrong ranks, non-finite values, unknown and wrongly typed options") {
        expect_error([] { causal_average(Tensor{1.0, 2.0}, AverageMethod::Loop); }, ErrorCode::rank,
                     "causalAverage: x: expected (T, C) or (B, T, C), got shape (2,) (rank 1)",
                     {{"fn", "causalAverage"}, {"arg", "x"}, {"layout", "(T, C) | (B, T, C)"}, {"minRank", 2}, {"maxRank", 3},
                      {"shape", Shape{2}}, {"rank", 1}});
        expect_error([] { causal_average(Tensor{{1.0, kNaN}}, AverageMethod::Loop); }, ErrorCode::not_finite,
                     "causalAverage: x: every value must be a finite number, got NaN at [0, 1]",
                     {{"fn", "causalAverage"}, {"arg", "x"}, {"value", kNaN}, {"index", Shape{0, 1}}, {"allowed", Strings{}}});
        expect_error([] { causal_average(Tensor{{1.0, 2.0}}, Options{{"method", std::string("mean")}}); }, ErrorCode::not_one_of,
                     "causalAverage: opts.method must be 'loop', 'matrix' or 'softmax', got 'mean'",
                     {{"fn", "causalAverage"}, {"arg", "opts.method"}, {"choice", "mean"}, {"choices", Strings{"loop", "matrix", "softmax"}}});
        expect_error([] { causal_average(Tensor{{1.0, 2.0}}, Options{{"methd", std::string("loop")}}); }, ErrorCode::unknown_option,
                     "causalAverage: unknown option opts.methd (known: method)",
                     {{"fn", "causalAverage"}, {"arg", "opts.methd"}, {"known", Strings{"method"}}});
        expect_error([] { averaging_matrix(3, Options{{"normalize", 1.0}}); }, ErrorCode::wrong_type,
                     "averagingMatrix: opts.normalize must be true or false, got a number",
                     {{"fn", "averagingMatrix"}, {"arg", "opts.normalize"}, {"expectedType", "boolean"}, {"gotType", "number"}});
        expect_error([] { averaging_matrix(2.5, Options{}); }, ErrorCode::integer_range,
                     "averagingMatrix: T must be a whole number from 1 to 4194304, got 2.5",
                     {{"fn", "averagingMatrix"}, {"arg", "T"}, {"value", 2.5}, {"min", 1}, {"max", 4194304}});
        expect_error([] { averaging_matrix(4096, true); }, ErrorCode::too_large,
                     "averagingMatrix: A (T, T) = (4096, 4096) has 16777216 elements, more than the limit of 4194304",
                     {{"fn", "averagingMatrix"}, {"arg", "A"}, {"layout", "(T, T)"}, {"shape", Shape{4096, 4096}}, {"elements", 16777216},
                      {"limit", 4194304}});
    }

    TEST_CASE("the inspection functions take NaN (masked rows) but not infinities") {
        CHECK(std::isnan(max_abs_diff(Tensor{1.0, kNaN}, Tensor{1.0, 2.0})));
        expect_error([] { max_abs_diff(Tensor{1.0, kInf}, Tensor{1.0, 2.0}); }, ErrorCode::not_finite,
                     "maxAbsDiff: a: every value must be a finite number or NaN, got Infinity at [1]",
                     {{"fn", "maxAbsDiff"}, {"arg", "a"}, {"value", kInf}, {"index", Shape{1}}, {"allowed", Strings{"NaN"}}});
        expect_error([] { sum_along(Tensor{1.0, -kInf}, 0); }, ErrorCode::not_finite,
                     "sum: x: every value must be a finite number or NaN, got -Infinity at [1]",
                     {{"fn", "sum"}, {"arg", "x"}, {"value", -kInf}, {"index", Shape{1}}, {"allowed", Strings{"NaN"}}});
        expect_error([] { attention_stats(Tensor{{0.5, 0.5}, {1.5, 0.0}}); }, ErrorCode::element_range,
                     "attentionStats: weights: every value must lie in [0, 1], got 1.5 at [1, 0]",
                     {{"fn", "attentionStats"}, {"arg", "weights"}, {"value", 1.5}, {"index", Shape{1, 0}}, {"range", "[0, 1]"}});
    }

    TEST_CASE("maxAbsDiff, sum and matmul: shapes, axes and overflow") {
        expect_error([] { max_abs_diff(Tensor{{1.0, 2.0}}, Tensor{1.0, 2.0}); }, ErrorCode::same_shape,
                     "maxAbsDiff: b must have the same shape as a (1, 2), got (2,)",
                     {{"fn", "maxAbsDiff"}, {"arg", "b"}, {"shape", Shape{2}}, {"other", "a"}, {"otherShape", Shape{1, 2}}});
        const Tensor x = xt::ones<double>(Shape{2, 3});
        expect_error([&] { sum_along(x, 2); }, ErrorCode::dim_range, "sum: opts.dim must be in [-2, 1] for x of shape (2, 3), got 2",
                     {{"fn", "sum"}, {"arg", "opts.dim"}, {"value", 2}, {"min", -2}, {"max", 1}, {"other", "x"}, {"otherShape", Shape{2, 3}}});
        expect_error([&] { sum_along(x, Options{{"dim", 0.5}}); }, ErrorCode::integer_range,
                     "sum: opts.dim must be a whole number from -6 to 5, got 0.5",
                     {{"fn", "sum"}, {"arg", "opts.dim"}, {"value", 0.5}, {"min", -6}, {"max", 5}});
        expect_error([] { sum_along(Tensor{1e308, 1e308}, 0); }, ErrorCode::overflow,
                     "sum: the sums overflow float64 (Infinity at [0]): the inputs are too large in magnitude",
                     {{"fn", "sum"}, {"quantity", "sums"}, {"formula", ""}, {"value", kInf}, {"index", Shape{0}}});
        const Tensor a = xt::ones<double>(Shape{2, 3, 4});
        expect_error([&] { matmul(a, a); }, ErrorCode::axis_mismatch,
                     "matmul: b must have shape (..., k, m) with k = 4 (the last axis of a (2, 3, 4)), got (2, 3, 4)",
                     {{"fn", "matmul"}, {"arg", "b"}, {"layout", "(..., k, m)"}, {"axis", "k"}, {"size", 4}, {"shape", Shape{2, 3, 4}},
                      {"other", "a"}, {"otherAxis", -1}, {"otherShape", Shape{2, 3, 4}}});
        expect_error([&] { matmul(a, xt::ones<double>(Shape{3, 4, 2})); }, ErrorCode::leading_axes,
                     "matmul: b (3, 4, 2) and a (2, 3, 4) must share their leading axes (or one of them be 2-D where broadcasting is allowed)",
                     {{"fn", "matmul"}, {"arg", "b"}, {"shape", Shape{3, 4, 2}}, {"other", "a"}, {"otherShape", Shape{2, 3, 4}}});
        expect_error([] { matmul(Tensor{{1e200, 0.0}}, Tensor{{1e200, 0.0}, {0.0, 0.0}}); }, ErrorCode::overflow,
                     "matmul: the products a b overflow float64 (Infinity at [0, 0]): the inputs are too large in magnitude",
                     {{"fn", "matmul"}, {"quantity", "products"}, {"formula", "a b"}, {"value", kInf}, {"index", Shape{0, 0}}});
    }

    TEST_CASE("softmax errors: dim out of range, mask shape and kind, rank, NaN, +inf, option types") {
        const Tensor s = xt::zeros<double>(Shape{2, 3, 3});
        SoftmaxOptions o;
        o.dim = 3;
        expect_error([&] { softmax(s, o); }, ErrorCode::dim_range, "softmax: opts.dim must be in [-3, 2] for scores of shape (2, 3, 3), got 3",
                     {{"fn", "softmax"}, {"arg", "opts.dim"}, {"value", 3}, {"min", -3}, {"max", 2}, {"other", "scores"}, {"otherShape", Shape{2, 3, 3}}});
        SoftmaxOptions m;
        m.mask = MaskKind::Explicit;
        m.mask_tensor = BoolTensor{{1, 0}, {1, 1}};
        expect_error([&] { softmax(s, m); }, ErrorCode::shape_mismatch, "softmax: opts.mask must have shape (Tq, Tk) = (3, 3), got (2, 2)",
                     {{"fn", "softmax"}, {"arg", "opts.mask"}, {"layout", "(Tq, Tk)"}, {"expectedShape", Shape{3, 3}}, {"shape", Shape{2, 2}}});
        // a mask given as numbers must hold 0 and 1 only
        expect_error([&] { softmax(s, Options{{"mask", Tensor{{1.0, 0.5, 1.0}}}}); }, ErrorCode::element_range,
                     "softmax: opts.mask: every value must lie in {0, 1}, got 0.5 at [0, 1]",
                     {{"fn", "softmax"}, {"arg", "opts.mask"}, {"value", 0.5}, {"index", Shape{0, 1}}, {"range", "{0, 1}"}});
        SoftmaxOptions c;
        c.mask = MaskKind::Causal;
        expect_error([&] { softmax(Tensor{1.0, 2.0}, c); }, ErrorCode::mask_rank,
                     "softmax: mask 'causal' acts on the last two axes and needs scores of rank >= 2, got shape (2,)",
                     {{"fn", "softmax"}, {"arg", "scores"}, {"mask", "causal"}, {"shape", Shape{2}}});
        expect_error([] { softmax(Tensor{1.0, kNaN}, SoftmaxOptions{}); }, ErrorCode::not_finite,
                     "softmax: scores: every value must be a finite number or -Infinity, got NaN at [1]",
                     {{"fn", "softmax"}, {"arg", "scores"}, {"value", kNaN}, {"index", Shape{1}}, {"allowed", Strings{"-Infinity"}}});
        expect_error([] { softmax(xt::zeros<double>(Shape{1, 1, 1, 1, 2}), SoftmaxOptions{}); }, ErrorCode::rank,
                     "softmax: scores: expected a tensor of rank 1 to 4, got shape (1, 1, 1, 1, 2) (rank 5)",
                     {{"fn", "softmax"}, {"arg", "scores"}, {"layout", ""}, {"minRank", 1}, {"maxRank", 4}, {"shape", Shape{1, 1, 1, 1, 2}},
                      {"rank", 5}});
        expect_error([] { softmax(Tensor::from_shape({0}), SoftmaxOptions{}); }, ErrorCode::empty_axis,
                     "softmax: scores: expected a tensor with no empty axis, got shape (0,)",
                     {{"fn", "softmax"}, {"arg", "scores"}, {"layout", ""}, {"shape", Shape{0}}});
        expect_error([&] { softmax(s, Options{{"dim", std::string("last")}}); }, ErrorCode::wrong_type,
                     "softmax: opts.dim must be a number, got a string",
                     {{"fn", "softmax"}, {"arg", "opts.dim"}, {"expectedType", "number"}, {"gotType", "string"}});
        expect_error([&] { softmax(s, Options{{"mask", 7.0}}); }, ErrorCode::wrong_type,
                     "softmax: opts.mask must be 'none', 'causal' or a boolean (Tq, Tk) tensor, got a number",
                     {{"fn", "softmax"}, {"arg", "opts.mask"}, {"expectedType", "mask"}, {"gotType", "number"}});
        expect_error([&] { softmax(s, Options{{"dimension", 0.0}}); }, ErrorCode::unknown_option,
                     "softmax: unknown option opts.dimension (known: dim, mask, maskOrder)",
                     {{"fn", "softmax"}, {"arg", "opts.dimension"}, {"known", Strings{"dim", "mask", "maskOrder"}}});
    }

    TEST_CASE("sdpa errors name q, k, v and their shapes") {
        const Tensor q = xt::zeros<double>(Shape{2, 3, 4});
        expect_error([&] { sdpa(q, xt::zeros<double>(Shape{2, 5, 3}), xt::zeros<double>(Shape{2, 5, 2}), SdpaOptions{}); },
                     ErrorCode::axis_mismatch, "sdpa: k must have shape (..., Tk, d) with d = 4 (the last axis of q (2, 3, 4)), got (2, 5, 3)",
                     {{"fn", "sdpa"}, {"arg", "k"}, {"layout", "(..., Tk, d)"}, {"axis", "d"}, {"size", 4}, {"shape", Shape{2, 5, 3}},
                      {"other", "q"}, {"otherAxis", -1}, {"otherShape", Shape{2, 3, 4}}});
        expect_error([&] { sdpa(q, xt::zeros<double>(Shape{2, 5, 4}), xt::zeros<double>(Shape{2, 6, 2}), SdpaOptions{}); },
                     ErrorCode::axis_mismatch,
                     "sdpa: v must have shape (..., Tk, dv) with Tk = 5 (the second-to-last axis of k (2, 5, 4)), got (2, 6, 2)",
                     {{"fn", "sdpa"}, {"arg", "v"}, {"layout", "(..., Tk, dv)"}, {"axis", "Tk"}, {"size", 5}, {"shape", Shape{2, 6, 2}},
                      {"other", "k"}, {"otherAxis", -2}, {"otherShape", Shape{2, 5, 4}}});
        expect_error([&] { sdpa(q, xt::zeros<double>(Shape{3, 5, 4}), xt::zeros<double>(Shape{3, 5, 2}), SdpaOptions{}); },
                     ErrorCode::leading_axes,
                     "sdpa: k (3, 5, 4) and q (2, 3, 4) must share their leading axes (or one of them be 2-D where broadcasting is allowed)",
                     {{"fn", "sdpa"}, {"arg", "k"}, {"shape", Shape{3, 5, 4}}, {"other", "q"}, {"otherShape", Shape{2, 3, 4}}});
        expect_error([] { sdpa(Tensor{1.0}, Tensor{1.0}, Tensor{1.0}, SdpaOptions{}); }, ErrorCode::rank,
                     "sdpa: q: expected (..., Tq, d), got shape (1,) (rank 1)",
                     {{"fn", "sdpa"}, {"arg", "q"}, {"layout", "(..., Tq, d)"}, {"minRank", 2}, {"maxRank", 6}, {"shape", Shape{1}}, {"rank", 1}});
        expect_error([&] { sdpa(q, q, q, Options{{"scale", std::string("model")}}); }, ErrorCode::scale_value,
                     "sdpa: opts.scale must be 'head' or 'none' or a number, got 'model'",
                     {{"fn", "sdpa"}, {"arg", "opts.scale"}, {"choice", "model"}, {"choices", Strings{"head", "none"}}});
        expect_error([&] { sdpa(q, q, q, Options{{"scale", kInf}}); }, ErrorCode::number_range,
                     "sdpa: opts.scale must be in (-Infinity, Infinity), got Infinity",
                     {{"fn", "sdpa"}, {"arg", "opts.scale"}, {"value", kInf}, {"range", "(-Infinity, Infinity)"}});
        expect_error([&] { sdpa(q, q, q, Options{{"scale", true}}); }, ErrorCode::wrong_type,
                     "sdpa: opts.scale must be 'head', 'model', 'none' or a number, got a boolean",
                     {{"fn", "sdpa"}, {"arg", "opts.scale"}, {"expectedType", "scale"}, {"gotType", "boolean"}});
        SdpaOptions model;
        model.scale.kind = Scale::Kind::Model;
        expect_error([&] { sdpa(q, q, q, model); }, ErrorCode::scale_needs_width,
                     "sdpa: scale 'model' needs the model width C; use multiHeadAttention, or pass a number", {{"fn", "sdpa"}});
        expect_error([&] { sdpa_backward(q, q, q, xt::zeros<double>(Shape{2, 3, 5}), SdpaOptions{}); }, ErrorCode::shape_mismatch,
                     "sdpaBackward: gradOut must have shape (..., Tq, dv) = (2, 3, 4), got (2, 3, 5)",
                     {{"fn", "sdpaBackward"}, {"arg", "gradOut"}, {"layout", "(..., Tq, dv)"}, {"expectedShape", Shape{2, 3, 4}},
                      {"shape", Shape{2, 3, 5}}});
        expect_error([] { sdpa_reference(Tensor{{1.0, 2.0}}, xt::ones<double>(Shape{1, 1}), xt::ones<double>(Shape{1, 1}), SdpaOptions{}); },
                     ErrorCode::axis_mismatch, "sdpaReference: k must have shape (..., Tk, d) with d = 2 (the last axis of q (1, 2)), got (1, 1)",
                     {{"fn", "sdpaReference"}, {"arg", "k"}, {"layout", "(..., Tk, d)"}, {"axis", "d"}, {"size", 2}, {"shape", Shape{1, 1}},
                      {"other", "q"}, {"otherAxis", -1}, {"otherShape", Shape{1, 2}}});
        expect_error([] { linear_weight_to_math(Tensor{1.0}); }, ErrorCode::rank, "linearWeightToMath: w: expected (d, C), got shape (1,) (rank 1)",
                     {{"fn", "linearWeightToMath"}, {"arg", "w"}, {"layout", "(d, C)"}, {"minRank", 2}, {"maxRank", 2}, {"shape", Shape{1}},
                      {"rank", 1}});
    }

    TEST_CASE("multiHeadAttention errors: heads not dividing the width, weight shapes, memory shape, missing weights") {
        const Tensor x = xt::zeros<double>(Shape{1, 3, 4});
        expect_error([&] { multi_head_attention(x, mha_opts(4, 4, 3)); }, ErrorCode::heads_not_dividing,
                     "multiHeadAttention: heads = 3 does not divide the projected width D = 4",
                     {{"fn", "multiHeadAttention"}, {"heads", 3}, {"axis", "D"}, {"width", 4}});
        MhaOptions o = mha_opts(4, 4, 2);
        o.wk = randn({3, 4}, 1);
        expect_error([&] { multi_head_attention(x, o); }, ErrorCode::axis_mismatch,
                     "multiHeadAttention: opts.wk must have shape (C, D) with C = 4 (the last axis of x (1, 3, 4)), got (3, 4)",
                     {{"fn", "multiHeadAttention"}, {"arg", "opts.wk"}, {"layout", "(C, D)"}, {"axis", "C"}, {"size", 4}, {"shape", Shape{3, 4}},
                      {"other", "x"}, {"otherAxis", -1}, {"otherShape", Shape{1, 3, 4}}});
        MhaOptions w = mha_opts(4, 4, 2);
        w.wv = randn({4, 6}, 1);
        expect_error([&] { multi_head_attention(x, w); }, ErrorCode::axis_mismatch,
                     "multiHeadAttention: opts.wv must have shape (C, D) with D = 4 (the last axis of opts.wq (4, 4)), got (4, 6)",
                     {{"fn", "multiHeadAttention"}, {"arg", "opts.wv"}, {"layout", "(C, D)"}, {"axis", "D"}, {"size", 4}, {"shape", Shape{4, 6}},
                      {"other", "opts.wq"}, {"otherAxis", -1}, {"otherShape", Shape{4, 4}}});
        MhaOptions m = mha_opts(4, 4, 2);
        m.has_memory = true;
        m.memory = xt::zeros<double>(Shape{2, 5, 4});
        expect_error([&] { multi_head_attention(x, m); }, ErrorCode::axis_mismatch,
                     "multiHeadAttention: opts.memory must have shape (B, Tin, C) with B = 1 (the first axis of x (1, 3, 4)), got (2, 5, 4)",
                     {{"fn", "multiHeadAttention"}, {"arg", "opts.memory"}, {"layout", "(B, Tin, C)"}, {"axis", "B"}, {"size", 1},
                      {"shape", Shape{2, 5, 4}}, {"other", "x"}, {"otherAxis", 0}, {"otherShape", Shape{1, 3, 4}}});
        expect_error([&] { multi_head_attention(x, Options{{"heads", 2.0}}); }, ErrorCode::missing,
                     "multiHeadAttention: opts.wq is required: a tensor {shape: number[], data: Float64Array} (C, D)",
                     {{"fn", "multiHeadAttention"}, {"arg", "opts.wq"}, {"expectedType", "tensor"}, {"layout", "(C, D)"}});
        expect_error([&] { multi_head_attention(x, Options{{"wq", o.wq}, {"wk", o.wq}, {"wv", o.wq}, {"heads", 0.0}}); }, ErrorCode::integer_range,
                     "multiHeadAttention: opts.heads must be a whole number from 1 to 1048576, got 0",
                     {{"fn", "multiHeadAttention"}, {"arg", "opts.heads"}, {"value", 0}, {"min", 1}, {"max", 1048576}});
        expect_error([&] { multi_head_attention(x, Options{{"wq", 1.0}}); }, ErrorCode::wrong_type,
                     "multiHeadAttention: opts.wq must be a tensor {shape: number[], data: Float64Array}, got a number",
                     {{"fn", "multiHeadAttention"}, {"arg", "opts.wq"}, {"expectedType", "tensor"}, {"gotType", "number"}});
        // results: one of 'all' and 'out', a string; and the out alone is checked as the full forward is
        const Options ok{{"wq", o.wq}, {"wk", o.wq}, {"wv", o.wq}, {"heads", 2.0}};
        Options res = ok;
        res["results"] = std::string("weights");
        expect_error([&] { multi_head_attention(x, res); }, ErrorCode::not_one_of,
                     "multiHeadAttention: opts.results must be 'all' or 'out', got 'weights'",
                     {{"fn", "multiHeadAttention"}, {"arg", "opts.results"}, {"choice", "weights"}, {"choices", Strings{"all", "out"}}});
        res["results"] = true;
        expect_error([&] { multi_head_attention(x, res); }, ErrorCode::wrong_type,
                     "multiHeadAttention: opts.results must be a string, got a boolean",
                     {{"fn", "multiHeadAttention"}, {"arg", "opts.results"}, {"expectedType", "string"}, {"gotType", "boolean"}});
        res["results"] = std::string("out");
        res["heads"] = 3.0;
        expect_error([&] { multi_head_attention(x, res); }, ErrorCode::heads_not_dividing,
                     "multiHeadAttention: heads = 3 does not divide the projected width D = 4",
                     {{"fn", "multiHeadAttention"}, {"heads", 3}, {"axis", "D"}, {"width", 4}});
        expect_error([&] { multi_head_attention_out(x, m); }, ErrorCode::axis_mismatch,
                     "multiHeadAttention: opts.memory must have shape (B, Tin, C) with B = 1 (the first axis of x (1, 3, 4)), got (2, 5, 4)",
                     {{"fn", "multiHeadAttention"}, {"arg", "opts.memory"}, {"layout", "(B, Tin, C)"}, {"axis", "B"}, {"size", 1},
                      {"shape", Shape{2, 5, 4}}, {"other", "x"}, {"otherAxis", 0}, {"otherShape", Shape{1, 3, 4}}});
        // the backward reads the multi-head options only
        Options back = ok;
        back["results"] = std::string("out");
        expect_error([&] { multi_head_attention_backward(x, x, back); }, ErrorCode::unknown_option,
                     "multiHeadAttentionBackward: unknown option opts.results (known: wq, wk, wv, heads, causal, scale, memory)",
                     {{"fn", "multiHeadAttentionBackward"}, {"arg", "opts.results"}, {"known", Strings{"wq", "wk", "wv", "heads", "causal", "scale", "memory"}}});
        expect_error([&] { multi_head_attention_backward(x, xt::zeros<double>(Shape{1, 3, 3}), mha_opts(4, 4, 2)); }, ErrorCode::shape_mismatch,
                     "multiHeadAttentionBackward: gradOut must have shape (B, T, D) = (1, 3, 4), got (1, 3, 3)",
                     {{"fn", "multiHeadAttentionBackward"}, {"arg", "gradOut"}, {"layout", "(B, T, D)"}, {"expectedShape", Shape{1, 3, 4}},
                      {"shape", Shape{1, 3, 3}}});
        expect_error([] { multi_head_attention(xt::zeros<double>(Shape{1, 2100, 1}), mha_opts(1, 1, 1)); }, ErrorCode::too_large,
                     "multiHeadAttention: weights (B, NH, T, Tk) = (1, 1, 2100, 2100) has 4410000 elements, more than the limit of 4194304",
                     {{"fn", "multiHeadAttention"}, {"arg", "weights"}, {"layout", "(B, NH, T, Tk)"}, {"shape", Shape{1, 1, 2100, 2100}},
                      {"elements", 4410000}, {"limit", 4194304}});
    }

    TEST_CASE("positions, the permutation check, futureProbe, dropout, statistics and gradcheck reject bad arguments") {
        expect_error([] { positions("learned", 5, 2, Options{{"tMax", 4.0}}); }, ErrorCode::position_past_table,
                     "positions: T = 5 is past the learned table's tMax = 4 rows; a learned table has no row for position 4",
                     {{"fn", "positions"}, {"T", 5}, {"tMax", 4}});
        expect_error([] { positions("fourier", 5, 2, Options{}); }, ErrorCode::not_one_of,
                     "positions: kind must be 'learned' or 'sinusoidal', got 'fourier'",
                     {{"fn", "positions"}, {"arg", "kind"}, {"choice", "fourier"}, {"choices", Strings{"learned", "sinusoidal"}}});
        expect_error([] { positions("learned", 2, 2, Options{{"seed", -1.0}}); }, ErrorCode::integer_range,
                     "positions: opts.seed must be a whole number from 0 to 9007199254740991, got -1",
                     {{"fn", "positions"}, {"arg", "opts.seed"}, {"value", -1}, {"min", 0}, {"max", 9007199254740991.0}});
        const Tensor x = randn({1, 4, 4}, 1);
        Options mem{{"wq", randn({4, 4}, 2)}, {"wk", randn({4, 4}, 3)}, {"wv", randn({4, 4}, 4)}, {"memory", x}};
        expect_error([&] { permutation_check(x, mem); }, ErrorCode::self_attention_only, "permutationCheck: self-attention only; remove opts.memory",
                     {{"fn", "permutationCheck"}, {"arg", "opts.memory"}});
        expect_error([&] { future_probe(x, mha_opts(4, 4, 1), 3, 0); }, ErrorCode::t_past_end,
                     "futureProbe: opts.t must be from 0 to T - 2 = 2 so that positions after t exist, got t = 3",
                     {{"fn", "futureProbe"}, {"arg", "opts.t"}, {"value", 3}, {"max", 2}});
        expect_error([&] { future_probe(randn({1, 1, 4}, 1), mha_opts(4, 4, 1), 0, 0); }, ErrorCode::no_future,
                     "futureProbe: x needs T >= 2 positions so that a future exists, got T = 1", {{"fn", "futureProbe"}, {"arg", "x"}, {"T", 1}});
        Options no_t{{"wq", randn({4, 4}, 2)}, {"wk", randn({4, 4}, 3)}, {"wv", randn({4, 4}, 4)}};
        expect_error([&] { future_probe(x, no_t); }, ErrorCode::missing, "futureProbe: opts.t is required: a number",
                     {{"fn", "futureProbe"}, {"arg", "opts.t"}, {"expectedType", "number"}, {"layout", ""}});
        expect_error([&] { dropout(x, 1.0, true, 0); }, ErrorCode::number_range, "dropout: opts.p must be in [0, 1), got 1",
                     {{"fn", "dropout"}, {"arg", "opts.p"}, {"value", 1}, {"range", "[0, 1)"}});
        expect_error([&] { dropout_stats(x, Options{{"samples", 5e6}}); }, ErrorCode::work_limit,
                     "dropoutStats: samples * size(weights) = 80000000 is more than the limit of 50000000",
                     {{"fn", "dropoutStats"}, {"quantity", "samples * size(weights)"}, {"value", 8e7}, {"limit", 5e7}});
        expect_error([] { dot_product_variance({4, 0}, 10, 0); }, ErrorCode::integer_range,
                     "dotProductVariance: dims[1] must be a whole number from 1 to 65536, got 0",
                     {{"fn", "dotProductVariance"}, {"arg", "dims[1]"}, {"value", 0}, {"min", 1}, {"max", 65536}});
        expect_error([] { dot_product_variance({}, 10, 0); }, ErrorCode::length_range, "dotProductVariance: dims must have 1 to 64 entries, got 0",
                     {{"fn", "dotProductVariance"}, {"arg", "dims"}, {"length", 0}, {"min", 1}, {"max", 64}});
        expect_error([] { dot_product_variance({4}, Options{{"sample", 10.0}}); }, ErrorCode::unknown_option,
                     "dotProductVariance: unknown option opts.sample (known: samples, seed)",
                     {{"fn", "dotProductVariance"}, {"arg", "opts.sample"}, {"known", Strings{"samples", "seed"}}});
        expect_error([] { softmax_sharpening(Tensor{1.0, 2.0}, 1e308); }, ErrorCode::overflow,
                     "softmaxSharpening: the scaled logits factor * logits overflow float64 (Infinity at [1]): the inputs are too large in magnitude",
                     {{"fn", "softmaxSharpening"}, {"quantity", "scaled logits"}, {"formula", "factor * logits"}, {"value", kInf}, {"index", Shape{1}}});
        expect_error([] { gradcheck("attention", Options{}); }, ErrorCode::not_one_of, "gradcheck: kind must be 'sdpa' or 'mha', got 'attention'",
                     {{"fn", "gradcheck"}, {"arg", "kind"}, {"choice", "attention"}, {"choices", Strings{"sdpa", "mha"}}});
        expect_error([&] { gradcheck("sdpa", Options{{"q", x}, {"k", x}}); }, ErrorCode::missing,
                     "gradcheck: opts.v is required: a tensor {shape: number[], data: Float64Array} (..., Tk, dv)",
                     {{"fn", "gradcheck"}, {"arg", "opts.v"}, {"expectedType", "tensor"}, {"layout", "(..., Tk, dv)"}});
        const Tensor big = randn({2, 40, 30}, 1);
        expect_error([&] { gradcheck_sdpa(big, big, big, SdpaOptions{}, 0); }, ErrorCode::gradcheck_size,
                     "gradcheck: the inputs have 7200 elements; gradcheck perturbs each one, so it is limited to 4096",
                     {{"fn", "gradcheck"}, {"elements", 7200}, {"limit", 4096}});
    }

    TEST_CASE("finite inputs that overflow float64 on the way are an error, not inf or NaN") {
        const Tensor big = xt::ones<double>(Shape{1, 2, 2}) * 1e200;
        expect_error([&] { sdpa(big, big, big, SdpaOptions{}); }, ErrorCode::overflow,
                     "sdpa: the scores q.k * scale overflow float64 (Infinity at [0, 0, 0]): the inputs are too large in magnitude",
                     {{"fn", "sdpa"}, {"quantity", "scores"}, {"formula", "q.k * scale"}, {"value", kInf}, {"index", Shape{0, 0, 0}}});
        MhaOptions o = mha_opts(2, 2, 1);
        o.wq = o.wk = o.wv = xt::ones<double>(Shape{2, 2}) * 1e200;
        expect_error([&] { multi_head_attention(big, o); }, ErrorCode::overflow,
                     "multiHeadAttention: the projections q = x wq overflow float64 (Infinity at [0, 0, 0]): the inputs are too large in magnitude",
                     {{"fn", "multiHeadAttention"}, {"quantity", "projections"}, {"formula", "q = x wq"}, {"value", kInf}, {"index", Shape{0, 0, 0}}});
        // out alone: the same checks in the same order, the same error
        expect_error([&] { multi_head_attention_out(big, o); }, ErrorCode::overflow,
                     "multiHeadAttention: the projections q = x wq overflow float64 (Infinity at [0, 0, 0]): the inputs are too large in magnitude",
                     {{"fn", "multiHeadAttention"}, {"quantity", "projections"}, {"formula", "q = x wq"}, {"value", kInf}, {"index", Shape{0, 0, 0}}});
        // scores that overflow when q and k do not: named from the kept scores, whether they are kept or not
        MhaOptions s = mha_opts(2, 2, 1);
        s.wq = s.wk = s.wv = xt::ones<double>(Shape{2, 2});
        s.causal = true;
        const Tensor wide = xt::ones<double>(Shape{1, 2, 2}) * 1e160;   // q = k = 2e160: q.k = 8e320
        for (bool out_only : {false, true})
            expect_error([&] { out_only ? multi_head_attention_out(wide, s) : multi_head_attention(wide, s).out; }, ErrorCode::overflow,
                         "multiHeadAttention: the scores q.k * scale overflow float64 (Infinity at [0, 0, 0, 0]): the inputs are too large in magnitude",
                         {{"fn", "multiHeadAttention"}, {"quantity", "scores"}, {"formula", "q.k * scale"}, {"value", kInf},
                          {"index", Shape{0, 0, 0, 0}}});
        // the backwards keep no scores either: a visible one that overflows is named as the backward's
        expect_error([&] { multi_head_attention_backward(wide, xt::ones<double>(Shape{1, 2, 2}), s); }, ErrorCode::overflow,
                     "multiHeadAttentionBackward: the scores q.k * scale overflow float64 (Infinity at [0, 0, 0, 0]): the inputs are too large in magnitude",
                     {{"fn", "multiHeadAttentionBackward"}, {"quantity", "scores"}, {"formula", "q.k * scale"}, {"value", kInf},
                      {"index", Shape{0, 0, 0, 0}}});
        {   // a masked score and a visible one both overflow: the error names the visible one, [1, 0],
            // not the masked [0, 1] that comes first in memory (x0 = (1e160, 0), x1 = (0, 1e160);
            // q = x, k0 = (0, 1e160), k1 = (1e160, 0): S[0, 1] = S[1, 0] = 1e320, S[0, 0] = S[1, 1] = 0)
            MhaOptions two = mha_opts(2, 2, 1);
            two.causal = true;
            two.wq = Tensor{{1.0, 0.0}, {0.0, 1.0}};
            two.wk = Tensor{{0.0, 1.0}, {1.0, 0.0}};
            two.wv = Tensor{{1e-100, 0.0}, {0.0, 1e-100}};
            const Tensor x2 = Tensor{{{1e160, 0.0}, {0.0, 1e160}}};
            for (int which = 0; which < 2; ++which)
                expect_error([&] { which ? (void)multi_head_attention_out(x2, two) : (void)multi_head_attention_backward(x2, xt::ones<double>(Shape{1, 2, 2}), two); },
                             ErrorCode::overflow,
                             std::string(which ? "multiHeadAttention" : "multiHeadAttentionBackward") +
                                 ": the scores q.k * scale overflow float64 (Infinity at [0, 0, 1, 0]): the inputs are too large in magnitude",
                             {{"fn", which ? "multiHeadAttention" : "multiHeadAttentionBackward"}, {"quantity", "scores"},
                              {"formula", "q.k * scale"}, {"value", kInf}, {"index", Shape{0, 0, 1, 0}}});
            SdpaOptions sc;
            sc.causal = true;
            const Tensor qs = Tensor{{1e160, 0.0}, {0.0, 1e160}}, ks = Tensor{{0.0, 1e160}, {1e160, 0.0}};
            // the masked one alone overflowing is no error: q0 . k1 = 1e320 is masked, the rest finite
            const Tensor qm = Tensor{{1e160, 0.0}, {0.0, 1.0}}, km = Tensor{{0.0, 1.0}, {1e160, 0.0}};
            const SdpaGrads sg = sdpa_backward(qm, km, Tensor{{1.0, 0.0}, {0.0, 1.0}}, xt::ones<double>(Shape{2, 2}), sc);
            for (const Tensor* t : {&sg.dq, &sg.dk, &sg.dv}) CHECK(xt::all(xt::isfinite(*t)));
            expect_error([&] { sdpa_backward(qs, ks, qs, xt::ones<double>(Shape{2, 2}), sc); }, ErrorCode::overflow,
                         "sdpaBackward: the scores q.k * scale overflow float64 (Infinity at [1, 0]): the inputs are too large in magnitude",
                         {{"fn", "sdpaBackward"}, {"quantity", "scores"}, {"formula", "q.k * scale"}, {"value", kInf}, {"index", Shape{1, 0}}});
        }
        expect_error([&] { sdpa_backward(big, big, big, xt::ones<double>(Shape{1, 2, 2}), SdpaOptions{}); }, ErrorCode::overflow,
                     "sdpaBackward: the scores q.k * scale overflow float64 (Infinity at [0, 0, 0]): the inputs are too large in magnitude",
                     {{"fn", "sdpaBackward"}, {"quantity", "scores"}, {"formula", "q.k * scale"}, {"value", kInf}, {"index", Shape{0, 0, 0}}});
        // a masked score that overflows while every visible one is finite: every result keeps (and
        // checks) the masked scores, so it is an error there; out alone and the backward never
        // compute them, so they return (docs/api.md: only a visible score that overflows is an error)
        {
            MhaOptions m = mha_opts(2, 2, 1);
            m.causal = true;
            m.wq = Tensor{{1.0, 0.0}, {0.0, 1e-200}};    // q0 = (1e160, 0), q1 = (0, 1e-40)
            m.wk = Tensor{{1e-200, 0.0}, {1.0, 0.0}};    // k0 = (1e-40, 0), k1 = (1e160, 0): q0.k1 = 1e320, masked
            m.wv = Tensor{{1e-100, 0.0}, {0.0, 1e-100}};  // v0 = (1e60, 0), v1 = (0, 1e60)
            const Tensor xm = Tensor{{{1e160, 0.0}, {0.0, 1e160}}};
            expect_error([&] { multi_head_attention(xm, m); }, ErrorCode::overflow,
                         "multiHeadAttention: the scores q.k * scale overflow float64 (Infinity at [0, 0, 0, 1]): the inputs are too large in magnitude",
                         {{"fn", "multiHeadAttention"}, {"quantity", "scores"}, {"formula", "q.k * scale"}, {"value", kInf},
                          {"index", Shape{0, 0, 0, 1}}});
            const Tensor out = multi_head_attention_out(xm, m);
            // the backward does not compute the masked scores either: its gradients are returned,
            // and they are finite (the masked weight is 0)
            const MhaGrads mg = multi_head_attention_backward(xm, xt::ones<double>(Shape{1, 2, 2}), m);
            for (const Tensor* t : {&mg.dx, &mg.dwq, &mg.dwk, &mg.dwv}) CHECK(xt::all(xt::isfinite(*t)));
            CHECK(out(0, 0, 0) == doctest::Approx(1e60));   // row 0 sees key 0 alone
            CHECK(out(0, 0, 1) == 0.0);
            CHECK(out(0, 1, 0) == doctest::Approx(5e59));   // row 1: scores 0 and 0, half of each value
            CHECK(out(0, 1, 1) == doctest::Approx(5e59));
            m.causal = false;   // the same score visible: out alone names it too
            expect_error([&] { multi_head_attention_out(xm, m); }, ErrorCode::overflow,
                         "multiHeadAttention: the scores q.k * scale overflow float64 (Infinity at [0, 0, 0, 1]): the inputs are too large in magnitude",
                         {{"fn", "multiHeadAttention"}, {"quantity", "scores"}, {"formula", "q.k * scale"}, {"value", kInf},
                          {"index", Shape{0, 0, 0, 1}}});
        }
        // the backward runs the same forward, and says it is the backward that overflowed
        const Tensor g = xt::ones<double>(Shape{1, 2, 2});
        expect_error([&] { multi_head_attention_backward(big, g, o); }, ErrorCode::overflow,
                     "multiHeadAttentionBackward: the projections q = x wq overflow float64 (Infinity at [0, 0, 0]): the inputs are too large in magnitude",
                     {{"fn", "multiHeadAttentionBackward"}, {"quantity", "projections"}, {"formula", "q = x wq"}, {"value", kInf}, {"index", Shape{0, 0, 0}}});
        expect_error([] { causal_average(Tensor{{1e308, 0.0}, {1e308, 0.0}}, AverageMethod::Loop); }, ErrorCode::overflow,
                     "causalAverage: the sums overflow float64 (Infinity at [1, 0]): the inputs are too large in magnitude",
                     {{"fn", "causalAverage"}, {"quantity", "sums"}, {"formula", ""}, {"value", kInf}, {"index", Shape{1, 0}}});
        const Tensor huge = xt::ones<double>(Shape{16}) * 1e308;   // p = 0.5 keeps some of 16, each doubled
        CHECK_THROWS_WITH_AS(dropout(huge, 0.5, true, 3), doctest::Contains("dropout: the kept values x / (1 - p) overflow float64 (Infinity at ["), Error);
        // large but safe: 1e150 squared is 1e300
        const Tensor ok = xt::ones<double>(Shape{1, 2, 2}) * 1e150;
        CHECK_NOTHROW(sdpa(ok, ok, ok, SdpaOptions{}));
    }

    TEST_CASE("a score tensor past the size limit is refused before it is allocated") {
        const Tensor q = xt::zeros<double>(Shape{1, 2100, 1});
        expect_error([&] { sdpa(q, q, q, SdpaOptions{}); }, ErrorCode::too_large,
                     "sdpa: scores (..., Tq, Tk) = (1, 2100, 2100) has 4410000 elements, more than the limit of 4194304",
                     {{"fn", "sdpa"}, {"arg", "scores"}, {"layout", "(..., Tq, Tk)"}, {"shape", Shape{1, 2100, 2100}}, {"elements", 4410000},
                      {"limit", 4194304}});
    }

    TEST_CASE("the character GPT: bad text, bad options and bad requests") {
        const std::string text = std::string("abcdefgh ").append(std::string(200, 'a')).append("hgfedcba");   // 9 characters
        const Options small{{"C", 8.0}, {"heads", 2.0}, {"layers", 1.0}, {"tMax", 8.0}, {"batch", 2.0}};
        expect_error([] { make_trainer(std::string(4000001, 'a'), Options{}); }, ErrorCode::text_too_large,
                     "createModel: text has 4000001 bytes, more than the limit of 4000000",
                     {{"fn", "createModel"}, {"arg", "text"}, {"length", 4000001}, {"limit", 4000000}});
        expect_error([] { make_trainer("the cat sat", Options{{"tMax", 16.0}}); }, ErrorCode::text_too_short,
                     "createModel: text has 11 characters, too short for the context length tMax = 16 (it needs at least 170)",
                     {{"fn", "createModel"}, {"arg", "text"}, {"length", 11}, {"min", 170}, {"tMax", 16}});
        expect_error([] { make_trainer(std::string(100, 'a'), Options{{"tMax", 8.0}}); }, ErrorCode::vocab_size,
                     "createModel: text has 1 distinct characters; a vocabulary needs 2 to 2048",
                     {{"fn", "createModel"}, {"arg", "text"}, {"vocab", 1}, {"min", 2}, {"max", 2048}});
        expect_error([] { make_trainer(std::string("ab\xff"), Options{}); }, ErrorCode::bad_utf8, "createModel: text: not valid UTF-8 at byte 2",
                     {{"fn", "createModel"}, {"arg", "text"}, {"byte", 2}});
        expect_error([&] { make_trainer(text, Options{{"C", 16.0}, {"heads", 5.0}, {"tMax", 8.0}}); }, ErrorCode::heads_not_dividing,
                     "createModel: heads = 5 does not divide the width C = 16", {{"fn", "createModel"}, {"heads", 5}, {"axis", "C"}, {"width", 16}});
        expect_error([&] { make_trainer(text, Options{{"tMax", 8.0}, {"T", 9.0}}); }, ErrorCode::integer_range,
                     "createModel: opts.T must be a whole number from 1 to 8, got 9",
                     {{"fn", "createModel"}, {"arg", "opts.T"}, {"value", 9}, {"min", 1}, {"max", 8}});
        expect_error([&] { make_trainer(text, Options{{"tMax", 8.0}, {"lr", 1.0}}); }, ErrorCode::number_range,
                     "createModel: opts.lr must be in (0, 1), got 1", {{"fn", "createModel"}, {"arg", "opts.lr"}, {"value", 1}, {"range", "(0, 1)"}});
        CharTrainer tr = make_trainer(text, small);
        expect_error([&] { train_steps(tr, 0); }, ErrorCode::integer_range, "trainSteps: n must be a whole number from 1 to 100000, got 0",
                     {{"fn", "trainSteps"}, {"arg", "n"}, {"value", 0}, {"min", 1}, {"max", 100000}});
        expect_error([&] { evaluate(tr, 1.5); }, ErrorCode::integer_range, "evaluate: batches must be a whole number from 1 to 1000, got 1.5",
                     {{"fn", "evaluate"}, {"arg", "batches"}, {"value", 1.5}, {"min", 1}, {"max", 1000}});
        expect_error([&] { sample(tr, Options{{"prompt", std::string("abQ")}}); }, ErrorCode::char_not_in_vocab,
                     "sample: opts.prompt: the character 'Q' is not in the training text's vocabulary",
                     {{"fn", "sample"}, {"arg", "opts.prompt"}, {"character", "Q"}});
        expect_error([&] { sample(tr, Options{{"temperature", 0.0}}); }, ErrorCode::number_range, "sample: opts.temperature must be in (0, 10], got 0",
                     {{"fn", "sample"}, {"arg", "opts.temperature"}, {"value", 0}, {"range", "(0, 10]"}});
        expect_error([&] { sample(tr, Options{{"type", std::string("sample")}}); }, ErrorCode::unknown_option,
                     "sample: unknown option opts.type (known: prompt, length, temperature, seed)",
                     {{"fn", "sample"}, {"arg", "opts.type"}, {"known", Strings{"prompt", "length", "temperature", "seed"}}});
        expect_error([&] { tr.attention_maps("abcdefgha"); }, ErrorCode::text_length, "attention: text must have 1 to 8 characters, got 9",
                     {{"fn", "attention"}, {"arg", "text"}, {"length", 9}, {"min", 1}, {"max", 8}});
        expect_error([&] { future_check(tr, "abcd", Options{{"t", 3.0}}); }, ErrorCode::t_past_end,
                     "futureCheck: opts.t must be from 0 to T - 2 = 2 so that positions after t exist, got t = 3",
                     {{"fn", "futureCheck"}, {"arg", "opts.t"}, {"value", 3}, {"max", 2}});
        // block_trace: small has 1 layer (0 only); the text's characters and length, as attention's
        expect_error([&] { block_trace(tr, "abc", Options{{"layer", 1.0}}); }, ErrorCode::integer_range,
                     "blockTrace: opts.layer must be a whole number from 0 to 0, got 1",
                     {{"fn", "blockTrace"}, {"arg", "opts.layer"}, {"value", 1}, {"min", 0}, {"max", 0}});
        expect_error([&] { tr.block_trace("abc", 2); }, ErrorCode::integer_range, "blockTrace: opts.layer must be a whole number from 0 to 0, got 2",
                     {{"fn", "blockTrace"}, {"arg", "opts.layer"}, {"value", 2}, {"min", 0}, {"max", 0}});
        expect_error([&] { block_trace(tr, "abQ", Options{}); }, ErrorCode::char_not_in_vocab,
                     "blockTrace: text: the character 'Q' is not in the training text's vocabulary",
                     {{"fn", "blockTrace"}, {"arg", "text"}, {"character", "Q"}});
        expect_error([&] { block_trace(tr, "abcdefgha", Options{}); }, ErrorCode::text_length, "blockTrace: text must have 1 to 8 characters, got 9",
                     {{"fn", "blockTrace"}, {"arg", "text"}, {"length", 9}, {"min", 1}, {"max", 8}});
        expect_error([&] { block_trace(tr, "", Options{}); }, ErrorCode::text_length, "blockTrace: text must have 1 to 8 characters, got 0",
                     {{"fn", "blockTrace"}, {"arg", "text"}, {"length", 0}, {"min", 1}, {"max", 8}});
        expect_error([&] { block_trace(tr, "abc", Options{{"head", 0.0}}); }, ErrorCode::unknown_option,
                     "blockTrace: unknown option opts.head (known: layer)", {{"fn", "blockTrace"}, {"arg", "opts.head"}, {"known", Strings{"layer"}}});
        // head_patterns: the windows, the text (as attention's), the options
        expect_error([&] { head_patterns(tr, Options{{"windows", 0.0}}); }, ErrorCode::integer_range,
                     "headPatterns: opts.windows must be a whole number from 1 to 256, got 0",
                     {{"fn", "headPatterns"}, {"arg", "opts.windows"}, {"value", 0}, {"min", 1}, {"max", 256}});
        expect_error([&] { tr.head_patterns("", 257); }, ErrorCode::integer_range, "headPatterns: opts.windows must be a whole number from 1 to 256, got 257",
                     {{"fn", "headPatterns"}, {"arg", "opts.windows"}, {"value", 257}, {"min", 1}, {"max", 256}});
        expect_error([&] { head_patterns(tr, Options{{"text", std::string("abcdefgha")}}); }, ErrorCode::text_length,
                     "headPatterns: opts.text must have 1 to 8 characters, got 9",
                     {{"fn", "headPatterns"}, {"arg", "opts.text"}, {"length", 9}, {"min", 1}, {"max", 8}});
        expect_error([&] { head_patterns(tr, Options{{"text", std::string("abQ")}}); }, ErrorCode::char_not_in_vocab,
                     "headPatterns: opts.text: the character 'Q' is not in the training text's vocabulary",
                     {{"fn", "headPatterns"}, {"arg", "opts.text"}, {"character", "Q"}});
        expect_error([&] { head_patterns(tr, Options{{"layer", 0.0}}); }, ErrorCode::unknown_option,
                     "headPatterns: unknown option opts.layer (known: text, windows)",
                     {{"fn", "headPatterns"}, {"arg", "opts.layer"}, {"known", Strings{"text", "windows"}}});
        // pattern_stats (C++ only): square (NH, T, T) weights in [0, 1] and one character per row
        const std::vector<char32_t> abc{U'a', U'b', U'c'};
        expect_error([&] { pattern_stats(Tensor::from_shape({3, 3}), abc, true); }, ErrorCode::rank,
                     "patternStats: weights: expected (B, NH, T, T) or (NH, T, T), got shape (3, 3) (rank 2)",
                     {{"fn", "patternStats"}, {"arg", "weights"}, {"layout", "(B, NH, T, T) | (NH, T, T)"}, {"minRank", 3}, {"maxRank", 4},
                      {"shape", std::vector<std::size_t>{3, 3}}, {"rank", 2}});
        Tensor ragged = Tensor::from_shape({2, 3, 4});
        ragged.fill(0.25);
        expect_error([&] { pattern_stats(ragged, abc, true); }, ErrorCode::shape_mismatch,
                     "patternStats: weights must have shape (B, NH, T, T) or (NH, T, T) = (2, 4, 4), got (2, 3, 4)",
                     {{"fn", "patternStats"}, {"arg", "weights"}, {"layout", "(B, NH, T, T) | (NH, T, T)"},
                      {"expectedShape", std::vector<std::size_t>{2, 4, 4}}, {"shape", std::vector<std::size_t>{2, 3, 4}}});
        Tensor w = Tensor::from_shape({2, 3, 3});
        w.fill(0.5);
        expect_error([&] { pattern_stats(w, {U'a', U'b'}, true); }, ErrorCode::length_range, "patternStats: chars must have 3 to 3 entries, got 2",
                     {{"fn", "patternStats"}, {"arg", "chars"}, {"length", 2}, {"min", 3}, {"max", 3}});
        w(1, 2, 0) = 1.5;
        expect_error([&] { pattern_stats(w, abc, true); }, ErrorCode::element_range, "patternStats: weights: every value must lie in [0, 1], got 1.5 at [1, 2, 0]",
                     {{"fn", "patternStats"}, {"arg", "weights"}, {"value", 1.5}, {"index", std::vector<std::size_t>{1, 2, 0}}, {"range", "[0, 1]"}});
        expect_error([] { gpt_gradcheck(-1); }, ErrorCode::integer_range, "gptGradcheck: seed must be a whole number from 0 to 9007199254740991, got -1",
                     {{"fn", "gptGradcheck"}, {"arg", "seed"}, {"value", -1}, {"min", 0}, {"max", 9007199254740991.0}});
    }

    TEST_CASE("every code of the table is pinned above (the boundary's own codes: tests/node/errors.test.mjs)") {
        // Read from this file, not from what the cases above recorded: CTest runs each case in a
        // process of its own, in any order. Line comments are left out, so that a call mentioned in
        // a comment pins nothing.
        std::string source;
        {
            std::istringstream lines(fixtures::repo_file("tests/native/test_errors.cpp"));
            for (std::string line; std::getline(lines, line);) {
                std::size_t cut = std::string::npos;
                bool quoted = false;
                for (std::size_t i = 0; i + 1 < line.size() && cut == std::string::npos; ++i) {
                    if (line[i] == '"' && (i == 0 || line[i - 1] != '\\')) quoted = !quoted;
                    else if (!quoted && line[i] == '/' && line[i + 1] == '/') cut = i;
                }
                source += line.substr(0, cut) + "\n";
            }
        }
        const std::string tail = "ErrorCode::";
        std::set<std::string> expected;
        for (std::size_t at = source.find("expect_error("); at != std::string::npos; at = source.find("expect_error(", at + 1)) {
            const std::size_t c = source.find(tail, at);
            if (c == std::string::npos) break;
            std::size_t e = c + tail.size();
            while (e < source.size() && (std::isalnum(static_cast<unsigned char>(source[e])) || source[e] == '_')) ++e;
            expected.insert(source.substr(c + tail.size(), e - c - tail.size()));
        }
        const std::set<std::string> boundary{"disposed", "out_of_memory", "internal"};
        for (const auto& c : error_codes()) {
            CAPTURE(c.name);
            if (!boundary.count(c.name)) CHECK(expected.count(c.name) == 1);
        }
    }
}
