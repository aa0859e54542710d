// "Check my numbers", the comparison: layout and levels of agreement (diagnose_compare.hpp).
#include "diagnose_compare.hpp"

#include <algorithm>
#include <cmath>
#include <xtensor/xmanipulation.hpp>

namespace attn::detail {

namespace {

Shape strip_ones(Shape s) {
    while (s.size() > 1 && s.front() == 1) s.erase(s.begin());
    return s;
}

// equal, NaN for NaN
bool same_value(double s, double r) { return (std::isnan(s) && std::isnan(r)) || s == r; }

// the widest difference a printed value `s` of resolution `res` may have from `r`
double printed_tolerance(double res, double r) { return res * (1 + 1e-9) + 2e-5 * (1.0 + std::abs(r)); }

}  // namespace

Tensor swap_last(const Tensor& t) {
    std::vector<std::size_t> perm(t.dimension());
    for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
    std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
    return Tensor(xt::transpose(t, perm));
}

Aligned align(const Tensor& student, const Tensor& resolution, const Tensor& expected) {
    Aligned a;
    const Shape want = shape_of(expected), got = shape_of(student);
    const Tensor res = resolution.size() == student.size() ? resolution : Tensor(xt::zeros<double>(student.shape()));
    auto as = [&](const Tensor& t) { return Tensor(xt::reshape_view(t, want)); };
    if (got == want || strip_ones(got) == strip_ones(want)) {
        a.values = as(student);
        a.resolution = as(Tensor(xt::reshape_view(res, got)));
        a.note = got == want ? "" : "leading_ones";
        a.ok = true;
        return a;
    }
    Shape swapped = strip_ones(got);
    if (swapped.size() >= 2) {
        std::swap(swapped[swapped.size() - 1], swapped[swapped.size() - 2]);
        if (swapped == strip_ones(want)) {
            const Tensor s = Tensor(xt::reshape_view(student, strip_ones(got)));
            const Tensor r = Tensor(xt::reshape_view(res, strip_ones(got)));
            a.values = as(swap_last(s));
            a.resolution = as(swap_last(r));
            a.note = "transposed";
            a.ok = true;
        }
    }
    return a;
}

std::pair<MatchLevel, double> compare(const Tensor& s, const Tensor& res, const Tensor& ref) {
    MatchLevel level = MatchLevel::Float64;
    double worst = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const double a = s.flat(i), b = ref.flat(i), d = std::abs(a - b);
        if (same_value(a, b)) continue;
        if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) return {MatchLevel::None, std::nan("")};
        worst = std::max(worst, d);
        const double scale = 1.0 + std::abs(b);
        // the loosest level any cell needs: float64, then float32, then the printed precision
        const MatchLevel cell = d <= 1e-10 * scale                    ? MatchLevel::Float64
                                : d <= 2e-5 * scale                   ? MatchLevel::Float32
                                : d <= printed_tolerance(res.flat(i), b) ? MatchLevel::Printed
                                                                      : MatchLevel::None;
        if (cell == MatchLevel::None || level == MatchLevel::None) level = MatchLevel::None;
        else if (int(cell) > int(level)) level = cell;
    }
    return {level, worst};
}

std::vector<std::size_t> first_wrong(const Tensor& s, const Tensor& res, const Tensor& ref) {
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const double a = s.flat(i), b = ref.flat(i);
        if (same_value(a, b)) continue;
        if (!(std::abs(a - b) <= printed_tolerance(res.flat(i), b))) {
            const auto at = xt::unravel_index(i, ref.shape());
            return {at.begin(), at.end()};
        }
    }
    return {};
}

}  // namespace attn::detail
