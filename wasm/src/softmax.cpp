// 18.1 averaging the past and 18.2 masked softmax.
#include <algorithm>
#include <cmath>
#include <limits>

#include "internal.hpp"

namespace attn {

static const double kNegInf = -std::numeric_limits<double>::infinity();

namespace {
constexpr const char* kMethods[] = {"loop", "matrix", "softmax"};
constexpr OptionSpec kMethod{"method", OptionKind::choice,
                             "how the means are computed: 'loop', 'matrix' (the default: the averaging matrix times x) or 'softmax' "
                             "(the masked softmax of zeros times x)",
                             kMethods};
constexpr OptionSpec kNormalize{"normalize", OptionKind::boolean,
                                "true (the default): row t holds 1 / (t + 1); false: lower-triangular ones (cumulative sums)"};
constexpr OptionSpec kDim{"dim", OptionKind::integer, "the axis the weights sum to 1 along (default -1, the last; negatives count from the end)"};
constexpr const char* kMasks[] = {"none", "causal"};
constexpr OptionSpec kMask{"mask", OptionKind::choice_or_mask,
                           "'none' (the default), 'causal' (j <= i on the last two axes, top-left aligned) or a boolean (Tq, Tk) tensor, "
                           "1 = allowed",
                           kMasks};
constexpr const char* kOrders[] = {"before", "after"};
constexpr OptionSpec kMaskOrder{"maskOrder", OptionKind::choice,
                                "'before' (the default: -Infinity where masked, then the softmax) or 'after' (the softmax over every "
                                "finite score, then zeros where masked)",
                                kOrders};
}  // namespace

const OptionSet& causal_average_option_set() {
    static const OptionSet set{&kMethod};
    return set;
}
const OptionSet& averaging_matrix_option_set() {
    static const OptionSet set{&kNormalize};
    return set;
}
const OptionSet& softmax_option_set() {
    static const OptionSet set{&kDim, &kMask, &kMaskOrder};
    return set;
}

// ---- 18.1 ------------------------------------------------------------------------------
Tensor averaging_matrix(std::size_t T, bool normalize) {
    if (T < 1) detail::to_index({"averagingMatrix", "T"}, 0, 1, kMaxElements);
    if (T * T > kMaxElements) detail::too_large({"averagingMatrix", "A"}, "(T, T)", {T, T});
    Tensor A = xt::zeros<double>(Shape{T, T});   // (T, T): row t receives, column j gives
    for (std::size_t t = 0; t < T; ++t)
        for (std::size_t j = 0; j <= t; ++j) A(t, j) = normalize ? 1.0 / double(t + 1) : 1.0;
    return A;
}

Tensor averaging_matrix(double T, const Options& opts) {
    const bool normalize =
        detail::read_options(opts, "averagingMatrix", averaging_matrix_option_set(), [](detail::OptionReader& r) { return r.boolean(kNormalize, true); });
    return averaging_matrix(detail::to_index({"averagingMatrix", "T"}, T, 1, kMaxElements), normalize);
}

// y[b] = A x[b] for A (T, T) broadcast over the batch; x (B, T, C).
static Tensor apply_rows(const Tensor& A, const Tensor& x3) {
    const std::size_t B = x3.shape()[0], T = x3.shape()[1], C = x3.shape()[2];
    Tensor y = xt::zeros<double>(Shape{B, T, C});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t j = 0; j < T; ++j) {   // all columns: the matrix product, zeros included
                const double a = A(t, j);
                for (std::size_t c = 0; c < C; ++c) y(b, t, c) += a * x3(b, j, c);
            }
    return y;
}

Tensor causal_average(const Tensor& x, AverageMethod method) {
    detail::require_rank({"causalAverage", "x"}, x, 2, 3, "(T, C) | (B, T, C)");
    detail::require_finite({"causalAverage", "x"}, x);
    const bool batched = x.dimension() == 3;
    const std::size_t B = batched ? x.shape()[0] : 1, T = x.shape()[batched ? 1 : 0],
                      C = x.shape()[batched ? 2 : 1];
    if (T * T > kMaxElements) detail::too_large({"causalAverage", "A"}, "(T, T)", {T, T});
    Tensor x3 = x;
    x3.reshape({B, T, C});
    Tensor y;
    if (method == AverageMethod::Loop) {
        y = xt::zeros<double>(Shape{B, T, C});
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t t = 0; t < T; ++t)
                for (std::size_t c = 0; c < C; ++c) {   // out[t] = x[0..t].mean(0)
                    double s = 0.0;
                    for (std::size_t j = 0; j <= t; ++j) s += x3(b, j, c);
                    y(b, t, c) = s / double(t + 1);
                }
    } else if (method == AverageMethod::Matrix) {
        y = apply_rows(averaging_matrix(T, true), x3);
    } else {
        SoftmaxOptions so;
        so.mask = MaskKind::Causal;   // zeros where allowed, -inf in the future
        y = apply_rows(softmax(xt::zeros<double>(Shape{T, T}), so).weights, x3);
    }
    y.reshape(x.shape());
    detail::require_no_overflow("causalAverage", "sums", "", y);
    return y;
}

AverageMethod detail::read_average_method(detail::OptionReader& r) {
    const std::string m = r.choice(kMethod, "matrix");
    return m == "loop" ? AverageMethod::Loop : m == "matrix" ? AverageMethod::Matrix : AverageMethod::Softmax;
}

Tensor causal_average(const Tensor& x, const Options& opts) {
    return causal_average(x, detail::read_options(opts, "causalAverage", causal_average_option_set(), detail::read_average_method));
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
    if (a.shape() != b.shape())
        throw Error(ErrorCode::same_shape, {{"fn", "maxAbsDiff"}, {"arg", "b"}, {"shape", detail::shape_of(b)}, {"other", "a"},
                                            {"otherShape", detail::shape_of(a)}});
    detail::require_finite({"maxAbsDiff", "a"}, a, false, true);
    detail::require_finite({"maxAbsDiff", "b"}, b, false, true);
    double m = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double d = std::fabs(a.data()[i] - b.data()[i]);
        if (std::isnan(d)) return std::numeric_limits<double>::quiet_NaN();
        if (d > m) m = d;
    }
    return m;
}

// ---- 18.2 ------------------------------------------------------------------------------
// The index over the non-dim axes of the row at `outer` (over the axes before dim) and `inner`
// (over the axes after it).
static std::vector<std::size_t> row_index(const Shape& shape, std::size_t dim, std::size_t outer, std::size_t inner) {
    const std::size_t r = shape.size();
    std::vector<std::size_t> lead(dim), tail(r - dim - 1);
    for (std::size_t a = dim; a-- > 0;) { lead[a] = outer % shape[a]; outer /= shape[a]; }
    for (std::size_t a = r; a-- > dim + 1;) { tail[a - dim - 1] = inner % shape[a]; inner /= shape[a]; }
    lead.insert(lead.end(), tail.begin(), tail.end());
    return lead;
}

SoftmaxResult softmax(const Tensor& scores, const SoftmaxOptions& opts) {
    detail::require_rank({"softmax", "scores"}, scores, 1, 4, "");
    detail::require_finite({"softmax", "scores"}, scores, /*allow_neg_inf=*/true);
    const std::size_t r = scores.dimension();
    const Shape shape = detail::shape_of(scores);
    if (opts.dim < -long(r) || opts.dim >= long(r))
        throw Error(ErrorCode::dim_range, {{"fn", "softmax"}, {"arg", "opts.dim"}, {"value", opts.dim}, {"min", -long(r)},
                                           {"max", r - 1}, {"other", "scores"}, {"otherShape", shape}});
    const std::size_t dim = std::size_t(opts.dim < 0 ? opts.dim + long(r) : opts.dim);
    if (opts.mask != MaskKind::None && r < 2)
        throw Error(ErrorCode::mask_rank, {{"fn", "softmax"}, {"arg", "scores"}, {"mask", opts.mask == MaskKind::Causal ? "causal" : "tensor"},
                                           {"shape", shape}});
    const std::size_t rows = r >= 2 ? shape[r - 2] : 1, cols = shape[r - 1];
    if (opts.mask == MaskKind::Explicit) {
        const Shape ms(opts.mask_tensor.shape().begin(), opts.mask_tensor.shape().end());
        if (ms != Shape{rows, cols})
            throw Error(ErrorCode::shape_mismatch, {{"fn", "softmax"}, {"arg", "opts.mask"}, {"layout", "(Tq, Tk)"},
                                                    {"expectedShape", Shape{rows, cols}}, {"shape", ms}});
    }

    std::size_t outer = 1, inner = 1;
    for (std::size_t a = 0; a < dim; ++a) outer *= shape[a];
    for (std::size_t a = dim + 1; a < r; ++a) inner *= shape[a];
    const std::size_t n = shape[dim];
    const double* s = scores.data();
    auto allowed = [&](std::size_t f) {
        if (s[f] == kNegInf) return false;
        if (opts.mask == MaskKind::None) return true;
        const std::size_t i = (f / cols) % rows, j = f % cols;
        return opts.mask == MaskKind::Causal ? j <= i : opts.mask_tensor(i, j) != 0;
    };

    SoftmaxResult res;
    res.weights = Tensor::from_shape(shape);
    double* w = res.weights.data();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t o = 0; o < outer; ++o)
        for (std::size_t in = 0; in < inner; ++in) {
            const std::size_t base = o * n * inner + in;
            bool any_allowed = false, any_finite = false;
            double mx = kNegInf, mx_all = kNegInf;
            for (std::size_t j = 0; j < n; ++j) {
                const std::size_t f = base + j * inner;
                if (s[f] != kNegInf) { any_finite = true; mx_all = std::max(mx_all, s[f]); }
                if (allowed(f)) { any_allowed = true; mx = std::max(mx, s[f]); }
            }
            if (!any_allowed) res.masked_rows.push_back(row_index(shape, dim, o, in));
            // Mask before (the default): -inf before the softmax, so masked entries get exp(-inf) = 0 and
            // the allowed ones share the whole unit of weight; with nothing allowed there is no
            // denominator: NaN. Mask after: a softmax over every finite score, then the masked entries
            // are zeroed, and the rest no longer sums to 1.
            const bool before = opts.order == MaskOrder::Before;
            if (!(before ? any_allowed : any_finite)) {
                for (std::size_t j = 0; j < n; ++j) w[base + j * inner] = nan;
                continue;
            }
            const double m = before ? mx : mx_all;
            double sum = 0.0;
            for (std::size_t j = 0; j < n; ++j) {
                const std::size_t f = base + j * inner;
                w[f] = (before ? allowed(f) : s[f] != kNegInf) ? std::exp(s[f] - m) : 0.0;
                sum += w[f];
            }
            for (std::size_t j = 0; j < n; ++j) {
                const std::size_t f = base + j * inner;
                w[f] = allowed(f) ? w[f] / sum : 0.0;
            }
        }
    return res;
}

SoftmaxOptions detail::read_softmax_options(detail::OptionReader& r) {
    SoftmaxOptions so;
    const double dim = r.number(kDim, -1);
    so.dim = detail::to_dim({r.fn(), "opts.dim"}, dim);
    if (const BoolTensor* m = r.mask(kMask)) {
        so.mask = MaskKind::Explicit;
        so.mask_tensor = *m;
    } else {
        so.mask = r.choice(kMask, "none") == "causal" ? MaskKind::Causal : MaskKind::None;
    }
    so.order = r.choice(kMaskOrder, "before") == "after" ? MaskOrder::After : MaskOrder::Before;
    return so;
}

SoftmaxResult softmax(const Tensor& scores, const Options& opts) {
    return softmax(scores, detail::read_options(opts, "softmax", softmax_option_set(), detail::read_softmax_options));
}

}  // namespace attn
