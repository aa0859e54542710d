// Provenance of 18.1 and 18.2: a cell of causalAverage (the loop's running sum, or the averaging
// matrix's row times x), of matmul (gemm_acc's sequential sum) and of the masked softmax.
#include <algorithm>
#include <cmath>
#include <limits>

#include "explain.hpp"

namespace attn::provenance {

namespace {

const double kNegInf = -std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

constexpr OptionSpec kScores{"scores", OptionKind::tensor, "softmax's scores (1-D to 4-D)", {}, true};
constexpr OptionSpec kA{"a", OptionKind::tensor, "matmul's a (..., n, k)", {}, true};
constexpr OptionSpec kB{"b", OptionKind::tensor, "matmul's b (..., k, m)", {}, true};

const OptionSet& average_inputs() {
    static const OptionSet set = detail::joined({&kX}, causal_average_option_set());
    return set;
}

Explanation explain_average(const std::string& quantity, const std::vector<double>& at, const Options& opts) {
    one_of(quantity, {"out"});
    detail::OptionReader r(opts, kFn, average_inputs());
    const Tensor& x = *r.tensor(kX, "(T, C) | (B, T, C)");
    const AverageMethod method = detail::read_average_method(r);
    r.finish();
    const Tensor y = causal_average(x, method);
    const Shape s = detail::shape_of(y);
    const auto ix = checked_at(at, s);
    const bool batched = s.size() == 3;
    const std::size_t T = s[batched ? 1 : 0], C = s.back(), b = batched ? ix[0] : 0, t = ix[batched ? 1 : 0], c = ix.back();
    const double* col = x.data() + b * T * C + c;   // x[b, :, c], stride C
    Explanation e;
    if (method == AverageMethod::Loop) {
        // out[t] = (x[0] + ... + x[t]) / (t + 1), added in order
        for (std::size_t j = 0; j <= t; ++j) {
            e.left.push_back(col[j * C]);
            e.terms.push_back(col[j * C]);
            e.source.push_back(j);
            e.sum += col[j * C];
        }
        e.divisor = double(t + 1);
        e.value = e.sum / e.divisor;
    } else {
        // out[t] = sum over every j of A[t, j] x[j] (zeros included), A from the matrix or the softmax
        Tensor A;
        if (method == AverageMethod::Matrix) A = averaging_matrix(T, true);
        else {
            SoftmaxOptions so;
            so.mask = MaskKind::Causal;
            A = softmax(xt::zeros<double>(Shape{T, T}), so).weights;
        }
        e = dot(A.data() + t * T, 1, col, C, T, false, 1.0);
    }
    return checked(e, y.data()[flat(s, ix)], "causalAverage out");
}

const OptionSet& matmul_inputs() {
    static const OptionSet set{&kA, &kB};
    return set;
}

Explanation explain_matmul(const std::string& quantity, const std::vector<double>& at, const Options& opts) {
    one_of(quantity, {"out"});
    detail::OptionReader r(opts, kFn, matmul_inputs());
    const Tensor& a = *r.tensor(kA, "(..., n, k)");
    const Tensor& b = *r.tensor(kB, "(..., k, m)");
    r.finish();
    const Tensor out = matmul(a, b);   // every check
    const Shape s = detail::shape_of(out);
    const auto ix = checked_at(at, s);
    const std::size_t rank = s.size(), n = s[rank - 2], m = s[rank - 1], k = a.shape()[a.dimension() - 1];
    const std::size_t g = group(s, ix);
    // gemm_acc: out[i, j] = sum over c of a[i, c] b[c, j], in order from 0.0; a 2-D operand is shared by every group
    const double* arow = a.data() + (a.dimension() == 2 ? 0 : g * n * k) + ix[rank - 2] * k;
    const double* bcol = b.data() + (b.dimension() == 2 ? 0 : g * k * m) + ix[rank - 1];
    return checked(dot(arow, 1, bcol, m, k, false, 1.0), out.data()[flat(s, ix)], "matmul out");
}

const OptionSet& softmax_inputs() {
    static const OptionSet set = detail::joined({&kScores}, softmax_option_set());
    return set;
}

// The scores along the softmax's axis through the cell, which of them are masked, and the max the
// softmax subtracts (before: over the allowed entries; after: over every finite score). false when
// there is nothing to normalize.
bool softmax_row(Explanation& e, const Tensor& scores, const SoftmaxOptions& so, std::size_t base, std::size_t inner, std::size_t n) {
    const Shape shape = detail::shape_of(scores);
    const std::size_t rank = shape.size(), rows = rank >= 2 ? shape[rank - 2] : 1, cols = shape[rank - 1];
    const double* s = scores.data();
    auto allowed = [&](std::size_t f) {   // as softmax() decides it
        if (s[f] == kNegInf) return false;
        if (so.mask == MaskKind::None) return true;
        const std::size_t i = (f / cols) % rows, j = f % cols;
        return so.mask == MaskKind::Causal ? j <= i : so.mask_tensor(i, j) != 0;
    };
    bool any = false;
    double mx = kNegInf;
    for (std::size_t j = 0; j < n; ++j) {
        const std::size_t f = base + j * inner;
        e.scores.push_back(s[f]);
        e.masked.push_back(allowed(f) ? 0 : 1);
        if (e.mask_after ? s[f] != kNegInf : allowed(f)) { any = true; mx = std::max(mx, s[f]); }
    }
    e.max = mx;
    return any;
}

Explanation explain_softmax(const std::string& quantity, const std::vector<double>& at, const Options& opts) {
    one_of(quantity, {"weights"});
    detail::OptionReader r(opts, kFn, softmax_inputs());
    const Tensor& scores = *r.tensor(kScores);
    const SoftmaxOptions so = detail::read_softmax_options(r);
    r.finish();
    const SoftmaxResult res = softmax(scores, so);   // every check
    const Shape shape = detail::shape_of(scores);
    const auto ix = checked_at(at, shape);
    const std::size_t rank = shape.size(), dim = std::size_t(so.dim < 0 ? so.dim + long(rank) : so.dim);
    std::size_t inner = 1;
    for (std::size_t a = dim + 1; a < rank; ++a) inner *= shape[a];
    const std::size_t n = shape[dim], f0 = flat(shape, ix), target = ix[dim], base = f0 - target * inner;
    Explanation e;
    e.kind = Explanation::Kind::Softmax;
    e.target = target;
    e.mask_after = so.order == MaskOrder::After;
    if (!softmax_row(e, scores, so, base, inner, n)) {   // nothing to normalize: the row is NaN
        e.exps.assign(n, kNaN);
        e.max = e.denominator = e.value = kNaN;
        return checked(e, res.weights.data()[f0], "softmax weights");
    }
    double sum = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
        const bool in = e.mask_after ? e.scores[j] != kNegInf : !e.masked[j];
        e.exps.push_back(in ? std::exp(e.scores[j] - e.max) : 0.0);
        sum += e.exps[j];
    }
    e.denominator = sum;
    e.value = e.mask_after && e.masked[target] ? 0.0 : e.exps[target] / sum;
    return checked(e, res.weights.data()[f0], "softmax weights");
}

}  // namespace

const Explained kAverage{"causalAverage", average_inputs, explain_average};
const Explained kMatmul{"matmul", matmul_inputs, explain_matmul};
const Explained kSoftmax{"softmax", softmax_inputs, explain_softmax};

}  // namespace attn::provenance
