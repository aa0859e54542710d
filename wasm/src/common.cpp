// Seeded generator, messages and argument checks.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include <xtensor/xoperation.hpp>

#include "internal.hpp"

namespace attn {

std::string shape_str(const Shape& s) {
    std::string out = "(";
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i) out += ", ";
        out += std::to_string(s[i]);
    }
    if (s.size() == 1) out += ",";
    return out + ")";
}

Shape checked_shape(std::string_view fn, std::string_view arg, const std::vector<double>& dims, std::size_t length) {
    if (dims.empty() || dims.size() > kMaxRank)
        throw Error(ErrorCode::shape_axes, {{"fn", fn}, {"arg", arg}, {"rank", dims.size()}, {"maxRank", kMaxRank}});
    Shape s;
    double total = 1;
    for (std::size_t i = 0; i < dims.size(); ++i) {
        const double d = dims[i];
        if (!detail::whole_in(d, 1, double(kMaxElements)))
            throw Error(ErrorCode::shape_dim, {{"fn", fn}, {"arg", arg}, {"index", Shape{i}}, {"value", d}});
        total *= d;
        s.push_back(std::size_t(d));
    }
    if (total > double(kMaxElements)) detail::too_large({fn, arg}, "", s);
    if (std::size_t(total) != length)
        throw Error(ErrorCode::shape_data, {{"fn", fn}, {"arg", arg}, {"shape", s}, {"elements", total}, {"length", length}});
    return s;
}

Shape checked_shape(std::string_view fn, std::string_view arg, const std::vector<double>& dims) {
    double total = 1;
    for (double d : dims) total *= d;
    // the shape's own checks, with the length it describes as the data's
    return checked_shape(fn, arg, dims, total >= 0 && total <= double(kMaxElements) ? std::size_t(total) : 0);
}

std::uint64_t checked_seed(std::string_view fn, std::string_view arg, double seed) { return detail::to_seed({fn, arg}, seed); }

Tensor randn(const Shape& shape, std::uint64_t seed, double stddev) {
    if (shape.empty() || shape.size() > kMaxRank)
        throw Error(ErrorCode::shape_axes, {{"fn", "randn"}, {"arg", "shape"}, {"rank", shape.size()}, {"maxRank", kMaxRank}});
    if (!(stddev > 0.0) || !std::isfinite(stddev))
        throw Error(ErrorCode::number_range, {{"fn", "randn"}, {"arg", "std"}, {"value", stddev}, {"range", "(0, Infinity)"}});
    double total = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == 0) throw Error(ErrorCode::shape_dim, {{"fn", "randn"}, {"arg", "shape"}, {"index", Shape{i}}, {"value", 0}});
        total *= double(shape[i]);
    }
    if (total > double(kMaxElements)) detail::too_large({"randn", "shape"}, "", shape);
    Tensor out = Tensor::from_shape(shape);
    detail::Rng rng(seed);
    for (double& v : out) v = rng.normal();
    if (stddev != 1.0) out *= stddev;
    return out;
}

namespace detail {

// True when every value is finite: x * 0 is 0 for finite x and NaN for NaN and +/-inf, so one
// branch-free (vectorizable) sum answers for the whole tensor; the slow scans below only run to
// write a message.
static bool all_finite(const double* p, std::size_t n) {
    double s0 = 0.0, s1 = 0.0;
    std::size_t i = 0;
    for (; i + 1 < n; i += 2) { s0 += p[i] * 0.0; s1 += p[i + 1] * 0.0; }
    if (i < n) s0 += p[i] * 0.0;
    return s0 + s1 == 0.0;
}

// ln(x) = e ln 2 + 2 atanh(s), x = m 2^e, m in [sqrt(1/2), sqrt(2)), s = (m - 1) / (m + 1).
// |s| <= 0.1716, so 12 odd terms of atanh reach well below one ulp. frexp and ldexp are exact.
double log_det(double x) {
    int e = 0;
    double m = std::frexp(x, &e);   // m in [0.5, 1)
    if (m < 0.70710678118654752) { m *= 2.0; e -= 1; }
    const double s = (m - 1.0) / (m + 1.0), s2 = s * s;
    double term = s, sum = 0.0;
    for (int k = 1; k <= 25; k += 2) { sum += term / k; term *= s2; }
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    return e * ln2_hi + (2.0 * sum + e * ln2_lo);
}

static std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

Rng::Rng(std::uint64_t seed) {
    std::uint64_t x = seed;
    for (auto& s : s_) s = splitmix64(x);
}

std::uint64_t Rng::next() {
    auto rotl = [](std::uint64_t v, int k) { return (v << k) | (v >> (64 - k)); };
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0]; s_[3] ^= s_[1]; s_[1] ^= s_[2]; s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
}

double Rng::uniform() { return double(next() >> 11) * 0x1.0p-53; }

double Rng::normal() {
    if (has_spare_) { has_spare_ = false; return spare_; }
    double u, v, s;
    do {
        u = 2.0 * uniform() - 1.0;
        v = 2.0 * uniform() - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double f = std::sqrt(-2.0 * log_det(s) / s);
    spare_ = v * f;
    has_spare_ = true;
    return u * f;
}

std::size_t Rng::below(std::size_t n) { return std::size_t(uniform() * double(n)); }

std::string num(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
    if (v == std::floor(v) && std::fabs(v) <= kMaxSeed) {   // whole numbers up to 2^53 - 1 in full
        return std::to_string(static_cast<long long>(v));
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::size_t product(const Shape& s) {
    std::size_t p = 1;
    for (auto d : s) p *= d;
    return p;
}

Shape shape_of(const Tensor& t) { return Shape(t.shape().begin(), t.shape().end()); }

std::vector<double> multi_index(const Tensor& t, std::size_t flat) {
    std::vector<double> ix(t.dimension());
    for (std::size_t a = t.dimension(); a-- > 0;) {
        ix[a] = double(flat % t.shape()[a]);
        flat /= t.shape()[a];
    }
    return ix;
}

void require_rank(Name name, const Tensor& t, std::size_t lo, std::size_t hi, const char* layout) {
    const std::size_t r = t.dimension();
    if (r < lo || r > hi)
        throw Error(ErrorCode::rank, {{"fn", name.fn}, {"arg", name.arg}, {"layout", layout}, {"minRank", lo}, {"maxRank", hi},
                                      {"shape", shape_of(t)}, {"rank", r}});
    for (std::size_t i = 0; i < r; ++i)
        if (t.shape()[i] == 0)
            throw Error(ErrorCode::empty_axis, {{"fn", name.fn}, {"arg", name.arg}, {"layout", layout}, {"shape", shape_of(t)}});
}

void require_finite(Name name, const Tensor& t, bool allow_neg_inf, bool allow_nan) {
    const std::size_t n = t.size();
    const double* p = t.data();
    if (all_finite(p, n)) return;
    for (std::size_t i = 0; i < n; ++i) {
        const double v = p[i];
        if (std::isfinite(v) || (allow_neg_inf && v == -std::numeric_limits<double>::infinity()) || (allow_nan && std::isnan(v)))
            continue;
        std::vector<std::string> allowed;
        if (allow_neg_inf) allowed.push_back("-Infinity");
        if (allow_nan) allowed.push_back("NaN");
        throw Error(ErrorCode::not_finite, {{"fn", name.fn}, {"arg", name.arg}, {"value", v}, {"index", multi_index(t, i)},
                                            {"allowed", allowed}});
    }
}

void require_no_overflow(std::string_view fn, const char* quantity, const char* formula, const Tensor& t) {
    const double* p = t.data();
    if (all_finite(p, t.size())) return;
    for (std::size_t i = 0; i < t.size(); ++i)
        if (!std::isfinite(p[i]))
            throw Error(ErrorCode::overflow, {{"fn", fn}, {"quantity", quantity}, {"formula", formula}, {"value", p[i]},
                                              {"index", multi_index(t, i)}});
}

void score_overflow(std::string_view fn, const Tensor& scores) {
    require_no_overflow(fn, "scores", "q.k * scale", scores);
    throw Error(ErrorCode::internal, {{"fn", fn}, {"detail", "a score overflowed that the scores do not show"}});
}

void too_large(Name name, const char* layout, const Shape& shape) {
    double elements = 1;
    for (auto d : shape) elements *= double(d);
    throw Error(ErrorCode::too_large, {{"fn", name.fn}, {"arg", name.arg}, {"layout", layout}, {"shape", shape},
                                       {"elements", elements}, {"limit", kMaxElements}});
}

std::size_t to_index(Name name, double v, std::size_t lo, std::size_t hi) {
    if (!whole_in(v, double(lo), double(hi)))
        throw Error(ErrorCode::integer_range, {{"fn", name.fn}, {"arg", name.arg}, {"value", v}, {"min", lo}, {"max", hi}});
    return std::size_t(v);
}

long to_dim(Name name, double v) {
    const double lo = -double(kMaxRank), hi = double(kMaxRank) - 1;
    if (!whole_in(v, lo, hi))
        throw Error(ErrorCode::integer_range, {{"fn", name.fn}, {"arg", name.arg}, {"value", v}, {"min", lo}, {"max", hi}});
    return long(v);
}

std::uint64_t to_seed(Name name, double v) {
    if (!whole_in(v, 0, kMaxSeed))
        throw Error(ErrorCode::integer_range, {{"fn", name.fn}, {"arg", name.arg}, {"value", v}, {"min", 0}, {"max", kMaxSeed}});
    return std::uint64_t(v);
}

double scale_factor(const Scale& s, std::size_t hs, std::size_t C) {
    switch (s.kind) {
        case Scale::Kind::Head: return 1.0 / std::sqrt(double(hs));
        case Scale::Kind::Model: return 1.0 / std::sqrt(double(C));
        case Scale::Kind::None: return 1.0;
        case Scale::Kind::Value: return s.value;
    }
    return 1.0;
}

}  // namespace detail

double Scale::factor(std::size_t hs, std::size_t C) const { return detail::scale_factor(*this, hs, C); }

}  // namespace attn
