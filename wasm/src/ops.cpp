// Small tensor operations the lab displays: sums along an axis, matrix products, mask matrices,
// and the plain reference attention of 18.7.
#include <algorithm>
#include <cmath>
#include <limits>

#include "internal.hpp"
#include "kernels.hpp"

namespace attn {

using detail::shape_of;

Tensor sum_along(const Tensor& x, long dim) {
    detail::require_rank({"sum", "x"}, x, 1, kMaxRank, "");
    detail::require_finite({"sum", "x"}, x, false, /*allow_nan=*/true);   // a fully masked row's NaN sum is what the lab shows
    const std::size_t r = x.dimension();
    const Shape s = shape_of(x);
    if (dim < -long(r) || dim >= long(r))
        throw Error(ErrorCode::dim_range, {{"fn", "sum"}, {"arg", "opts.dim"}, {"value", dim}, {"min", -long(r)}, {"max", r - 1},
                                           {"other", "x"}, {"otherShape", s}});
    const std::size_t a = std::size_t(dim < 0 ? dim + long(r) : dim);
    std::size_t outer = 1, inner = 1;
    for (std::size_t i = 0; i < a; ++i) outer *= s[i];
    for (std::size_t i = a + 1; i < r; ++i) inner *= s[i];
    Shape os;
    for (std::size_t i = 0; i < r; ++i)
        if (i != a) os.push_back(s[i]);
    if (os.empty()) os.push_back(1);
    Tensor out = xt::zeros<double>(os);
    for (std::size_t o = 0; o < outer; ++o)
        for (std::size_t j = 0; j < s[a]; ++j)
            for (std::size_t in = 0; in < inner; ++in) out.data()[o * inner + in] += x.data()[(o * s[a] + j) * inner + in];
    // NaN in, NaN out (a masked row's sum); but finite inputs must not overflow to inf
    for (std::size_t i = 0; i < out.size(); ++i)
        if (std::isinf(out.data()[i]))
            throw Error(ErrorCode::overflow, {{"fn", "sum"}, {"quantity", "sums"}, {"formula", ""}, {"value", out.data()[i]},
                                              {"index", detail::multi_index(out, i)}});
    return out;
}

namespace {
constexpr OptionSpec kDim{"dim", OptionKind::integer, "the axis summed over (default -1, the last; negatives count from the end)"};
constexpr OptionSpec kCausal{"causal", OptionKind::boolean, "true (the default): 1 where j <= i, 0 above the diagonal; false: all ones"};
}  // namespace

const OptionSet& sum_option_set() {
    static const OptionSet set{&kDim};
    return set;
}

Tensor sum_along(const Tensor& x, const Options& opts) {
    const double dim = detail::read_options(opts, "sum", sum_option_set(), [](detail::OptionReader& r) { return r.number(kDim, -1); });
    return sum_along(x, detail::to_dim({"sum", "opts.dim"}, dim));
}

Tensor matmul(const Tensor& a, const Tensor& b) {
    detail::require_rank({"matmul", "a"}, a, 2, kMaxRank, "(..., n, k)");
    detail::require_rank({"matmul", "b"}, b, 2, kMaxRank, "(..., k, m)");
    detail::require_finite({"matmul", "a"}, a);
    detail::require_finite({"matmul", "b"}, b);
    const Shape as = shape_of(a), bs = shape_of(b);
    const std::size_t n = as[as.size() - 2], k = as.back(), k2 = bs[bs.size() - 2], m = bs.back();
    if (k != k2)
        throw Error(ErrorCode::axis_mismatch, {{"fn", "matmul"}, {"arg", "b"}, {"layout", "(..., k, m)"}, {"axis", "k"}, {"size", k},
                                               {"shape", bs}, {"other", "a"}, {"otherAxis", -1}, {"otherShape", as}});
    const Shape al(as.begin(), as.end() - 2), bl(bs.begin(), bs.end() - 2);
    if (!al.empty() && !bl.empty() && al != bl)
        throw Error(ErrorCode::leading_axes, {{"fn", "matmul"}, {"arg", "b"}, {"shape", bs}, {"other", "a"}, {"otherShape", as}});
    Shape os = al.empty() ? bl : al;
    const std::size_t N = detail::product(os);
    os.push_back(n);
    os.push_back(m);
    if (N * n * m > kMaxElements) detail::too_large({"matmul", "out"}, "(..., n, m)", os);
    Tensor out = xt::zeros<double>(os);
    for (std::size_t t = 0; t < N; ++t)
        detail::gemm_acc(out.data() + t * n * m, a.data() + (al.empty() ? 0 : t * n * k), b.data() + (bl.empty() ? 0 : t * k * m), n, k, m);
    detail::require_no_overflow("matmul", "products", "a b", out);
    return out;
}

Tensor mask_matrix(std::size_t Tq, std::size_t Tk, bool causal) {
    if (Tq * Tk > kMaxElements) detail::too_large({"maskMatrix", "out"}, "(Tq, Tk)", {Tq, Tk});
    Tensor m = Tensor::from_shape({Tq, Tk});
    for (std::size_t i = 0; i < Tq; ++i)
        for (std::size_t j = 0; j < Tk; ++j) m(i, j) = (!causal || j <= i) ? 1.0 : 0.0;
    return m;
}

const OptionSet& mask_matrix_option_set() {
    static const OptionSet set{&kCausal};
    return set;
}

Tensor mask_matrix(double Tq, double Tk, const Options& opts) {
    const bool causal = detail::read_options(opts, "maskMatrix", mask_matrix_option_set(), [](detail::OptionReader& r) { return r.boolean(kCausal, true); });
    return mask_matrix(detail::to_index({"maskMatrix", "Tq"}, Tq, 1, kMaxElements), detail::to_index({"maskMatrix", "Tk"}, Tk, 1, kMaxElements),
                       causal);
}

}  // namespace attn
