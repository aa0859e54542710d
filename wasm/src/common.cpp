// Seeded generator, messages, checks and option parsing.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

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

Shape checked_shape(const std::string& name, const std::vector<double>& dims, std::size_t length) {
    if (dims.empty() || dims.size() > kMaxRank)
        detail::fail(name + ": shape must have 1 to " + std::to_string(kMaxRank) + " axes, got " +
                     std::to_string(dims.size()));
    Shape s;
    double total = 1;
    for (std::size_t i = 0; i < dims.size(); ++i) {
        double d = dims[i];
        if (!(d >= 1) || d != std::floor(d) || d > double(kMaxElements))
            detail::fail(name + ": shape[" + std::to_string(i) + "] must be a whole number >= 1, got " +
                         detail::num(d));
        total *= d;
        s.push_back(std::size_t(d));
    }
    if (total > double(kMaxElements))
        detail::fail(name + ": shape " + shape_str(s) + " has " + detail::num(total) +
                     " elements, more than the limit of " + std::to_string(kMaxElements));
    if (std::size_t(total) != length)
        detail::fail(name + ": shape " + shape_str(s) + " needs " + detail::num(total) +
                     " values, data has " + std::to_string(length));
    return s;
}

Tensor randn(const Shape& shape, std::uint64_t seed, double stddev) {
    if (shape.empty()) detail::fail("randn: shape must have at least one axis");
    if (!(stddev > 0.0) || !std::isfinite(stddev)) detail::fail("randn: std must be a finite number > 0, got " + detail::num(stddev));
    for (std::size_t i = 0; i < shape.size(); ++i)
        if (shape[i] == 0) detail::fail("randn: shape[" + std::to_string(i) + "] must be >= 1, got 0");
    detail::require_size("randn " + shape_str(shape), detail::product(shape));
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
    if (v == std::floor(v) && std::fabs(v) < 1e15) {
        std::ostringstream o;
        o << static_cast<long long>(v);
        return o.str();
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

void fail(const std::string& msg) { throw Error(msg); }

std::size_t product(const Shape& s) {
    std::size_t p = 1;
    for (auto d : s) p *= d;
    return p;
}

void require_rank(Name name, const Tensor& t, std::size_t lo, std::size_t hi, const char* layout) {
    const std::size_t r = t.dimension();
    if (r < lo || r > hi) {
        Shape s(t.shape().begin(), t.shape().end());
        fail(name.str() + ": expected " + layout + ", got shape " + shape_str(s) + " (rank " + std::to_string(r) + ")");
    }
    for (std::size_t i = 0; i < r; ++i)
        if (t.shape()[i] == 0) {
            Shape s(t.shape().begin(), t.shape().end());
            fail(name.str() + ": expected " + layout + " with no empty axis, got shape " + shape_str(s));
        }
}

void require_finite(Name name, const Tensor& t, bool allow_neg_inf, bool allow_nan) {
    const std::size_t n = t.size();
    const double* p = t.data();
    if (all_finite(p, n)) return;
    for (std::size_t i = 0; i < n; ++i) {
        const double v = p[i];
        if (std::isfinite(v) || (allow_neg_inf && v == -std::numeric_limits<double>::infinity()) || (allow_nan && std::isnan(v)))
            continue;
        // Name the element by its multi-index.
        std::string idx;
        std::size_t rem = i;
        std::vector<std::size_t> ix(t.dimension());
        for (std::size_t a = t.dimension(); a-- > 0;) { ix[a] = rem % t.shape()[a]; rem /= t.shape()[a]; }
        for (std::size_t a = 0; a < ix.size(); ++a) idx += (a ? ", " : "") + std::to_string(ix[a]);
        fail(name.str() + ": every value must be a finite number" + std::string(allow_neg_inf ? " or -Infinity" : "") +
             std::string(allow_nan ? " or NaN" : "") + ", got " + num(v) + " at [" + idx + "]");
    }
}

void require_no_overflow(Name what, const Tensor& t) {
    const double* p = t.data();
    if (all_finite(p, t.size())) return;
    for (std::size_t i = 0; i < t.size(); ++i)
        if (!std::isfinite(p[i]))
            fail(what.str() + " overflow float64 (" + num(p[i]) + " at flat index " + std::to_string(i) +
                 "): the inputs are too large in magnitude");
}

void size_error(const std::string& what, std::size_t elements) {
    fail(what + " would have " + std::to_string(elements) + " elements, more than the limit of " + std::to_string(kMaxElements));
}

std::size_t to_index(const std::string& name, double v, std::size_t lo, std::size_t hi) {
    if (!(v >= double(lo) && v <= double(hi)) || v != std::floor(v))
        fail(name + " must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
             ", got " + num(v));
    return std::size_t(v);
}

std::uint64_t to_seed(const std::string& name, double v) {
    if (!(v >= 0 && v <= 9007199254740991.0) || v != std::floor(v))
        fail(name + " must be a whole number from 0 to 2^53 - 1, got " + num(v));
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

// ---- OptionReader ----------------------------------------------------------------------
static const char* type_name(const OptionValue& v) {
    switch (v.index()) {
        case 0: return "a boolean";
        case 1: return "a number";
        case 2: return "a string";
        case 3: return "a tensor";
        default: return "a boolean tensor";
    }
}

OptionReader::OptionReader(const Options& opts, std::string fn) : opts_(opts), fn_(std::move(fn)) {}

bool OptionReader::has(const std::string& key) const { return opts_.count(key) != 0; }

const OptionValue* OptionReader::raw(const std::string& key) {
    used_.push_back(key);
    auto it = opts_.find(key);
    return it == opts_.end() ? nullptr : &it->second;
}

bool OptionReader::boolean(const std::string& key, bool fallback) {
    const OptionValue* v = raw(key);
    if (!v) return fallback;
    if (auto b = std::get_if<bool>(v)) return *b;
    fail(fn_ + ": option '" + key + "' must be true or false, got " + type_name(*v));
}

double OptionReader::number(const std::string& key, double fallback) {
    const OptionValue* v = raw(key);
    if (!v) return fallback;
    if (auto d = std::get_if<double>(v)) return *d;
    fail(fn_ + ": option '" + key + "' must be a number, got " + type_name(*v));
}

static std::string join_quoted(std::initializer_list<const char*> xs) {
    std::string out;
    std::size_t i = 0;
    for (const char* x : xs) {
        if (i) out += (i + 1 == xs.size()) ? " or " : ", ";
        out += std::string("'") + x + "'";
        ++i;
    }
    return out;
}

std::string OptionReader::string(const std::string& key, const std::string& fallback,
                                 std::initializer_list<const char*> allowed) {
    const OptionValue* v = raw(key);
    if (!v) return fallback;
    auto s = std::get_if<std::string>(v);
    if (!s) fail(fn_ + ": option '" + key + "' must be " + join_quoted(allowed) + ", got " + type_name(*v));
    for (const char* a : allowed)
        if (*s == a) return *s;
    fail(fn_ + ": option '" + key + "' must be " + join_quoted(allowed) + ", got '" + *s + "'");
}

const Tensor* OptionReader::tensor(const std::string& key) {
    const OptionValue* v = raw(key);
    if (!v) return nullptr;
    if (auto t = std::get_if<Tensor>(v)) return t;
    fail(fn_ + ": option '" + key + "' must be a tensor {shape, data: Float64Array}, got " + type_name(*v));
}

const BoolTensor* OptionReader::bool_tensor(const std::string& key) {
    const OptionValue* v = raw(key);
    if (!v) return nullptr;
    if (auto t = std::get_if<BoolTensor>(v)) return t;
    return nullptr;   // caller decides what else the key may hold
}

Scale OptionReader::scale(const std::string& key, std::initializer_list<const char*> kinds) {
    const OptionValue* v = raw(key);
    Scale s;
    if (!v) return s;
    std::string allowed = join_quoted(kinds) + " or a number";
    if (auto d = std::get_if<double>(v)) {
        if (!std::isfinite(*d)) fail(fn_ + ": option '" + key + "' must be finite, got " + num(*d));
        s.kind = Scale::Kind::Value;
        s.value = *d;
        return s;
    }
    auto str = std::get_if<std::string>(v);
    if (!str) fail(fn_ + ": option '" + key + "' must be " + allowed + ", got " + type_name(*v));
    for (const char* k : kinds)
        if (*str == k) {
            s.kind = *str == "head" ? Scale::Kind::Head : *str == "model" ? Scale::Kind::Model : Scale::Kind::None;
            return s;
        }
    fail(fn_ + ": option '" + key + "' must be " + allowed + ", got '" + *str + "'");
}

void OptionReader::finish() const {
    for (const auto& kv : opts_)
        if (std::find(used_.begin(), used_.end(), kv.first) == used_.end()) {
            std::vector<std::string> names;
            for (const auto& u : used_)
                if (std::find(names.begin(), names.end(), u) == names.end()) names.push_back(u);
            std::string known;
            for (std::size_t i = 0; i < names.size(); ++i) known += (i ? ", " : "") + names[i];
            fail(fn_ + ": unknown option '" + kv.first + "' (known: " + (known.empty() ? "none" : known) + ")");
        }
}

MhaOptions read_mha_options(OptionReader& r, bool weights_required) {
    MhaOptions o;
    const char* names[3] = {"wq", "wk", "wv"};
    Tensor* dst[3] = {&o.wq, &o.wk, &o.wv};
    for (int i = 0; i < 3; ++i) {
        const Tensor* t = r.tensor(names[i]);
        if (!t && weights_required) fail(std::string("option '") + names[i] + "' is required: a (C, D) tensor");
        if (t) *dst[i] = *t;
    }
    o.heads = to_index("option 'heads'", r.number("heads", 1), 1, 1 << 20);
    o.causal = r.boolean("causal", false);
    o.scale = r.scale("scale", {"head", "model", "none"});
    if (const Tensor* m = r.tensor("memory")) { o.has_memory = true; o.memory = *m; }
    return o;
}

}  // namespace detail

double Scale::factor(std::size_t hs, std::size_t C) const { return detail::scale_factor(*this, hs, C); }

}  // namespace attn
