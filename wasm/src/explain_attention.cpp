// Provenance of 18.3 / 18.4 / 18.6: a cell of multiHeadAttention (a projection, a score, a weight,
// an output) and of sdpa, with sdpa_forward_kernel's pairwise dot product, sequential softmax and
// output sums, and gemm_acc's sequential projection sum.
#include <algorithm>
#include <cmath>

#include "explain.hpp"
#include "kernels.hpp"

namespace attn::provenance {

namespace {

// The causal softmax of sdpa_forward_kernel for one row of scaled scores: the first `visible`
// entries allowed, the rest masked.
Explanation causal_row_softmax(const double* srow, std::size_t Tk, std::size_t visible, std::size_t j) {
    Explanation e;
    e.kind = Explanation::Kind::Softmax;
    e.target = j;
    double mx = srow[0];
    for (std::size_t c = 1; c < visible; ++c) mx = std::max(mx, srow[c]);
    double sum = 0.0;
    for (std::size_t c = 0; c < Tk; ++c) {
        const double w = c < visible ? std::exp(srow[c] - mx) : 0.0;
        e.scores.push_back(srow[c]);
        e.masked.push_back(c < visible ? 0 : 1);
        e.exps.push_back(w);
        sum += w;
    }
    e.max = mx;
    e.denominator = sum;
    e.value = e.exps[j] / sum;
    return e;
}

// The output sum of sdpa_forward_kernel: y = sum over the visible j of a[j] * v[j, c], from 0.0.
Explanation output_sum(const double* wrow, const double* vcol, std::size_t vstride, std::size_t visible) {
    return dot(wrow, 1, vcol, vstride, visible, false, 1.0);
}

// What a cell of a (Tq, Tk) attention computation is made of, given the projected q, k, v rows of
// group n (laid out as in sdpa_forward_kernel), the scores and weights (N, Tq, Tk).
struct Attention {
    const double *q, *k, *v, *scores, *weights;
    detail::RowLayout lq, lk, lv;
    std::size_t Tq, Tk, d;
    double scale;
    bool causal;
    std::size_t visible(std::size_t t) const { return causal ? std::min(t + 1, Tk) : Tk; }
    Explanation score(std::size_t n, std::size_t t, std::size_t j) const {
        return dot(q + lq.base(n) + t * lq.row, 1, k + lk.base(n) + j * lk.row, 1, d, true, scale);
    }
    Explanation weight(std::size_t n, std::size_t t, std::size_t j) const {
        return causal_row_softmax(scores + (n * Tq + t) * Tk, Tk, visible(t), j);
    }
    Explanation out(std::size_t n, std::size_t t, std::size_t c) const {
        return output_sum(weights + (n * Tq + t) * Tk, v + lv.base(n) + c, lv.row, visible(t));
    }
};

const OptionSet& mha_inputs() {
    static const OptionSet set = detail::joined({&kX}, mha_option_set());
    return set;
}

Explanation explain_mha(const std::string& quantity, const std::vector<double>& at, const Options& opts) {
    one_of(quantity, {"q", "k", "v", "scores", "weights", "out"});
    detail::OptionReader r(opts, kFn, mha_inputs());
    const Tensor& x = *r.tensor(kX, "(B, T, C)");
    const MhaOptions o = detail::read_mha_options(r);
    r.finish();
    return mha_cell(x, o, quantity, at, "multiHeadAttention " + quantity);
}

const OptionSet& sdpa_inputs() {
    static const OptionSet set = detail::joined({&detail::kSdpaQ, &detail::kSdpaK, &detail::kSdpaV}, sdpa_option_set());
    return set;
}

Explanation explain_sdpa(const std::string& quantity, const std::vector<double>& at, const Options& opts) {
    one_of(quantity, {"scores", "weights", "out"});
    detail::OptionReader r(opts, kFn, sdpa_inputs());
    const Tensor& q = *r.tensor(detail::kSdpaQ, "(..., Tq, d)");
    const Tensor& k = *r.tensor(detail::kSdpaK, "(..., Tk, d)");
    const Tensor& v = *r.tensor(detail::kSdpaV, "(..., Tk, dv)");
    const SdpaOptions o = detail::read_sdpa_options(r);
    r.finish();
    const SdpaResult res = sdpa(q, k, v, o);
    const std::size_t rank = q.dimension(), Tq = q.shape()[rank - 2], d = q.shape()[rank - 1], Tk = k.shape()[rank - 2],
                      dv = v.shape()[rank - 1];
    const Attention a{q.data(), k.data(), v.data(), res.scores.data(), res.weights.data(),
                      detail::dense(Tq, d), detail::dense(Tk, d), detail::dense(Tk, dv), Tq, Tk, d, o.scale.factor(d, d), o.causal};
    const Tensor& cell = quantity == "scores" ? res.scores : quantity == "weights" ? res.weights : res.out;
    const Shape s = detail::shape_of(cell);
    const auto ix = checked_at(at, s);
    const std::size_t n = group(s, ix), t = ix[rank - 2], j = ix[rank - 1];
    const Explanation e = quantity == "scores" ? a.score(n, t, j) : quantity == "weights" ? a.weight(n, t, j) : a.out(n, t, j);
    return checked(e, cell.data()[flat(s, ix)], "sdpa " + quantity);
}

}  // namespace

Explanation mha_cell(const Tensor& x, const MhaOptions& o, const std::string& quantity, const std::vector<double>& at,
                     const std::string& what) {
    const MhaResult res = multi_head_attention(x, o);   // every check, and the cells to match
    const Tensor& src = o.has_memory ? o.memory : x;
    const std::size_t T = x.shape()[1], C = x.shape()[2], D = o.wq.shape()[1], NH = o.heads, hs = D / NH,
                      Tk = src.shape()[1];
    if (quantity == "q" || quantity == "k" || quantity == "v") {
        // (B, T, C) x (C, D): gemm_acc adds x[b, t, c] * w[c, i] over c in order, from 0.0
        const Tensor& out = quantity == "q" ? res.q : quantity == "k" ? res.k : res.v;
        const Tensor& in = quantity == "q" ? x : src;
        const Tensor& w = quantity == "q" ? o.wq : quantity == "k" ? o.wk : o.wv;
        const Shape s = detail::shape_of(out);
        const auto ix = checked_at(at, s);   // [b, t, i]
        return checked(dot(in.data() + (ix[0] * s[1] + ix[1]) * C, 1, w.data() + ix[2], D, C, false, 1.0),
                       out.data()[flat(s, ix)], what);
    }
    // head h of (B, T, NH * hs) is the column block h*hs .. (h+1)*hs-1, as in mha.cpp's forward
    const Attention a{res.q.data(), res.k.data(), res.v.data(), res.scores.data(), res.weights.data(),
                      {NH, T * D, hs, D}, {NH, Tk * D, hs, D}, {NH, Tk * D, hs, D}, T, Tk, hs, o.scale.factor(hs, C), o.causal};
    if (quantity == "out") {
        const Shape s = detail::shape_of(res.out);
        const auto ix = checked_at(at, s);   // [b, t, i]: head i / hs, its column i % hs
        return checked(a.out(ix[0] * NH + ix[2] / hs, ix[1], ix[2] % hs), res.out.data()[flat(s, ix)], what);
    }
    const Shape s = detail::shape_of(res.scores);   // (B, NH, T, Tk)
    const auto ix = checked_at(at, s);
    const std::size_t n = ix[0] * NH + ix[1];
    if (quantity == "scores") return checked(a.score(n, ix[2], ix[3]), res.scores.data()[flat(s, ix)], what);
    return checked(a.weight(n, ix[2], ix[3]), res.weights.data()[flat(s, ix)], what);
}

const Explained kMha{"multiHeadAttention", mha_inputs, explain_mha};
const Explained kSdpa{"sdpa", sdpa_inputs, explain_sdpa};

}  // namespace attn::provenance
