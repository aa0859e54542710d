// Provenance of 18.7: gradcheck's analytic gradients as sdpa_backward_kernel sums them, beside
// gradcheck's central difference of the same entry; the future probe's change; a dropout entry.
#include <algorithm>
#include <cmath>

#include "explain.hpp"
#include "kernels.hpp"

namespace attn::provenance {

namespace {

// One (batch, head) group of sdpa's backward, as sdpa_backward_kernel computes it: Q (Tq, d),
// K (Tk, d), V (Tk, dv), G = dL/dY (Tq, dv) and the forward's weights A (Tq, Tk).
struct Backward {
    const double *q, *k, *v, *g, *w;
    std::size_t Tq, Tk, d, dv;
    double scale;
    bool causal;
    std::size_t visible(std::size_t t) const { return causal ? std::min(t + 1, Tk) : Tk; }
    // dA[t, j] = dot2(dY[t], V[j])
    double dA(std::size_t t, std::size_t j) const { return detail::dot2(g + t * dv, v + j * dv, dv); }
    // rowdot[t] = sum over the visible j of dA[t, j] A[t, j], in order
    double rowdot(std::size_t t) const {
        double dot = 0.0;
        for (std::size_t j = 0; j < visible(t); ++j) dot += dA(t, j) * w[t * Tk + j];
        return dot;
    }
    Explanation gradient(std::size_t input, std::size_t row, std::size_t col) const;
};

// Entry [row, col] of dQ (input 0), dK (1) or dV (2), its terms in the kernel's order.
Explanation Backward::gradient(std::size_t input, std::size_t row, std::size_t col) const {
    Explanation e;
    e.grad_scale = scale;
    double sum = 0.0;   // added as the kernel adds into the zeroed gradient
    auto term = [&](std::size_t src, double a, double da, double dot, double other) {
        const double ds = a * (da - dot) * scale;
        e.grad_weight.push_back(a);
        e.grad_dweight.push_back(da);
        e.grad_rowdot.push_back(dot);
        e.left.push_back(ds);
        e.right.push_back(other);
        e.terms.push_back(ds * other);
        e.source.push_back(src);
        if (ds != 0.0) sum += ds * other;   // a dS of 0 adds nothing (the kernel skips it, or adds +-0 to a sum that is not -0)
    };
    if (input == 0) {   // dQ[t, c] = sum over visible j of dS[t, j] K[j, c]
        const double dot = rowdot(row);
        for (std::size_t j = 0; j < visible(row); ++j) term(j, w[row * Tk + j], dA(row, j), dot, k[j * d + col]);
    } else if (input == 1) {   // dK[j, c] = sum over the queries t that see j of dS[t, j] Q[t, c], t in order
        for (std::size_t t = 0; t < Tq; ++t)
            if (row < visible(t)) term(t, w[t * Tk + row], dA(t, row), rowdot(t), q[t * d + col]);
    } else {   // dV[j, c] = sum over the queries t that see j of A[t, j] dY[t, c], t in order
        for (std::size_t t = 0; t < Tq; ++t)
            if (row < visible(t)) {
                const double p = w[t * Tk + row] * g[t * dv + col];
                e.left.push_back(w[t * Tk + row]);
                e.right.push_back(g[t * dv + col]);
                e.terms.push_back(p);
                e.source.push_back(t);
                sum += p;
            }
    }
    e.sum = e.value = sum;
    return e;
}

Explanation explain_gradcheck(const std::string& quantity, const std::vector<double>& at, const Options& opts) {
    one_of(quantity, {"dq", "dk", "dv"});
    const auto in = detail::read_options(opts, kFn, gradcheck_sdpa_option_set(), detail::read_gradcheck_sdpa_options);   // as gradcheck('sdpa')
    const Tensor &q = in.q, &k = in.k, &v = in.v;
    const SdpaResult fwd = sdpa(q, k, v, in.opts);   // every check
    const Tensor G = randn(detail::shape_of(fwd.out), in.seed);   // dL/dout, as gradcheck draws it
    const SdpaGrads grads = sdpa_backward(q, k, v, G, in.opts);
    const std::size_t rank = q.dimension(), Tq = q.shape()[rank - 2], d = q.shape()[rank - 1], Tk = k.shape()[rank - 2],
                      dv = v.shape()[rank - 1];
    const std::size_t input = quantity == "dq" ? 0 : quantity == "dk" ? 1 : 2;
    const Tensor& cell = input == 0 ? grads.dq : input == 1 ? grads.dk : grads.dv;
    const Shape s = detail::shape_of(cell);
    const auto ix = checked_at(at, s);
    const std::size_t n = group(s, ix);
    const Backward b{q.data() + n * Tq * d, k.data() + n * Tk * d, v.data() + n * Tk * dv, G.data() + n * Tq * dv,
                     fwd.weights.data() + n * Tq * Tk, Tq, Tk, d, dv, in.opts.scale.factor(d, d), in.opts.causal};
    Explanation e = b.gradient(input, ix[rank - 2], ix[rank - 1]);
    // gradcheck's numerical derivative of the same entry (the same function gradcheck calls)
    std::vector<Tensor> inputs{q, k, v};
    const detail::CentralDifference cd = detail::central_difference(
        inputs, input, flat(s, ix), 1e-6, [&](const std::vector<Tensor>& x) { return detail::sdpa_loss(x, G, in.opts); });
    e.has_numeric = true;
    e.loss_plus = cd.plus;
    e.loss_minus = cd.minus;
    e.eps = 1e-6;
    e.numeric = cd.numeric;
    return checked(e, cell.data()[flat(s, ix)], "gradcheck " + quantity);
}

const OptionSet& probe_inputs() {
    static const OptionSet set = detail::joined({&kX}, future_probe_option_set());
    return set;
}

Explanation explain_probe(const std::string& quantity, const std::vector<double>& at, const Options& opts) {
    one_of(quantity, {"change"});
    detail::OptionReader r(opts, kFn, probe_inputs());
    const Tensor& x = *r.tensor(kX, "(B, T, C)");
    const detail::FutureProbeInputs in = detail::read_future_probe_options(r);
    r.finish();
    const FutureProbeResult res = future_probe(x, in.mha, in.t, in.seed);   // every check
    const Shape s = detail::shape_of(res.change);
    const auto ix = checked_at(at, s);
    const std::size_t f = flat(s, ix);
    Explanation e;
    e.kind = Explanation::Kind::AbsDiff;
    e.left = {multi_head_attention(detail::changed_future(x, in.t, in.seed), in.mha).out.data()[f], multi_head_attention(x, in.mha).out.data()[f]};
    e.value = std::fabs(e.left[0] - e.left[1]);
    return checked(e, res.change.data()[f], "futureProbe change");
}

const OptionSet& dropout_inputs() {
    static const OptionSet set = detail::joined({&kX}, dropout_option_set());
    return set;
}

Explanation explain_dropout(const std::string& quantity, const std::vector<double>& at, const Options& opts) {
    one_of(quantity, {"out"});
    detail::OptionReader r(opts, kFn, dropout_inputs());
    const Tensor& x = *r.tensor(kX);
    const detail::DropoutInputs in = detail::read_dropout_options(r);
    r.finish();
    const Tensor y = dropout(x, in.p, in.training, in.seed);   // every check
    const Shape s = detail::shape_of(y);
    const auto ix = checked_at(at, s);
    const std::size_t f = flat(s, ix);
    Explanation e;
    e.kind = Explanation::Kind::Dropout;
    e.left = {x.data()[f]};
    e.p = in.p;
    e.training = in.training && in.p != 0.0;
    if (!e.training) {
        e.value = e.left[0];   // the identity
    } else {
        // dropout draws one uniform per entry, in order: entry f's is the (f + 1)-th
        detail::Rng rng(in.seed);
        for (std::size_t i = 0; i <= f; ++i) e.draw = rng.uniform();
        e.scale = 1.0 / (1.0 - in.p);
        e.kept = !(e.draw < in.p);
        e.value = e.kept ? e.left[0] * e.scale : 0.0;
    }
    return checked(e, y.data()[f], "dropout out");
}

}  // namespace

const Explained kGradcheck{"gradcheck", gradcheck_sdpa_option_set, explain_gradcheck};
const Explained kProbe{"futureProbe", probe_inputs, explain_probe};
const Explained kDropout{"dropout", dropout_inputs, explain_dropout};

}  // namespace attn::provenance
