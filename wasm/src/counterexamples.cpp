// 18.7: the counterexample checks: gradcheck, the future probe and dropout.
#include <algorithm>
#include <cmath>
#include <functional>

#include "internal.hpp"

namespace attn {

namespace {
using detail::shape_of;
}  // namespace

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

// ---- options ---------------------------------------------------------------------------------
namespace {
using detail::kSdpaQ, detail::kSdpaK, detail::kSdpaV;
constexpr OptionSpec kX{"x", OptionKind::tensor, "multiHeadAttention's input (B, T, C)", {}, true};
constexpr OptionSpec kGradSeed{"seed", OptionKind::integer, "the seed of G = randn(out's shape), the upstream gradient (default 0)"};
constexpr OptionSpec kT{"t", OptionKind::integer, "the last position kept: x changes at the positions after t, from 0 to T - 2", {}, true};
constexpr OptionSpec kProbeSeed{"seed", OptionKind::integer, "the changed values' seed (default 0)"};
constexpr OptionSpec kP{"p", OptionKind::number, "the probability that an entry is dropped, in [0, 1) (default 0.1)"};
constexpr OptionSpec kTraining{"training", OptionKind::boolean,
                               "true (the default): drop and scale the kept entries by 1 / (1 - p); false: evaluation, the identity"};
constexpr OptionSpec kDropoutSeed{"seed", OptionKind::integer, "the draws' seed (default 0)"};
constexpr OptionSpec kSamples{"samples", OptionKind::integer, "the samples averaged, from 1 to 10000000 (default 1000)"};
constexpr OptionSpec kSamplesSeed{"seed", OptionKind::integer, "sample k is drawn with seed + k (default 0)"};
constexpr OptionSpec kStatsTraining{"training", OptionKind::boolean,
                                    "true (the default): dropout as in training; false: evaluation, every sample is the weights"};
}  // namespace

const OptionSet& gradcheck_sdpa_option_set() {
    static const OptionSet set = detail::joined(detail::joined({&kSdpaQ, &kSdpaK, &kSdpaV}, sdpa_option_set()), {&kGradSeed});
    return set;
}
const OptionSet& gradcheck_mha_option_set() {
    static const OptionSet set = detail::joined(detail::joined({&kX}, mha_option_set()), {&kGradSeed});
    return set;
}
const OptionSet& future_probe_option_set() {
    static const OptionSet set = detail::joined(mha_option_set(), {&kT, &kProbeSeed});
    return set;
}
const OptionSet& dropout_option_set() {
    static const OptionSet set{&kP, &kTraining, &kDropoutSeed};
    return set;
}
const OptionSet& dropout_stats_option_set() {
    static const OptionSet set{&kP, &kSamples, &kSamplesSeed, &kStatsTraining};
    return set;
}

detail::GradcheckSdpaInputs detail::read_gradcheck_sdpa_options(OptionReader& r) {
    const Tensor* q = r.tensor(kSdpaQ, "(..., Tq, d)");
    const Tensor* k = r.tensor(kSdpaK, "(..., Tk, d)");
    const Tensor* v = r.tensor(kSdpaV, "(..., Tk, dv)");
    const SdpaOptions so = read_sdpa_options(r);
    return {*q, *k, *v, so, r.seed(kGradSeed)};
}

detail::FutureProbeInputs detail::read_future_probe_options(OptionReader& r) {
    const MhaOptions mo = read_mha_options(r);
    const std::size_t t = r.index(kT, 0, 0, kMaxElements);
    return {mo, t, r.seed(kProbeSeed)};
}

detail::DropoutInputs detail::read_dropout_options(OptionReader& r) {
    const double p = r.number(kP, 0.1);
    const bool training = r.boolean(kTraining, true);
    return {p, training, r.seed(kDropoutSeed)};
}

GradcheckResult gradcheck(const std::string& kind, const Options& opts) {
    if (kind == "sdpa") {
        const auto in = detail::read_options(opts, "gradcheck", gradcheck_sdpa_option_set(), detail::read_gradcheck_sdpa_options);
        return gradcheck_sdpa(in.q, in.k, in.v, in.opts, in.seed);
    }
    if (kind == "mha") {
        detail::OptionReader r(opts, "gradcheck", gradcheck_mha_option_set());
        const Tensor* x = r.tensor(kX, "(B, T, C)");
        const MhaOptions mo = detail::read_mha_options(r);
        const auto seed = r.seed(kGradSeed);
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
    const auto in = detail::read_options(opts, "futureProbe", future_probe_option_set(), detail::read_future_probe_options);
    return future_probe(x, in.mha, in.t, in.seed);
}

// ---- 18.7 dropout ----------------------------------------------------------------------------
void detail::check_dropout_p(const char* fn, double p) {
    if (!(p >= 0.0 && p < 1.0)) throw Error(ErrorCode::number_range, {{"fn", fn}, {"arg", "opts.p"}, {"value", p}, {"range", "[0, 1)"}});
}

Tensor detail::scale_kept(const Tensor& x, const Tensor& keep, double factor) {
    Tensor y = Tensor::from_shape(x.shape());
    for (std::size_t i = 0; i < x.size(); ++i) y.data()[i] = keep.data()[i] == 0.0 ? 0.0 : x.data()[i] * factor;
    return y;
}

Tensor detail::dropout_kept(const Tensor& x, const Tensor& keep, double p, bool training) {
    if (!training || p == 0.0) return x;   // evaluation: the identity
    const double scale = 1.0 / (1.0 - p);
    return scale_kept(x, keep, scale);
}

Tensor dropout(const Tensor& x, double p, bool training, std::uint64_t seed) {
    detail::require_rank({"dropout", "x"}, x, 1, kMaxRank, "");
    detail::require_finite({"dropout", "x"}, x);
    detail::check_dropout_p("dropout", p);
    Tensor keep = xt::ones<double>(x.shape());   // in training each entry kept (1) with probability 1 - p
    detail::Rng rng(seed);
    if (training)
        for (std::size_t i = 0; i < x.size(); ++i) keep.data()[i] = rng.uniform() < p ? 0.0 : 1.0;
    const Tensor y = detail::dropout_kept(x, keep, p, training);
    detail::require_no_overflow("dropout", "kept values", "x / (1 - p)", y);
    return y;
}

Tensor dropout(const Tensor& x, const Options& opts) {
    const auto in = detail::read_options(opts, "dropout", dropout_option_set(), detail::read_dropout_options);
    return dropout(x, in.p, in.training, in.seed);
}

DropoutStats dropout_stats(const Tensor& w, double p, std::size_t samples, std::uint64_t seed, bool training) {
    const char* fn = "dropoutStats";
    detail::require_rank({fn, "weights"}, w, 1, kMaxRank, "(..., Tk)");
    detail::require_finite({fn, "weights"}, w);
    detail::check_dropout_p(fn, p);
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
    detail::OptionReader r(opts, "dropoutStats", dropout_stats_option_set());
    const double p = r.number(kP, 0.1);
    const std::size_t samples = r.index(kSamples, 1000, 1, 10000000);
    const auto seed = r.seed(kSamplesSeed);
    const bool training = r.boolean(kStatsTraining, true);
    r.finish();
    return dropout_stats(w, p, samples, seed, training);
}

}  // namespace attn
