// "Check my numbers": the right result and each known mistake, computed by the core for the
// student's inputs, compared with the student's tensor (attn/diagnose.hpp).
//
// Every candidate is built from the core's own functions (matmul, softmax, averaging_matrix,
// multi_head_attention, sdpa_backward, dropout's kernel) with one thing changed, the way a
// student's code changes it: the mask applied after the softmax, the softmax over the other axis,
// another scale, a mask shifted by one, the heads not split, the weights used transposed,
// positions added after, the kept weights scaled by another factor, dropout in evaluation.
#include "attn/diagnose.hpp"

#include <cmath>
#include <algorithm>
#include <functional>
#include <map>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include "diagnose_compare.hpp"
#include "internal.hpp"

namespace attn {

namespace {

using detail::align;
using detail::Aligned;
using detail::compare;
using detail::shape_of;
using detail::swap_last;
constexpr const char* kFn = "diagnose";

// A B where the rows of A that hold NaN (a fully masked row: 0 / 0) give rows of NaN: the core's
// matmul takes finite numbers only
Tensor matmul_nan_rows(const Tensor& a, const Tensor& b) {
    Tensor finite = a;
    const std::size_t k = a.shape()[a.dimension() - 1], rows = a.size() / k;
    std::vector<bool> nan_row(rows, false);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t j = 0; j < k; ++j)
            if (std::isnan(finite.flat(r * k + j))) { nan_row[r] = true; finite.flat(r * k + j) = 0.0; }
    Tensor out = matmul(finite, b);
    const std::size_t m = out.shape()[out.dimension() - 1];
    // a 2-D A is broadcast over B's leading axes: output row R comes from row R mod rows of A
    for (std::size_t r = 0; r < out.size() / m; ++r)
        if (nan_row[r % rows]) for (std::size_t c = 0; c < m; ++c) out.flat(r * m + c) = std::nan("");
    return out;
}

// (Tq, Tk) of 1 where query i may read key j: j <= i + shift (shift 0: the causal mask)
BoolTensor shifted_mask(std::size_t Tq, std::size_t Tk, long shift) {
    BoolTensor m = xt::zeros<std::uint8_t>(Shape{Tq, Tk});
    for (std::size_t i = 0; i < Tq; ++i)
        for (std::size_t j = 0; j < Tk; ++j) m(i, j) = long(j) <= long(i) + shift ? 1 : 0;
    return m;
}

// A softmax over the last two axes as a student writes it: which mask, where, along which axis.
struct SoftmaxWay {
    bool masked = true;
    long shift = 0;                  // +1: sees one future position; -1: misses itself
    MaskOrder order = MaskOrder::Before;
    long dim = -1;                   // -2: over the queries
};

Tensor softmax_way(const Tensor& scores, const SoftmaxWay& w) {
    SoftmaxOptions o;
    o.dim = w.dim;
    o.order = w.order;
    if (w.masked) {
        const std::size_t r = scores.dimension();
        o.mask = MaskKind::Explicit;
        o.mask_tensor = shifted_mask(scores.shape()[r - 2], scores.shape()[r - 1], w.shift);
    }
    return softmax(scores, o).weights;
}

// ---- attention: multi-head attention as a student's code computes it ----------------------

struct AttentionWay {
    SoftmaxWay soft;
    enum class ScaleBy { HeadRoot, ModelRoot, Head, None } scale = ScaleBy::HeadRoot;
    bool split_heads = true;
    bool transpose_weights = false;  // x @ W^T: the math-layout weight read as nn.Linear's
    bool keys_from_x = false;        // cross-attention with K, V from the decoder's own x
};

// (B, T, D) -> (B, NH, T, hs)
Tensor split(const Tensor& t, std::size_t NH) {
    const std::size_t B = t.shape()[0], T = t.shape()[1], D = t.shape()[2];
    Tensor r = xt::reshape_view(t, Shape{B, T, NH, D / NH});
    return Tensor(xt::transpose(r, {0, 2, 1, 3}));
}
// (B, NH, T, hs) -> (B, T, D)
Tensor merge(const Tensor& t) {
    const std::size_t B = t.shape()[0], NH = t.shape()[1], T = t.shape()[2], hs = t.shape()[3];
    Tensor r = xt::transpose(t, {0, 2, 1, 3});
    return Tensor(xt::reshape_view(r, Shape{B, T, NH * hs}));
}

Tensor attention_way(const DiagnoseInputs& in, const AttentionWay& w, const std::string& quantity) {
    const Tensor& src = in.has_memory && !w.keys_from_x ? in.memory : in.x;
    auto weight = [&](const Tensor& W) { return w.transpose_weights ? swap_last(W) : W; };
    const Tensor q = matmul(in.x, weight(in.wq)), k = matmul(src, weight(in.wk)), v = matmul(src, weight(in.wv));
    const std::size_t C = in.x.shape()[2], D = q.shape()[2], NH = w.split_heads ? in.heads : 1, hs = D / NH;
    const double factor = w.scale == AttentionWay::ScaleBy::HeadRoot  ? 1.0 / std::sqrt(double(hs))
                          : w.scale == AttentionWay::ScaleBy::ModelRoot ? 1.0 / std::sqrt(double(C))
                          : w.scale == AttentionWay::ScaleBy::Head      ? 1.0 / double(hs)
                                                                        : 1.0;
    const Tensor q4 = split(q, NH), k4 = split(k, NH), v4 = split(v, NH);
    const Tensor scores = matmul(q4, swap_last(k4)) * factor;
    if (quantity == "scores") return scores;
    const Tensor weights = softmax_way(scores, w.soft);
    if (quantity == "weights") return weights;
    return merge(matmul_nan_rows(weights, v4));
}

// ---- the candidates of each check -------------------------------------------------------

struct Candidate {
    std::string id;
    std::function<bool()> applies;   // whether the mistake can be made with these inputs
    std::function<Tensor()> compute;
};

std::size_t time_axis_length(const Tensor& x) { return x.shape()[x.dimension() - 2]; }

std::vector<Candidate> average_candidates(const DiagnoseInputs& in) {
    const Tensor& x = in.x;
    auto with = [&x](const Tensor& A) { return matmul_nan_rows(A, x); };
    auto always = [] { return true; };
    return {
        {"correct", always, [&x] { return causal_average(x, AverageMethod::Matrix); }},
        {"sums_not_means", always, [&x, with] { return with(averaging_matrix(time_axis_length(x), false)); }},
        {"sees_future", always, [&x, with] {
             const std::size_t T = time_axis_length(x);
             Tensor A = Tensor::from_shape({T, T});
             A.fill(1.0 / double(T));
             return with(A);
         }},
        {"misses_itself", always, [&x, with] {
             // the mean of the earlier positions only: row 0 has none (0 / 0)
             const std::size_t T = time_axis_length(x);
             Tensor A = xt::zeros<double>(Shape{T, T});
             for (std::size_t i = 0; i < T; ++i)
                 for (std::size_t j = 0; j < T; ++j) A(i, j) = i == 0 ? std::nan("") : j < i ? 1.0 / double(i) : 0.0;
             return with(A);
         }},
        {"over_channels", always, [&x] {
             // the running mean taken along the channels instead of along time: x A^T
             return matmul(x, swap_last(averaging_matrix(x.shape()[x.dimension() - 1], true)));
         }},
    };
}

std::vector<Candidate> softmax_candidates(const DiagnoseInputs& in) {
    const Tensor& s = in.scores;
    auto way = [&](SoftmaxWay w) { return [&s, w] { return softmax_way(s, w); }; };
    auto always = [] { return true; };
    return {
        {"correct", always, [&s] {
             detail::require_rank({kFn, "opts.scores"}, s, 2, 4, "(..., T, T)");   // a causal mask acts on two axes
             return softmax_way(s, {});
         }},
        {"mask_after", always, way({true, 0, MaskOrder::After, -1})},
        {"no_mask", always, way({false, 0, MaskOrder::Before, -1})},
        {"softmax_over_queries", always, way({true, 0, MaskOrder::Before, -2})},
        {"sees_one_future", always, way({true, 1, MaskOrder::Before, -1})},
        {"misses_itself", always, way({true, -1, MaskOrder::Before, -1})},
    };
}

std::vector<Candidate> attention_candidates(const DiagnoseInputs& in) {
    const std::string q = in.quantity.empty() ? "out" : in.quantity;
    auto way = [&in, q](AttentionWay w) { return [&in, q, w] { return attention_way(in, w, q); }; };
    AttentionWay right;
    right.soft.masked = in.causal;
    using S = AttentionWay::ScaleBy;
    auto change = [right](auto f) { AttentionWay w = right; f(w); return w; };
    const bool causal = in.causal, cross = in.has_memory, heads = in.heads > 1;
    // the scores come before the mask and the softmax: their mistakes cannot show there (with any inputs)
    const bool weighted = q != "scores";
    // the same width in and out: a math-layout weight can be read transposed
    auto square = [&in] { return in.x.shape()[2] == in.wq.shape()[1] && in.wq.shape()[0] == in.wq.shape()[1]; };
    return {
        {"correct", [] { return true; }, [&in, q] {
             MhaOptions o;
             o.wq = in.wq; o.wk = in.wk; o.wv = in.wv; o.heads = in.heads; o.causal = in.causal;
             o.has_memory = in.has_memory; o.memory = in.memory;
             MhaResult r = multi_head_attention(in.x, o);
             return q == "weights" ? r.weights : q == "scores" ? r.scores : r.out;
         }},
        {"scale_model", [] { return true; }, way(change([](AttentionWay& w) { w.scale = S::ModelRoot; }))},
        {"scale_head_size", [] { return true; }, way(change([](AttentionWay& w) { w.scale = S::Head; }))},
        {"no_scale", [] { return true; }, way(change([](AttentionWay& w) { w.scale = S::None; }))},
        {"mask_after", [causal, weighted] { return causal && weighted; }, way(change([](AttentionWay& w) { w.soft.order = MaskOrder::After; }))},
        {"no_mask", [causal, weighted] { return causal && weighted; }, way(change([](AttentionWay& w) { w.soft.masked = false; }))},
        {"sees_one_future", [causal, weighted] { return causal && weighted; }, way(change([](AttentionWay& w) { w.soft.shift = 1; }))},
        {"misses_itself", [causal, weighted] { return causal && weighted; }, way(change([](AttentionWay& w) { w.soft.shift = -1; }))},
        {"mask_in_cross_attention", [causal, cross, weighted] { return cross && !causal && weighted; }, way(change([](AttentionWay& w) { w.soft.masked = true; }))},
        {"keys_from_decoder", [cross] { return cross; }, way(change([](AttentionWay& w) { w.keys_from_x = true; }))},
        {"softmax_over_queries", [weighted] { return weighted; }, way(change([](AttentionWay& w) { w.soft.dim = -2; }))},
        {"heads_not_split", [heads, q] { return heads && q == "out"; }, way(change([](AttentionWay& w) { w.split_heads = false; }))},
        {"weights_transposed", square, way(change([](AttentionWay& w) { w.transpose_weights = true; }))},
    };
}

std::vector<Candidate> positions_candidates(const DiagnoseInputs& in) {
    AttentionWay right;
    right.soft.masked = in.causal;
    auto mha = [&in](const Tensor& x) {
        MhaOptions o;
        o.wq = in.wq; o.wk = in.wk; o.wv = in.wv; o.heads = in.heads; o.causal = in.causal;
        return multi_head_attention(x, o).out;
    };
    return {
        {"correct", [] { return true; }, [&in, mha] {
             detail::require_rank({kFn, "opts.x"}, in.x, 3, 3, "(B, T, C)");
             const Shape want{in.x.shape()[1], in.x.shape()[2]};
             if (shape_of(in.pos) != want)
                 throw Error(ErrorCode::shape_mismatch, {{"fn", kFn}, {"arg", "inputs.pos"}, {"layout", "(T, C)"}, {"expectedShape", want},
                                                         {"shape", shape_of(in.pos)}});
             return mha(Tensor(in.x + in.pos));
         }},
        {"positions_after", [&in] { return in.wq.shape()[1] == in.x.shape()[2]; }, [&in, mha] { return Tensor(mha(in.x) + in.pos); }},
        {"no_positions", [] { return true; }, [&in, mha] { return mha(in.x); }},
    };
}

// gradients of L = sum(out * gradOut) for sdpa, written out as a student writes the backward
Tensor backward_way(const DiagnoseInputs& in, const std::string& which, bool softmax_backward, bool scale_in_backward, bool masked) {
    const std::size_t d = in.q.shape()[in.q.dimension() - 1];
    const double scale = 1.0 / std::sqrt(double(d));
    const Tensor S = matmul(in.q, swap_last(in.k)) * scale;
    SoftmaxWay w;
    w.masked = masked;
    const Tensor A = softmax_way(S, w);
    if (which == "dv") return matmul(swap_last(A), in.grad_out);
    const Tensor dA = matmul(in.grad_out, swap_last(in.v));
    Tensor dS = dA * A;   // softmax backward: A * (dA - sum_j dA * A)
    if (softmax_backward) {
        Tensor rows = xt::sum(dA * A, {A.dimension() - 1}, xt::keep_dims);
        dS = A * (dA - rows);
    } else {
        dS = dA * (A > 0.0);   // the softmax treated as the identity (on the visible entries)
    }
    const double s = scale_in_backward ? scale : 1.0;
    return which == "dq" ? Tensor(matmul(dS, in.k) * s) : Tensor(matmul(swap_last(dS), in.q) * s);
}

std::vector<Candidate> backward_candidates(const DiagnoseInputs& in) {
    const std::string q = in.quantity.empty() ? "dq" : in.quantity;
    const bool causal = in.causal;
    return {
        {"correct", [] { return true; }, [&in, q] {
             SdpaOptions o;
             o.causal = in.causal;
             SdpaGrads g = sdpa_backward(in.q, in.k, in.v, in.grad_out, o);
             return q == "dk" ? g.dk : q == "dv" ? g.dv : g.dq;
         }},
        {"no_softmax_backward", [] { return true; }, [&in, q, causal] { return backward_way(in, q, false, true, causal); }},
        {"no_scale_in_backward", [] { return true; }, [&in, q, causal] { return backward_way(in, q, true, false, causal); }},
        {"mask_forgotten_in_backward", [causal] { return causal; }, [&in, q] { return backward_way(in, q, true, true, false); }},
    };
}

// weights (..., T, T) and keep (the same shape, 0 or 1), p in [0, 1): checked before any candidate
void check_dropout_inputs(const DiagnoseInputs& in) {
    detail::require_rank({kFn, "opts.weights"}, in.weights, 1, kMaxRank, "(..., T, T)");
    detail::require_finite({kFn, "opts.weights"}, in.weights);
    if (shape_of(in.keep) != shape_of(in.weights))
        throw Error(ErrorCode::shape_mismatch, {{"fn", kFn}, {"arg", "opts.keep"}, {"layout", "(..., T, T)"}, {"expectedShape", shape_of(in.weights)},
                                                {"shape", shape_of(in.keep)}});
    for (std::size_t i = 0; i < in.keep.size(); ++i) {
        const double k = in.keep.data()[i];
        if (k != 0.0 && k != 1.0)
            throw Error(ErrorCode::element_range, {{"fn", kFn}, {"arg", "opts.keep"}, {"value", k}, {"index", detail::multi_index(in.keep, i)},
                                                   {"range", "{0, 1}"}});
    }
    detail::check_dropout_p(kFn, in.p);
}

std::vector<Candidate> dropout_candidates(const DiagnoseInputs& in) {
    const Tensor &w = in.weights, &keep = in.keep;
    const double p = in.p;
    const bool training = in.training;
    // the kept weights scaled by another factor than 1 / (1 - p)
    auto scaled = [&w, &keep](double factor) { return [&w, &keep, factor] { return detail::scale_kept(w, keep, factor); }; };
    return {
        {"correct", [] { return true; }, [&in] {
             check_dropout_inputs(in);
             return detail::dropout_kept(in.weights, in.keep, in.p, in.training);
         }},
        {"no_rescale", [training] { return training; }, scaled(1.0)},
        // 1 / p: not tried at p = 0 (at p = 0.5 it is 1 / (1 - p): the same as the right result)
        {"divides_by_p", [training, p] { return training && p > 0.0; }, scaled(p > 0.0 ? 1.0 / p : 1.0)},
        {"multiplies_by_1_minus_p", [training] { return training; }, scaled(1.0 - p)},
        // evaluation computed as training: dropped and rescaled
        {"drops_in_eval", [training] { return !training; }, [&in] { return detail::dropout_kept(in.weights, in.keep, in.p, true); }},
    };
}

std::vector<Candidate> candidates(const std::string& check, const DiagnoseInputs& in) {
    if (check == "causalAverage") return average_candidates(in);
    if (check == "softmax") return softmax_candidates(in);
    if (check == "attention") return attention_candidates(in);
    if (check == "positions") return positions_candidates(in);
    if (check == "sdpaBackward") return backward_candidates(in);
    if (check == "dropout") return dropout_candidates(in);
    throw Error(ErrorCode::not_one_of, {{"fn", kFn}, {"arg", "check"}, {"choice", check},
                                        {"choices", std::vector<std::string>{"causalAverage", "softmax", "attention", "positions", "sdpaBackward", "dropout"}}});
}

}  // namespace

const char* match_level_name(MatchLevel m) {
    switch (m) {
        case MatchLevel::Float64: return "float64";
        case MatchLevel::Float32: return "float32";
        case MatchLevel::Printed: return "printed";
        case MatchLevel::None: break;
    }
    return "none";
}

const std::vector<std::string>& diagnose_mistakes(const std::string& check) {
    static const std::map<std::string, std::vector<std::string>> all = [] {
        std::map<std::string, std::vector<std::string>> m;
        DiagnoseInputs in;   // the ids only: the lists do not depend on the inputs' values
        for (const char* c : {"causalAverage", "softmax", "attention", "positions", "sdpaBackward", "dropout"}) {
            std::vector<std::string> ids;
            for (const Candidate& k : candidates(c, in))
                if (k.id != "correct") ids.push_back(k.id);
            m[c] = ids;
        }
        return m;
    }();
    const auto it = all.find(check);
    if (it == all.end()) candidates(check, {});   // throws not_one_of
    return it->second;
}

Diagnosis diagnose(const std::string& check, const DiagnoseInputs& in, const Tensor& student, const Tensor& resolution) {
    const std::vector<Candidate> list = candidates(check, in);
    if (student.size() > kMaxElements) detail::too_large({kFn, "student"}, "(...)", shape_of(student));
    if (resolution.size() != 0 && resolution.size() != student.size())
        throw Error(ErrorCode::same_shape, {{"fn", kFn}, {"arg", "opts.resolution"}, {"shape", shape_of(resolution)}, {"other", "student"},
                                            {"otherShape", shape_of(student)}});
    Diagnosis d;
    d.shape = shape_of(student);
    d.expected = list.front().compute();
    const Aligned a = align(student, resolution, d.expected);
    if (!a.ok) {
        d.verdict = "shape";
        return d;
    }
    d.shape_note = a.note;
    const auto [level, worst] = compare(a.values, a.resolution, d.expected);
    d.level = level;
    d.max_diff = worst;
    d.diff = a.values - d.expected;
    d.first_wrong = detail::first_wrong(a.values, a.resolution, d.expected);
    d.candidates.push_back({"correct", level, worst, true});
    for (std::size_t c = 1; c < list.size(); ++c) {
        if (!list[c].applies()) continue;
        const Tensor t = list[c].compute();
        DiagnoseCandidate k{list[c].id};
        if (shape_of(t) != shape_of(d.expected)) continue;
        k.distinct = compare(t, Tensor(xt::zeros<double>(t.shape())), d.expected).first == MatchLevel::None;
        std::tie(k.level, k.max_diff) = compare(a.values, a.resolution, t);
        if (!k.distinct) d.same_as_correct.push_back(k.id);
        else if (k.level != MatchLevel::None) d.mistakes.push_back(k.id);
        d.candidates.push_back(k);
    }
    if (level != MatchLevel::None) d.verdict = "correct";
    else if (!d.mistakes.empty()) d.verdict = "mistake";
    else d.verdict = "unknown";
    return d;
}

}  // namespace attn
