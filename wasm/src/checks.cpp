// 18.4 statistics, 18.5 positions and the permutation check, 18.7 gradcheck, the future
// probe and dropout.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

#include "internal.hpp"

namespace attn {

using detail::fail;

namespace {
Shape shape_of(const Tensor& t) { return Shape(t.shape().begin(), t.shape().end()); }
const double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

// ---- 18.4 ------------------------------------------------------------------------------
RowStats attention_stats(const Tensor& w) {
    detail::require_rank("attentionStats: weights", w, 1, kMaxRank, "(..., Tk)");
    detail::require_finite("attentionStats: weights", w, false, /*allow_nan=*/true);
    for (std::size_t i = 0; i < w.size(); ++i) {
        const double v = w.data()[i];
        if (!std::isnan(v) && !(v >= 0.0 && v <= 1.0))
            fail("attentionStats: weights must lie in [0, 1] (or be NaN for a fully masked row), got " +
                 detail::num(v) + " at flat index " + std::to_string(i));
    }
    const Shape s = shape_of(w);
    const std::size_t n = s.back(), rows = w.size() / n;
    Shape rs(s.begin(), s.end() - 1);
    if (rs.empty()) rs.push_back(1);
    RowStats r{Tensor::from_shape(rs), Tensor::from_shape(rs)};
    for (std::size_t i = 0; i < rows; ++i) {
        double h = 0.0, mx = 0.0;
        for (std::size_t j = 0; j < n; ++j) {
            const double p = w.data()[i * n + j];
            if (p > 0.0) h -= p * std::log(p);   // 0 log 0 = 0
            mx = (std::isnan(p) || std::isnan(mx)) ? kNaN : std::max(mx, p);
        }
        r.entropy.data()[i] = std::isnan(mx) ? kNaN : h;
        r.max_weight.data()[i] = mx;
    }
    return r;
}

DotVariance dot_product_variance(const std::vector<double>& dims, double samples, double seed) {
    if (dims.empty() || dims.size() > 64)
        fail("dotProductVariance: dims must list 1 to 64 widths, got " + std::to_string(dims.size()));
    const std::size_t S = detail::to_index("dotProductVariance: samples", samples, 2, 1000000);
    detail::Rng rng(detail::to_seed("dotProductVariance: seed", seed));
    DotVariance out;
    double work = 0;
    for (double dd : dims) work += dd;
    if (work * double(S) > 5e7)
        fail("dotProductVariance: sum(dims) * samples = " + detail::num(work * double(S)) +
             " is more than the limit of 50000000");
    for (double dd : dims) {
        const std::size_t d = detail::to_index("dotProductVariance: each width in dims", dd, 1, 65536);
        double mean = 0.0, m2 = 0.0;   // Welford
        for (std::size_t s = 0; s < S; ++s) {
            double dot = 0.0;
            for (std::size_t c = 0; c < d; ++c) {
                const double a = rng.normal();
                dot += a * rng.normal();
            }
            const double delta = dot - mean;
            mean += delta / double(s + 1);
            m2 += delta * (dot - mean);
        }
        const double var = m2 / double(S - 1);
        out.dims.push_back(double(d));
        out.unscaled.push_back(var);
        out.scaled.push_back(var / double(d));   // Var(q.k / sqrt(d)) = Var(q.k) / d
    }
    return out;
}

Sharpening softmax_sharpening(const Tensor& logits, double factor) {
    detail::require_rank("softmaxSharpening: logits", logits, 1, 1, "a vector (n,)");
    detail::require_finite("softmaxSharpening: logits", logits);
    if (!std::isfinite(factor)) fail("softmaxSharpening: factor must be finite, got " + detail::num(factor));
    Tensor z = logits * factor;
    detail::require_finite("softmaxSharpening: logits * factor", z);
    SoftmaxOptions so;
    Sharpening r;
    r.weights = softmax(z, so).weights;
    const std::size_t n = logits.size();
    r.jacobian = Tensor::from_shape({n, n});
    double frob = 0.0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            const double pi = r.weights(i), pj = r.weights(j);
            const double v = (i == j ? pi : 0.0) - pi * pj;   // d p_i / d z_j
            r.jacobian(i, j) = v;
            frob += v * v;
        }
    r.jacobian_norm = std::sqrt(frob);
    const RowStats st = attention_stats(r.weights);
    r.entropy = st.entropy(0);
    r.max_weight = st.max_weight(0);
    return r;
}

// ---- 18.5 ------------------------------------------------------------------------------
Tensor positions(PositionKind kind, std::size_t T, std::size_t C, const PositionOptions& opts) {
    if (T < 1 || C < 1) fail("positions: T and C must be >= 1, got T = " + std::to_string(T) +
                             ", C = " + std::to_string(C));
    if (kind == PositionKind::Learned) {
        if (opts.t_max < 1) fail("positions: tMax must be >= 1, got 0");
        if (T > opts.t_max)
            fail("positions: T = " + std::to_string(T) + " is past the learned table's tMax = " +
                 std::to_string(opts.t_max) + " rows; a learned table has no row for position " +
                 std::to_string(opts.t_max));
        if (opts.t_max * C > kMaxElements) detail::size_error("positions: table (tMax, C) = " + shape_str({opts.t_max, C}), opts.t_max * C);
        const Tensor table = randn({opts.t_max, C}, opts.seed);   // (tMax, C)
        Tensor out = Tensor::from_shape({T, C});
        std::copy(table.data(), table.data() + T * C, out.data());  // rows 0..T-1
        return out;
    }
    if (T * C > kMaxElements) detail::size_error("positions: (T, C) = " + shape_str({T, C}), T * C);
    Tensor pe = Tensor::from_shape({T, C});
    for (std::size_t t = 0; t < T; ++t)
        for (std::size_t c = 0; c < C; ++c) {
            const double i2 = double(c - c % 2);   // 2i
            const double angle = double(t) / std::pow(10000.0, i2 / double(C));
            pe(t, c) = c % 2 == 0 ? std::sin(angle) : std::cos(angle);
        }
    return pe;
}

Tensor positions(const std::string& kind, double T, double C, const Options& opts) {
    detail::OptionReader r(opts, "positions");
    PositionOptions po;
    po.t_max = detail::to_index("positions: option 'tMax'", r.number("tMax", 64), 1, kMaxElements);
    po.seed = detail::to_seed("positions: option 'seed'", r.number("seed", 0));
    r.finish();
    if (kind != "learned" && kind != "sinusoidal")
        fail("positions: kind must be 'learned' or 'sinusoidal', got '" + kind + "'");
    return positions(kind == "learned" ? PositionKind::Learned : PositionKind::Sinusoidal,
                     detail::to_index("positions: T", T, 1, kMaxElements),
                     detail::to_index("positions: C", C, 1, kMaxElements), po);
}

PermutationResult permutation_check(const Tensor& x, const PermutationOptions& opts) {
    if (opts.mha.has_memory) fail("permutationCheck: self-attention only; remove the option 'memory'");
    detail::require_rank("permutationCheck: x", x, 3, 3, "(B, T, C)");
    const std::size_t B = x.shape()[0], T = x.shape()[1], C = x.shape()[2];
    Tensor pos = xt::zeros<double>(Shape{T, C});
    if (opts.use_positions) pos = positions(opts.position_kind, T, C, opts.pos);
    PermutationResult res;
    // A uniformly random permutation other than the identity (which would compare attn(x) with
    // itself and show 0 whatever the model): Fisher-Yates, drawn again while it is the identity.
    // Rejection keeps the draw uniform over the T! - 1 others; at most 1/2 of draws are rejected
    // (T = 2), so about two draws at worst. T = 1 has only the identity.
    res.perm.resize(T);
    detail::Rng rng(opts.seed);
    for (bool identity = true; identity && T >= 2;) {
        std::iota(res.perm.begin(), res.perm.end(), std::size_t(0));
        for (std::size_t i = T; i-- > 1;) std::swap(res.perm[i], res.perm[rng.below(i + 1)]);  // Fisher-Yates
        identity = std::is_sorted(res.perm.begin(), res.perm.end());
    }
    if (T < 2) std::iota(res.perm.begin(), res.perm.end(), std::size_t(0));
    Tensor xin = Tensor::from_shape(x.shape()), xperm = Tensor::from_shape(x.shape());
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t c = 0; c < C; ++c) {
                xin(b, t, c) = x(b, t, c) + pos(t, c);                 // x + pos
                xperm(b, t, c) = x(b, res.perm[t], c) + pos(t, c);     // P x + pos
            }
    const Tensor y = multi_head_attention(xin, opts.mha).out;
    res.out_of_permuted = multi_head_attention(xperm, opts.mha).out;   // attn(P x + pos)
    const std::size_t D = y.shape()[2];
    res.permuted_out = Tensor::from_shape(y.shape());                  // P attn(x + pos)
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t e = 0; e < D; ++e) res.permuted_out(b, t, e) = y(b, res.perm[t], e);
    res.max_diff = max_abs_diff(res.out_of_permuted, res.permuted_out);
    res.permuted_input = std::move(xperm);
    return res;
}

PermutationResult permutation_check(const Tensor& x, const Options& opts) {
    detail::OptionReader r(opts, "permutationCheck");
    PermutationOptions po;
    po.mha = detail::read_mha_options(r);
    const std::string kind = r.string("positions", "none", {"none", "learned", "sinusoidal"});
    po.use_positions = kind != "none";
    po.position_kind = kind == "sinusoidal" ? PositionKind::Sinusoidal : PositionKind::Learned;
    po.pos.t_max = detail::to_index("permutationCheck: option 'tMax'", r.number("tMax", 64), 1, kMaxElements);
    po.seed = detail::to_seed("permutationCheck: option 'seed'", r.number("seed", 0));
    po.pos.seed = detail::to_seed("permutationCheck: option 'positionSeed'", r.number("positionSeed", 0));
    r.finish();
    return permutation_check(x, po);
}

// ---- 18.7 gradcheck ----------------------------------------------------------------------
namespace detail {

GradcheckResult run_gradcheck(const std::vector<std::string>& names, std::vector<Tensor> inputs,
                              const std::function<double(const std::vector<Tensor>&)>& loss,
                              const std::vector<Tensor>& analytic) {
    GradcheckResult res{true, 1e-6, 1e-5, 1e-3, {}};
    for (std::size_t a = 0; a < inputs.size(); ++a) {
        GradcheckInput gi{names[a], 0.0, 0.0, true};
        for (std::size_t i = 0; i < inputs[a].size(); ++i) {
            double& xi = inputs[a].data()[i];
            const double saved = xi;
            xi = saved + res.eps;
            const double lp = loss(inputs);
            xi = saved - res.eps;
            const double lm = loss(inputs);
            xi = saved;
            const double numeric = (lp - lm) / (2.0 * res.eps);
            const double err = std::fabs(analytic[a].data()[i] - numeric);
            const double ratio = err / (res.atol + res.rtol * std::fabs(numeric));
            gi.max_abs_error = std::max(gi.max_abs_error, err);
            gi.max_ratio = std::max(gi.max_ratio, ratio);
            if (!(ratio <= 1.0)) gi.passed = false;
        }
        res.passed = res.passed && gi.passed;
        res.inputs.push_back(gi);
    }
    return res;
}

}  // namespace detail

static double weighted_sum(const Tensor& out, const Tensor& g) {
    double s = 0.0;
    for (std::size_t i = 0; i < out.size(); ++i) s += out.data()[i] * g.data()[i];
    return s;
}

static void require_gradcheck_size(const std::string& fn, std::size_t n) {
    if (n > kMaxGradcheckElements)
        fail(fn + ": the inputs have " + std::to_string(n) + " elements; gradcheck perturbs each one, "
             "so it is limited to " + std::to_string(kMaxGradcheckElements));
}

GradcheckResult gradcheck_sdpa(const Tensor& q, const Tensor& k, const Tensor& v, const SdpaOptions& opts,
                               std::uint64_t seed) {
    const SdpaResult fwd = sdpa(q, k, v, opts);   // checks the shapes
    require_gradcheck_size("gradcheck", q.size() + k.size() + v.size());
    const Tensor G = randn(shape_of(fwd.out), seed);   // L = sum(out * G), dL/dout = G
    const SdpaGrads g = sdpa_backward(q, k, v, G, opts);
    return detail::run_gradcheck(
        {"q", "k", "v"}, {q, k, v},
        [&](const std::vector<Tensor>& in) { return weighted_sum(sdpa(in[0], in[1], in[2], opts).out, G); },
        {g.dq, g.dk, g.dv});
}

GradcheckResult gradcheck_mha(const Tensor& x, const MhaOptions& opts, std::uint64_t seed) {
    const MhaResult fwd = multi_head_attention(x, opts);   // checks the shapes
    std::size_t n = x.size() + opts.wq.size() + opts.wk.size() + opts.wv.size();
    if (opts.has_memory) n += opts.memory.size();
    require_gradcheck_size("gradcheck", n);
    const Tensor G = randn(shape_of(fwd.out), seed);
    const MhaGrads g = multi_head_attention_backward(x, G, opts);
    std::vector<std::string> names{"x", "wq", "wk", "wv"};
    std::vector<Tensor> inputs{x, opts.wq, opts.wk, opts.wv};
    std::vector<Tensor> analytic{g.dx, g.dwq, g.dwk, g.dwv};
    if (opts.has_memory) {
        names.push_back("memory");
        inputs.push_back(opts.memory);
        analytic.push_back(g.dmemory);
    }
    return detail::run_gradcheck(
        names, inputs,
        [&](const std::vector<Tensor>& in) {
            MhaOptions o = opts;
            o.wq = in[1];
            o.wk = in[2];
            o.wv = in[3];
            if (o.has_memory) o.memory = in[4];
            return weighted_sum(multi_head_attention(in[0], o).out, G);
        },
        analytic);
}

GradcheckResult gradcheck(const std::string& kind, const Options& opts) {
    detail::OptionReader r(opts, "gradcheck");
    if (kind == "sdpa") {
        const Tensor* q = r.tensor("q");
        const Tensor* k = r.tensor("k");
        const Tensor* v = r.tensor("v");
        if (!q || !k || !v) fail("gradcheck: kind 'sdpa' needs the options q, k and v (tensors)");
        SdpaOptions so;
        so.causal = r.boolean("causal", false);
        so.scale = r.scale("scale", {"head", "none"});
        const auto seed = detail::to_seed("gradcheck: option 'seed'", r.number("seed", 0));
        r.finish();
        return gradcheck_sdpa(*q, *k, *v, so, seed);
    }
    if (kind == "mha") {
        const Tensor* x = r.tensor("x");
        if (!x) fail("gradcheck: kind 'mha' needs the option x, a (B, T, C) tensor");
        const MhaOptions mo = detail::read_mha_options(r);
        const auto seed = detail::to_seed("gradcheck: option 'seed'", r.number("seed", 0));
        r.finish();
        return gradcheck_mha(*x, mo, seed);
    }
    fail("gradcheck: kind must be 'sdpa' or 'mha', got '" + kind + "'");
}

// ---- 18.7 future probe -----------------------------------------------------------------------
FutureProbeResult future_probe(const Tensor& x, const MhaOptions& opts, std::size_t t, std::uint64_t seed) {
    if (opts.has_memory) fail("futureProbe: self-attention only; remove the option 'memory'");
    const MhaResult base = multi_head_attention(x, opts);   // checks the shapes
    const std::size_t B = x.shape()[0], T = x.shape()[1], C = x.shape()[2];
    if (T < 2) fail("futureProbe: x needs T >= 2 positions so that a future exists, got x " + shape_str(shape_of(x)));
    if (t > T - 2)
        fail("futureProbe: t must be from 0 to T - 2 = " + std::to_string(T - 2) +
             " so that positions after t exist, got t = " + std::to_string(t));
    Tensor x2 = x;
    detail::Rng rng(seed);
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = t + 1; j < T; ++j)
            for (std::size_t c = 0; c < C; ++c) x2(b, j, c) += 1.0 + rng.normal();   // a different future
    const MhaResult changed = multi_head_attention(x2, opts);
    FutureProbeResult r{0.0, 0.0, xt::abs(changed.out - base.out)};
    const std::size_t D = base.out.shape()[2];
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t i = 0; i < T; ++i)
            for (std::size_t e = 0; e < D; ++e) {
                double& m = i <= t ? r.max_prefix_change : r.max_future_change;
                m = std::max(m, r.change(b, i, e));
            }
    return r;
}

FutureProbeResult future_probe(const Tensor& x, const Options& opts) {
    detail::OptionReader r(opts, "futureProbe");
    const MhaOptions mo = detail::read_mha_options(r);
    const double t = r.number("t", -1);
    if (!r.has("t")) fail("futureProbe: option 't' is required: the last position whose output is compared");
    const auto seed = detail::to_seed("futureProbe: option 'seed'", r.number("seed", 0));
    r.finish();
    return future_probe(x, mo, detail::to_index("futureProbe: option 't'", t, 0, kMaxElements), seed);
}

// ---- 18.7 dropout ----------------------------------------------------------------------------
static void check_p(const std::string& fn, double p) {
    if (!(p >= 0.0 && p < 1.0)) fail(fn + ": p must be in [0, 1), got " + detail::num(p));
}

Tensor dropout(const Tensor& x, double p, bool training, std::uint64_t seed) {
    detail::require_rank("dropout: x", x, 1, kMaxRank, "a tensor");
    detail::require_finite("dropout: x", x);
    check_p("dropout", p);
    if (!training || p == 0.0) return x;   // evaluation: the identity
    Tensor y = Tensor::from_shape(x.shape());
    detail::Rng rng(seed);
    const double keep = 1.0 / (1.0 - p);
    for (std::size_t i = 0; i < x.size(); ++i) y.data()[i] = rng.uniform() < p ? 0.0 : x.data()[i] * keep;
    detail::require_no_overflow("dropout: the kept values x / (1 - p)", y);
    return y;
}

Tensor dropout(const Tensor& x, const Options& opts) {
    detail::OptionReader r(opts, "dropout");
    const double p = r.number("p", 0.1);
    const bool training = r.boolean("training", true);
    const auto seed = detail::to_seed("dropout: option 'seed'", r.number("seed", 0));
    r.finish();
    return dropout(x, p, training, seed);
}

DropoutStats dropout_stats(const Tensor& w, double p, std::size_t samples, std::uint64_t seed, bool training) {
    detail::require_rank("dropoutStats: weights", w, 1, kMaxRank, "(..., Tk)");
    detail::require_finite("dropoutStats: weights", w);
    check_p("dropoutStats", p);
    if (samples < 1 || double(samples) * double(w.size()) > 5e7)
        fail("dropoutStats: samples must be >= 1 and samples * size <= 50000000, got samples = " +
             std::to_string(samples) + " for " + std::to_string(w.size()) + " weights");
    const Shape s = shape_of(w);
    const std::size_t n = s.back(), rows = w.size() / n;
    Shape rs(s.begin(), s.end() - 1);
    if (rs.empty()) rs.push_back(1);
    DropoutStats st{xt::zeros<double>(rs), xt::zeros<double>(rs)};
    detail::require_no_overflow("dropoutStats: the row sums of the weights", sum_along(w, -1));
    for (std::size_t k = 0; k < samples; ++k) {
        const Tensor y = dropout(w, p, training, seed + k);
        for (std::size_t i = 0; i < rows; ++i) {
            double sum = 0.0;
            for (std::size_t j = 0; j < n; ++j) sum += y.data()[i * n + j];
            if (k == 0) st.sample_row_sums.data()[i] = sum;
            st.mean_row_sums.data()[i] += sum / double(samples);
        }
    }
    detail::require_no_overflow("dropoutStats: the row sums", st.sample_row_sums);
    detail::require_no_overflow("dropoutStats: the mean row sums", st.mean_row_sums);
    return st;
}

DropoutStats dropout_stats(const Tensor& w, const Options& opts) {
    detail::OptionReader r(opts, "dropoutStats");
    const double p = r.number("p", 0.1);
    const std::size_t samples = detail::to_index("dropoutStats: option 'samples'", r.number("samples", 1000), 1, 10000000);
    const auto seed = detail::to_seed("dropoutStats: option 'seed'", r.number("seed", 0));
    const bool training = r.boolean("training", true);
    r.finish();
    return dropout_stats(w, p, samples, seed, training);
}

}  // namespace attn
