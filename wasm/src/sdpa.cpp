// 18.3 scaled dot-product attention, its backward pass, and the nn.Linear layout helper.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "internal.hpp"
#include "kernels.hpp"

namespace attn {

namespace detail {

// srow[j] = q . k_j * scale for j < n: four keys per pass (dot2x4), the rest one at a time (dot2),
// the same bits either way; the forward kernel's scores and visible_scores'
static void score_row(const double* qrow, const double* kn, std::size_t krow, std::size_t d, double scale, double* srow,
                      std::size_t n) {
    std::size_t j = 0;
    for (; j + 4 <= n; j += 4) dot2x4(qrow, kn + j * krow, krow, d, scale, srow + j);
    for (; j < n; ++j) srow[j] = dot2(qrow, kn + j * krow, d) * scale;
}

bool sdpa_forward_kernel(const double* q, const double* k, const double* v, std::size_t N,
                         std::size_t Tq, std::size_t Tk, std::size_t d, std::size_t dv,
                         double scale, bool causal, double* scores, double* weights, double* out,
                         RowLayout lq, RowLayout lk, RowLayout lv, RowLayout lo, bool weights_row) {
    // finite stays 0 while every score not kept is finite (inf * 0 and NaN * 0 are NaN): no branch
    double finite = 0.0;
    for (std::size_t n = 0; n < N; ++n) {
        const double* qn = q + lq.base(n);
        const double* kn = k + lk.base(n);
        const double* vn = v + lv.base(n);
        double* on = out ? out + lo.base(n) : nullptr;
        for (std::size_t i = 0; i < Tq; ++i) {
            double* wrow = weights_row ? weights : weights + (n * Tq + i) * Tk;   // one reused row, or (N, Tq, Tk)
            double* srow = scores ? scores + (n * Tq + i) * Tk : wrow;   // no scores kept: work in the weights' row
            const std::size_t visible = causal ? std::min(i + 1, Tk) : Tk;
            // S = Q K^T * scale   (Tq, d) x (d, Tk) -> (Tq, Tk); the masked ones only when kept
            score_row(qn + i * lq.row, kn, lk.row, d, scale, srow, scores ? Tk : visible);
            // A = softmax(S + M): the mask is -inf before the softmax, so the future gets
            // exactly zero weight and the visible entries still sum to 1. j <= i keeps j = 0.
            double mx = srow[0];
            for (std::size_t j = 1; j < visible; ++j) mx = std::max(mx, srow[j]);
            if (!scores)
                for (std::size_t j = 0; j < visible; ++j) finite += srow[j] * 0.0;
            double sum = 0.0;
            for (std::size_t j = 0; j < visible; ++j) {
                wrow[j] = std::exp(srow[j] - mx);
                sum += wrow[j];
            }
            for (std::size_t j = 0; j < visible; ++j) wrow[j] /= sum;
            if (!weights_row)   // a kept row: the masked weights are 0 (a reused row is read up to `visible` only)
                for (std::size_t j = visible; j < Tk; ++j) wrow[j] = 0.0;
            if (!on) continue;
            // Y = A V   (Tq, Tk) x (Tk, dv) -> (Tq, dv), four rows of V per pass over the output row
            // (added in the order j = 0, 1, 2, ...: the same bits as one row at a time)
            double* orow = on + i * lo.row;
            for (std::size_t c = 0; c < dv; ++c) orow[c] = 0.0;
            std::size_t j = 0;
            for (; j + 4 <= visible; j += 4) {
                const double a0 = wrow[j], a1 = wrow[j + 1], a2 = wrow[j + 2], a3 = wrow[j + 3];
                const double *v0 = vn + j * lv.row, *v1 = v0 + lv.row, *v2 = v1 + lv.row, *v3 = v2 + lv.row;
                axpy4(orow, a0, a1, a2, a3, v0, v1, v2, v3, dv);
            }
            for (; j < visible; ++j) axpy(orow, wrow[j], vn + j * lv.row, dv);
        }
    }
    return finite == 0.0;
}

void visible_scores(const double* q, const double* k, std::size_t N, std::size_t Tq, std::size_t Tk, std::size_t d,
                    double scale, bool causal, double* scores, RowLayout lq, RowLayout lk) {
    for (std::size_t n = 0; n < N; ++n)
        for (std::size_t i = 0; i < Tq; ++i) {
            double* srow = scores + (n * Tq + i) * Tk;
            const std::size_t visible = causal ? std::min(i + 1, Tk) : Tk;
            score_row(q + lq.base(n) + i * lq.row, k + lk.base(n), lk.row, d, scale, srow, visible);
            for (std::size_t j = visible; j < Tk; ++j) srow[j] = 0.0;
        }
}

void sdpa_backward_kernel(const double* q, const double* k, const double* v, const double* weights,
                          const double* dout, std::size_t N, std::size_t Tq, std::size_t Tk,
                          std::size_t d, std::size_t dv, double scale, bool causal, double* dq, double* dk,
                          double* dvv, RowLayout lq, RowLayout lk, RowLayout lv, RowLayout lo) {
    std::vector<double> dw(Tk);
    for (std::size_t n = 0; n < N; ++n) {
        const double* qn = q + lq.base(n);
        const double* kn = k + lk.base(n);
        const double* vn = v + lv.base(n);
        const double* gn = dout + lo.base(n);
        double* dqn = dq + lq.base(n);
        double* dkn = dk + lk.base(n);
        double* dvn = dvv + lv.base(n);
        for (std::size_t i = 0; i < Tq; ++i) {
            const double* wrow = weights + (n * Tq + i) * Tk;
            const double* grow = gn + i * lo.row;
            // masked columns have weight exactly 0: their terms below vanish, so skip them
            const std::size_t visible = causal ? std::min(i + 1, Tk) : Tk;
            // backward of Y = A V: dA = dY V^T (four rows of V at a time, each dot product summed
            // as dot2 sums it), dV += A^T dY
            std::size_t j = 0;
            for (; j + 4 <= visible; j += 4) dot2x4(grow, vn + j * lv.row, lv.row, dv, 1.0, dw.data() + j);
            for (; j < visible; ++j) dw[j] = dot2(grow, vn + j * lv.row, dv);
            double dot = 0.0;
            for (j = 0; j < visible; ++j) {
                dot += dw[j] * wrow[j];
                axpy(dvn + j * lv.row, wrow[j], grow, dv);
            }
            // backward of A = softmax(S + M): dS = A * (dA - sum(dA * A)); masked A = 0 gives dS = 0
            // backward of S = Q K^T * scale: dQ += dS K * scale, dK += dS^T Q * scale
            const double* qrow = qn + i * lq.row;
            double* dqrow = dqn + i * lq.row;
            // dS goes into dw (dA is not read again); dK row by row, a dS of 0 skipped; dQ four rows
            // of K at a time, in the order j = 0, 1, 2, ..., zeros included: the same bits as the
            // skipping order, because K is finite (the projections are checked) and dQ starts at +0,
            // so a sum of these terms is never -0 and adding a product that is +-0 leaves it as it is
            for (j = 0; j < visible; ++j) {
                const double ds = wrow[j] * (dw[j] - dot) * scale;
                dw[j] = ds;
                if (ds == 0.0) continue;
                axpy(dkn + j * lk.row, ds, qrow, d);
            }
            for (j = 0; j + 4 <= visible; j += 4) {
                const double* k0 = kn + j * lk.row;
                axpy4(dqrow, dw[j], dw[j + 1], dw[j + 2], dw[j + 3], k0, k0 + lk.row, k0 + 2 * lk.row, k0 + 3 * lk.row, d);
            }
            for (; j < visible; ++j) axpy(dqrow, dw[j], kn + j * lk.row, d);
        }
    }
}

}  // namespace detail

namespace detail {

SdpaDims check_sdpa(const Tensor& q, const Tensor& k, const Tensor& v, const SdpaOptions& opts, std::string_view fn) {
    detail::require_rank({fn, "q"}, q, 2, kMaxRank, "(..., Tq, d)");
    detail::require_rank({fn, "k"}, k, 2, kMaxRank, "(..., Tk, d)");
    detail::require_rank({fn, "v"}, v, 2, kMaxRank, "(..., Tk, dv)");
    const Shape qs = shape_of(q), ks = shape_of(k), vs = shape_of(v);
    const std::size_t r = qs.size();
    for (const auto& [name, s] : {std::pair{"k", &ks}, std::pair{"v", &vs}})
        if (s->size() != r || !std::equal(qs.begin(), qs.end() - 2, s->begin()))
            throw Error(ErrorCode::leading_axes, {{"fn", fn}, {"arg", name}, {"shape", *s}, {"other", "q"}, {"otherShape", qs}});
    SdpaDims D;
    D.lead = Shape(qs.begin(), qs.end() - 2);
    D.N = detail::product(D.lead);
    D.Tq = qs[r - 2];
    D.d = qs[r - 1];
    D.Tk = ks[r - 2];
    D.dv = vs[r - 1];
    if (ks[r - 1] != D.d)
        throw Error(ErrorCode::axis_mismatch, {{"fn", fn}, {"arg", "k"}, {"layout", "(..., Tk, d)"}, {"axis", "d"}, {"size", D.d},
                                               {"shape", ks}, {"other", "q"}, {"otherAxis", -1}, {"otherShape", qs}});
    if (vs[r - 2] != D.Tk)
        throw Error(ErrorCode::axis_mismatch, {{"fn", fn}, {"arg", "v"}, {"layout", "(..., Tk, dv)"}, {"axis", "Tk"}, {"size", D.Tk},
                                               {"shape", vs}, {"other", "k"}, {"otherAxis", -2}, {"otherShape", ks}});
    if (opts.scale.kind == Scale::Kind::Model) throw Error(ErrorCode::scale_needs_width, {{"fn", fn}});
    detail::require_finite({fn, "q"}, q);
    detail::require_finite({fn, "k"}, k);
    detail::require_finite({fn, "v"}, v);
    if (D.N * D.Tq * D.Tk > kMaxElements) {
        Shape ss = D.lead;
        ss.push_back(D.Tq);
        ss.push_back(D.Tk);
        detail::too_large({fn, "scores"}, "(..., Tq, Tk)", ss);
    }
    return D;
}

}  // namespace detail

namespace {
using detail::SdpaDims;
using detail::check_sdpa;
using detail::shape_of;

Shape with_tail(Shape lead, std::size_t a, std::size_t b) {
    lead.push_back(a);
    lead.push_back(b);
    return lead;
}

}  // namespace

namespace {
constexpr OptionSpec kCausal{"causal", OptionKind::boolean, "true: query t sees keys 0..t only (top-left aligned); false (the default): every key"};
constexpr const char* kScales[] = {"head", "none"};
constexpr OptionSpec kScale{"scale", OptionKind::number_or_choice, "what q.k is multiplied by: 'head' (the default, 1/sqrt(d)), 'none' (1) or a number",
                            kScales};
}  // namespace

const OptionSet& sdpa_option_set() {
    static const OptionSet set{&kCausal, &kScale};
    return set;
}

SdpaOptions detail::read_sdpa_options(detail::OptionReader& r) {
    SdpaOptions o;
    o.causal = r.boolean(kCausal, false);
    o.scale = r.scale(kScale);
    return o;
}
using detail::read_sdpa_options;

SdpaResult sdpa(const Tensor& q, const Tensor& k, const Tensor& v, const SdpaOptions& opts) {
    const SdpaDims D = check_sdpa(q, k, v, opts, "sdpa");
    const double scale = opts.scale.factor(D.d, D.d);
    SdpaResult res;
    res.scores = Tensor::from_shape(with_tail(D.lead, D.Tq, D.Tk));
    res.weights = Tensor::from_shape(with_tail(D.lead, D.Tq, D.Tk));
    res.out = Tensor::from_shape(with_tail(D.lead, D.Tq, D.dv));
    detail::sdpa_forward_kernel(q.data(), k.data(), v.data(), D.N, D.Tq, D.Tk, D.d, D.dv, scale,
                                opts.causal, res.scores.data(), res.weights.data(), res.out.data());
    detail::require_no_overflow("sdpa", "scores", "q.k * scale", res.scores);
    detail::require_no_overflow("sdpa", "outputs", "", res.out);
    return res;
}

SdpaResult sdpa(const Tensor& q, const Tensor& k, const Tensor& v, const Options& opts) {
    return sdpa(q, k, v, detail::read_options(opts, "sdpa", sdpa_option_set(), read_sdpa_options));
}

SdpaGrads sdpa_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& grad_out,
                        const SdpaOptions& opts) {
    const SdpaDims D = check_sdpa(q, k, v, opts, "sdpaBackward");
    const Shape want = with_tail(D.lead, D.Tq, D.dv);
    if (shape_of(grad_out) != want)
        throw Error(ErrorCode::shape_mismatch, {{"fn", "sdpaBackward"}, {"arg", "gradOut"}, {"layout", "(..., Tq, dv)"},
                                                {"expectedShape", want}, {"shape", shape_of(grad_out)}});
    detail::require_finite({"sdpaBackward", "gradOut"}, grad_out);
    const double scale = opts.scale.factor(D.d, D.d);
    // the forward keeps what the backward needs, the weights: no scores kept (the masked ones not
    // computed) and no output
    Tensor weights = Tensor::from_shape(with_tail(D.lead, D.Tq, D.Tk));
    if (!detail::sdpa_forward_kernel(q.data(), k.data(), v.data(), D.N, D.Tq, D.Tk, D.d, D.dv, scale, opts.causal, nullptr,
                                     weights.data(), nullptr, detail::dense(D.Tq, D.d), detail::dense(D.Tk, D.d),
                                     detail::dense(D.Tk, D.dv), detail::dense(D.Tq, D.dv))) {
        Tensor scores = Tensor::from_shape(with_tail(D.lead, D.Tq, D.Tk));   // a visible score overflowed: name it
        detail::visible_scores(q.data(), k.data(), D.N, D.Tq, D.Tk, D.d, scale, opts.causal, scores.data(), detail::dense(D.Tq, D.d),
                               detail::dense(D.Tk, D.d));
        detail::score_overflow("sdpaBackward", scores);
    }
    SdpaGrads g;
    g.dq = xt::zeros<double>(q.shape());
    g.dk = xt::zeros<double>(k.shape());
    g.dv = xt::zeros<double>(v.shape());
    detail::sdpa_backward_kernel(q.data(), k.data(), v.data(), weights.data(), grad_out.data(), D.N,
                                 D.Tq, D.Tk, D.d, D.dv, scale, opts.causal, g.dq.data(), g.dk.data(), g.dv.data(),
                                 detail::dense(D.Tq, D.d), detail::dense(D.Tk, D.d), detail::dense(D.Tk, D.dv),
                                 detail::dense(D.Tq, D.dv));
    detail::require_no_overflow("sdpaBackward", "gradients", "dq", g.dq);
    detail::require_no_overflow("sdpaBackward", "gradients", "dk", g.dk);
    detail::require_no_overflow("sdpaBackward", "gradients", "dv", g.dv);
    return g;
}

SdpaGrads sdpa_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& grad_out,
                        const Options& opts) {
    const SdpaOptions o = detail::read_options(opts, "sdpaBackward", sdpa_option_set(), read_sdpa_options);
    return sdpa_backward(q, k, v, grad_out, o);
}

static Tensor transpose2d(const Tensor& w, const char* fn, const char* layout) {
    detail::require_rank({fn, "w"}, w, 2, 2, layout);
    detail::require_finite({fn, "w"}, w);
    const std::size_t a = w.shape()[0], b = w.shape()[1];
    Tensor t = Tensor::from_shape({b, a});
    for (std::size_t i = 0; i < a; ++i)
        for (std::size_t j = 0; j < b; ++j) t(j, i) = w(i, j);
    return t;
}

Tensor linear_weight_to_math(const Tensor& w) {
    return transpose2d(w, "linearWeightToMath", "(d, C)");   // nn.Linear storage
}
Tensor math_weight_to_linear(const Tensor& w) {
    return transpose2d(w, "mathWeightToLinear", "(C, d)");   // math layout
}

// ---- the plain reference: loops from the textbook formulas, sharing no code with the kernel above
// (18.7 compares the two) ------------------------------------------------------------------------
SdpaResult sdpa_reference(const Tensor& q, const Tensor& k, const Tensor& v, const SdpaOptions& opts) {
    const detail::SdpaDims D = detail::check_sdpa(q, k, v, opts, "sdpaReference");
    const std::size_t Tq = D.Tq, d = D.d, Tk = D.Tk, dv = D.dv, N = D.N;
    const double scale = opts.scale.factor(d, d), ninf = -std::numeric_limits<double>::infinity();
    Shape ws = D.lead, os = D.lead;
    ws.insert(ws.end(), {Tq, Tk});
    os.insert(os.end(), {Tq, dv});
    SdpaResult res;
    res.scores = Tensor::from_shape(ws);
    res.weights = Tensor::from_shape(ws);
    res.out = xt::zeros<double>(os);
    for (std::size_t n = 0; n < N; ++n) {
        // S = Q K^T * scale, then M: -inf where j > i
        std::vector<double> S(Tq * Tk);
        for (std::size_t i = 0; i < Tq; ++i)
            for (std::size_t j = 0; j < Tk; ++j) {
                double s = 0.0;
                for (std::size_t c = 0; c < d; ++c) s += q.data()[(n * Tq + i) * d + c] * k.data()[(n * Tk + j) * d + c];
                res.scores.data()[(n * Tq + i) * Tk + j] = s * scale;
                S[i * Tk + j] = (opts.causal && j > i) ? ninf : s * scale;
            }
        // A = softmax(S) row by row: exp(s - max) / sum
        for (std::size_t i = 0; i < Tq; ++i) {
            const double mx = *std::max_element(S.begin() + i * Tk, S.begin() + (i + 1) * Tk);
            double z = 0.0;
            for (std::size_t j = 0; j < Tk; ++j) z += std::exp(S[i * Tk + j] - mx);
            for (std::size_t j = 0; j < Tk; ++j) res.weights.data()[(n * Tq + i) * Tk + j] = std::exp(S[i * Tk + j] - mx) / z;
        }
        // Y = A V
        for (std::size_t i = 0; i < Tq; ++i)
            for (std::size_t c = 0; c < dv; ++c) {
                double y = 0.0;
                for (std::size_t j = 0; j < Tk; ++j) y += res.weights.data()[(n * Tq + i) * Tk + j] * v.data()[(n * Tk + j) * dv + c];
                res.out.data()[(n * Tq + i) * dv + c] = y;
            }
    }
    detail::require_no_overflow("sdpaReference", "scores", "q.k * scale", res.scores);
    detail::require_no_overflow("sdpaReference", "outputs", "", res.out);
    return res;
}

SdpaResult sdpa_reference(const Tensor& q, const Tensor& k, const Tensor& v, const Options& opts) {
    return sdpa_reference(q, k, v, detail::read_options(opts, "sdpaReference", sdpa_option_set(), read_sdpa_options));
}

}  // namespace attn
