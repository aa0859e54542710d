// 18.4 statistics, 18.5 positions and the permutation check, 18.7 gradcheck, the future
// probe and dropout.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

#include "internal.hpp"

namespace attn {

namespace {
using detail::shape_of;
const double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

// ---- 18.4 ------------------------------------------------------------------------------
RowStats attention_stats(const Tensor& w) {
    detail::require_rank({"attentionStats", "weights"}, w, 1, kMaxRank, "(..., Tk)");
    detail::require_finite({"attentionStats", "weights"}, w, false, /*allow_nan=*/true);   // NaN: a fully masked row
    for (std::size_t i = 0; i < w.size(); ++i) {
        const double v = w.data()[i];
        if (!std::isnan(v) && !(v >= 0.0 && v <= 1.0))
            throw Error(ErrorCode::element_range, {{"fn", "attentionStats"}, {"arg", "weights"}, {"value", v},
                                                   {"index", detail::multi_index(w, i)}, {"range", "[0, 1]"}});
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
    const char* fn = "dotProductVariance";
    if (dims.empty() || dims.size() > 64)
        throw Error(ErrorCode::length_range, {{"fn", fn}, {"arg", "dims"}, {"length", dims.size()}, {"min", 1}, {"max", 64}});
    for (std::size_t i = 0; i < dims.size(); ++i)
        if (!detail::whole_in(dims[i], 1, 65536)) detail::to_index({fn, "dims[" + std::to_string(i) + "]"}, dims[i], 1, 65536);
    const std::size_t S = detail::to_index({fn, "opts.samples"}, samples, 2, 1000000);
    detail::Rng rng(detail::to_seed({fn, "opts.seed"}, seed));
    DotVariance out;
    double work = 0;
    for (double dd : dims) work += dd;
    if (work * double(S) > kMaxDraws)
        throw Error(ErrorCode::work_limit, {{"fn", fn}, {"quantity", "sum(dims) * samples"}, {"value", work * double(S)}, {"limit", kMaxDraws}});
    for (double dd : dims) {
        const std::size_t d = std::size_t(dd);
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

DotVariance dot_product_variance(const std::vector<double>& dims, const Options& opts) {
    detail::OptionReader r(opts, "dotProductVariance");
    const double samples = r.number("samples", 2000), seed = r.number("seed", 0);
    r.finish();
    return dot_product_variance(dims, samples, seed);
}

Sharpening softmax_sharpening(const Tensor& logits, double factor) {
    detail::require_rank({"softmaxSharpening", "logits"}, logits, 1, 1, "(n,)");
    detail::require_finite({"softmaxSharpening", "logits"}, logits);
    if (!std::isfinite(factor))
        throw Error(ErrorCode::number_range, {{"fn", "softmaxSharpening"}, {"arg", "factor"}, {"value", factor}, {"range", "(-Infinity, Infinity)"}});
    Tensor z = logits * factor;
    detail::require_no_overflow("softmaxSharpening", "scaled logits", "factor * logits", z);
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
    if (T < 1) detail::to_index({"positions", "T"}, 0, 1, kMaxElements);
    if (C < 1) detail::to_index({"positions", "C"}, 0, 1, kMaxElements);
    if (kind == PositionKind::Learned) {
        if (opts.t_max < 1) detail::to_index({"positions", "opts.tMax"}, 0, 1, kMaxElements);
        if (T > opts.t_max) throw Error(ErrorCode::position_past_table, {{"fn", "positions"}, {"T", T}, {"tMax", opts.t_max}});
        if (opts.t_max * C > kMaxElements) detail::too_large({"positions", "table"}, "(tMax, C)", {opts.t_max, C});
        const Tensor table = randn({opts.t_max, C}, opts.seed);   // (tMax, C)
        Tensor out = Tensor::from_shape({T, C});
        std::copy(table.data(), table.data() + T * C, out.data());  // rows 0..T-1
        return out;
    }
    if (T * C > kMaxElements) detail::too_large({"positions", "out"}, "(T, C)", {T, C});
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
    po.t_max = r.index("tMax", 64, 1, kMaxElements);
    po.seed = r.seed("seed");
    r.finish();
    if (kind != "learned" && kind != "sinusoidal")
        throw Error(ErrorCode::not_one_of, {{"fn", "positions"}, {"arg", "kind"}, {"choice", kind},
                                            {"choices", std::vector<std::string>{"learned", "sinusoidal"}}});
    return positions(kind == "learned" ? PositionKind::Learned : PositionKind::Sinusoidal,
                     detail::to_index({"positions", "T"}, T, 1, kMaxElements),
                     detail::to_index({"positions", "C"}, C, 1, kMaxElements), po);
}

PermutationResult permutation_check(const Tensor& x, const PermutationOptions& opts) {
    if (opts.mha.has_memory) throw Error(ErrorCode::self_attention_only, {{"fn", "permutationCheck"}, {"arg", "opts.memory"}});
    detail::require_rank({"permutationCheck", "x"}, x, 3, 3, "(B, T, C)");
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

namespace detail {
PermutationOptions read_permutation_options(OptionReader& r) {
    PermutationOptions po;
    po.mha = read_mha_options(r);
    const std::string kind = r.string("positions", "none", {"none", "learned", "sinusoidal"});
    po.use_positions = kind != "none";
    po.position_kind = kind == "sinusoidal" ? PositionKind::Sinusoidal : PositionKind::Learned;
    po.pos.t_max = r.index("tMax", 64, 1, kMaxElements);
    po.seed = r.seed("seed");
    po.pos.seed = r.seed("positionSeed");
    return po;
}
}  // namespace detail

PermutationResult permutation_check(const Tensor& x, const Options& opts) {
    detail::OptionReader r(opts, "permutationCheck");
    const PermutationOptions po = detail::read_permutation_options(r);
    r.finish();
    return permutation_check(x, po);
}

// ---- 18.7 gradcheck ----------------------------------------------------------------------
namespace detail {

CentralDifference central_difference(std::vector<Tensor>& inputs, std::size_t a, std::size_t i, double eps,
                                     const std::function<double(const std::vector<Tensor>&)>& loss) {
    double& xi = inputs[a].data()[i];
    const double saved = xi;
    xi = saved + eps;
    const double lp = loss(inputs);
    xi = saved - eps;
    const double lm = loss(inputs);
    xi = saved;
    return {lp, lm, (lp - lm) / (2.0 * eps)};
}

GradcheckResult run_gradcheck(const std::vector<std::string>& names, std::vector<Tensor> inputs,
                              const std::function<double(const std::vector<Tensor>&)>& loss,
                              const std::vector<Tensor>& analytic) {
    GradcheckResult res{true, 1e-6, 1e-5, 1e-3, {}};
    for (std::size_t a = 0; a < inputs.size(); ++a) {
        GradcheckInput gi{names[a], 0.0, 0.0, true};
        for (std::size_t i = 0; i < inputs[a].size(); ++i) {
            const double numeric = central_difference(inputs, a, i, res.eps, loss).numeric;
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

// L = sum(out * G), in order over the flat index
static double weighted_sum(const Tensor& out, const Tensor& g) {
    double s = 0.0;
    for (std::size_t i = 0; i < out.size(); ++i) s += out.data()[i] * g.data()[i];
    return s;
}

double sdpa_loss(const std::vector<Tensor>& qkv, const Tensor& G, const SdpaOptions& opts) {
    return weighted_sum(sdpa(qkv[0], qkv[1], qkv[2], opts).out, G);
}

}  // namespace detail

static void require_gradcheck_size(std::size_t n) {
    if (n > kMaxGradcheckElements)
        throw Error(ErrorCode::gradcheck_size, {{"fn", "gradcheck"}, {"elements", n}, {"limit", kMaxGradcheckElements}});
}

GradcheckResult gradcheck_sdpa(const Tensor& q, const Tensor& k, const Tensor& v, const SdpaOptions& opts,
                               std::uint64_t seed) {
    const SdpaResult fwd = sdpa(q, k, v, opts);   // checks the shapes
    require_gradcheck_size(q.size() + k.size() + v.size());
    const Tensor G = randn(shape_of(fwd.out), seed);   // L = sum(out * G), dL/dout = G
    const SdpaGrads g = sdpa_backward(q, k, v, G, opts);
    return detail::run_gradcheck(
        {"q", "k", "v"}, {q, k, v},
        [&](const std::vector<Tensor>& in) { return detail::sdpa_loss(in, G, opts); },
        {g.dq, g.dk, g.dv});
}

GradcheckResult gradcheck_mha(const Tensor& x, const MhaOptions& opts, std::uint64_t seed) {
    const MhaResult fwd = multi_head_attention(x, opts);   // checks the shapes
    std::size_t n = x.size() + opts.wq.size() + opts.wk.size() + opts.wv.size();
    if (opts.has_memory) n += opts.memory.size();
    require_gradcheck_size(n);
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
            return detail::weighted_sum(multi_head_attention(in[0], o).out, G);
        },
        analytic);
}

GradcheckResult gradcheck(const std::string& kind, const Options& opts) {
    detail::OptionReader r(opts, "gradcheck");
    // a tensor option the kind needs
    auto required = [&](const char* key, const char* layout) {
        const Tensor* t = r.tensor(key);
        if (!t)
            throw Error(ErrorCode::missing, {{"fn", "gradcheck"}, {"arg", std::string("opts.") + key}, {"expectedType", "tensor"}, {"layout", layout}});
        return t;
    };
    if (kind == "sdpa") {
        const Tensor* q = required("q", "(..., Tq, d)");
        const Tensor* k = required("k", "(..., Tk, d)");
        const Tensor* v = required("v", "(..., Tk, dv)");
        SdpaOptions so;
        so.causal = r.boolean("causal", false);
        so.scale = r.scale("scale", {"head", "none"});
        const auto seed = r.seed("seed");
        r.finish();
        return gradcheck_sdpa(*q, *k, *v, so, seed);
    }
    if (kind == "mha") {
        const Tensor* x = required("x", "(B, T, C)");
        const MhaOptions mo = detail::read_mha_options(r);
        const auto seed = r.seed("seed");
        r.finish();
        return gradcheck_mha(*x, mo, seed);
    }
    throw Error(ErrorCode::not_one_of, {{"fn", "gradcheck"}, {"arg", "kind"}, {"choice", kind}, {"choices", std::vector<std::string>{"sdpa", "mha"}}});
}

// ---- 18.7 future probe -----------------------------------------------------------------------
Tensor detail::changed_future(const Tensor& x, std::size_t t, std::uint64_t seed) {
    const std::size_t B = x.shape()[0], T = x.shape()[1], C = x.shape()[2];
    Tensor x2 = x;
    detail::Rng rng(seed);
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = t + 1; j < T; ++j)
            for (std::size_t c = 0; c < C; ++c) x2(b, j, c) += 1.0 + rng.normal();   // a different future
    return x2;
}

FutureProbeResult future_probe(const Tensor& x, const MhaOptions& opts, std::size_t t, std::uint64_t seed) {
    if (opts.has_memory) throw Error(ErrorCode::self_attention_only, {{"fn", "futureProbe"}, {"arg", "opts.memory"}});
    const MhaResult base = multi_head_attention(x, opts);   // checks the shapes
    const std::size_t B = x.shape()[0], T = x.shape()[1];
    if (T < 2) throw Error(ErrorCode::no_future, {{"fn", "futureProbe"}, {"arg", "x"}, {"T", T}});
    if (t > T - 2) throw Error(ErrorCode::t_past_end, {{"fn", "futureProbe"}, {"arg", "opts.t"}, {"value", t}, {"max", T - 2}});
    const MhaResult changed = multi_head_attention(detail::changed_future(x, t, seed), opts);
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
    if (!r.has("t")) throw Error(ErrorCode::missing, {{"fn", "futureProbe"}, {"arg", "opts.t"}, {"expectedType", "number"}, {"layout", ""}});
    const std::size_t t = r.index("t", 0, 0, kMaxElements);
    const auto seed = r.seed("seed");
    r.finish();
    return future_probe(x, mo, t, seed);
}

// ---- 18.7 dropout ----------------------------------------------------------------------------
static void check_p(const char* fn, double p) {
    if (!(p >= 0.0 && p < 1.0)) throw Error(ErrorCode::number_range, {{"fn", fn}, {"arg", "opts.p"}, {"value", p}, {"range", "[0, 1)"}});
}

Tensor dropout(const Tensor& x, double p, bool training, std::uint64_t seed) {
    detail::require_rank({"dropout", "x"}, x, 1, kMaxRank, "");
    detail::require_finite({"dropout", "x"}, x);
    check_p("dropout", p);
    if (!training || p == 0.0) return x;   // evaluation: the identity
    Tensor y = Tensor::from_shape(x.shape());
    detail::Rng rng(seed);
    const double keep = 1.0 / (1.0 - p);
    for (std::size_t i = 0; i < x.size(); ++i) y.data()[i] = rng.uniform() < p ? 0.0 : x.data()[i] * keep;
    detail::require_no_overflow("dropout", "kept values", "x / (1 - p)", y);
    return y;
}

Tensor dropout(const Tensor& x, const Options& opts) {
    detail::OptionReader r(opts, "dropout");
    const double p = r.number("p", 0.1);
    const bool training = r.boolean("training", true);
    const auto seed = r.seed("seed");
    r.finish();
    return dropout(x, p, training, seed);
}

DropoutStats dropout_stats(const Tensor& w, double p, std::size_t samples, std::uint64_t seed, bool training) {
    const char* fn = "dropoutStats";
    detail::require_rank({fn, "weights"}, w, 1, kMaxRank, "(..., Tk)");
    detail::require_finite({fn, "weights"}, w);
    check_p(fn, p);
    if (samples < 1) detail::to_index({fn, "opts.samples"}, 0, 1, 10000000);
    if (double(samples) * double(w.size()) > kMaxDraws)
        throw Error(ErrorCode::work_limit, {{"fn", fn}, {"quantity", "samples * size(weights)"}, {"value", double(samples) * double(w.size())},
                                            {"limit", kMaxDraws}});
    const Shape s = shape_of(w);
    const std::size_t n = s.back(), rows = w.size() / n;
    Shape rs(s.begin(), s.end() - 1);
    if (rs.empty()) rs.push_back(1);
    DropoutStats st{xt::zeros<double>(rs), xt::zeros<double>(rs)};
    detail::require_no_overflow(fn, "row sums", "of the weights", sum_along(w, -1));
    for (std::size_t k = 0; k < samples; ++k) {
        const Tensor y = dropout(w, p, training, seed + k);
        for (std::size_t i = 0; i < rows; ++i) {
            double sum = 0.0;
            for (std::size_t j = 0; j < n; ++j) sum += y.data()[i * n + j];
            if (k == 0) st.sample_row_sums.data()[i] = sum;
            st.mean_row_sums.data()[i] += sum / double(samples);
        }
    }
    detail::require_no_overflow(fn, "row sums", "", st.sample_row_sums);
    detail::require_no_overflow(fn, "mean row sums", "", st.mean_row_sums);
    return st;
}

DropoutStats dropout_stats(const Tensor& w, const Options& opts) {
    detail::OptionReader r(opts, "dropoutStats");
    const double p = r.number("p", 0.1);
    const std::size_t samples = r.index("samples", 1000, 1, 10000000);
    const auto seed = r.seed("seed");
    const bool training = r.boolean("training", true);
    r.finish();
    return dropout_stats(w, p, samples, seed, training);
}

}  // namespace attn
