// 18.4: attention statistics (entropy and max weight per row), Var(q.k) against d, and how a
// logit multiplier sharpens the softmax.
#include <algorithm>
#include <cmath>
#include <limits>

#include "internal.hpp"

namespace attn {

namespace {
using detail::shape_of;
const double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

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

namespace {
constexpr OptionSpec kSamples{"samples", OptionKind::integer, "seeded draws of q and k per width, from 2 to 1000000 (default 2000)"};
constexpr OptionSpec kSeed{"seed", OptionKind::integer, "the draws' seed, from 0 to 2^53 - 1 (default 0)"};
}  // namespace

const OptionSet& dot_product_variance_option_set() {
    static const OptionSet set{&kSamples, &kSeed};
    return set;
}

DotVariance dot_product_variance(const std::vector<double>& dims, const Options& opts) {
    detail::OptionReader r(opts, "dotProductVariance", dot_product_variance_option_set());
    const double samples = r.number(kSamples, 2000), seed = r.number(kSeed, 0);
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

}  // namespace attn
