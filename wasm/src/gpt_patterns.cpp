// 18.8's tour of the trained model: what each head attends to, measured on held-out text
// (gpt.hpp defines the patterns, their rows and baselines). pattern_stats is a pure function of
// the weights and the characters; CharTrainer::head_patterns runs the model to get the weights.
#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/gpt.hpp"
#include "internal.hpp"

namespace attn {

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t kMaxPatternWindows = 256;
constexpr std::size_t P = kPatterns;
constexpr std::size_t idx(Pattern p) { return std::size_t(p); }

// Row t's targets: for each pattern the positions it puts weight on (none: the row does not count).
struct Targets {
    std::array<std::vector<std::size_t>, P> at;
};

Targets targets_of(const char32_t* c, std::size_t t) {
    Targets r;
    r.at[idx(Pattern::previous)] = {t - 1};
    r.at[idx(Pattern::self)] = {t};
    for (std::size_t j = 0; j + 1 < t; ++j)
        if (c[j] == c[t]) r.at[idx(Pattern::same_char)].push_back(j);
    if (t >= 2) r.at[idx(Pattern::start)] = {0};
    // the last space (word start: one after it) and the last separator before t
    std::size_t space = t, sep = t;
    for (std::size_t j = t; j-- > 0;) {
        if (space == t && is_space(c[j])) space = j;
        if (sep == t && is_separator(c[j])) sep = j;
        if (space != t && sep != t) break;
    }
    if (space != t && space + 2 < t) r.at[idx(Pattern::word_start)] = {space + 1};
    if (sep != t && sep + 1 < t) r.at[idx(Pattern::separator)] = {sep};
    return r;
}
}  // namespace

const char* pattern_name(Pattern p) {
    static const char* const names[P] = {"previous", "self", "sameChar", "start", "wordStart", "separator"};
    return names[idx(p)];
}

bool is_space(char32_t c) { return c == U' ' || c == U'\t' || c == U'\n' || c == U'\r' || c == 0x0B || c == 0x0C || c == 0x3000; }

bool is_separator(char32_t c) {
    if (is_space(c)) return true;
    if ((c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E)) return true;   // ASCII
    if (c >= 0x2010 && c <= 0x2027) return true;   // dashes, quotation marks, the ellipsis
    if (c >= 0x3001 && c <= 0x303F) return true;   // CJK: 、。〈〉《》「」【】 ...
    return (c >= 0xFF01 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40) || (c >= 0xFF5B && c <= 0xFF65);   // full-width
}

bool PatternStats::shows(std::size_t head, Pattern p) const {
    const std::size_t k = idx(p);
    return rows[k] > 0 && mean[head][k] >= kPatternFactor * baseline[k];
}

namespace {
// weights' (B, NH, T) after its checks
struct WeightDims { std::size_t B, NH, T; };
WeightDims check_weights(const Tensor& weights, const std::vector<char32_t>& chars) {
    const char* fn = "patternStats";
    const char* layout = "(B, NH, T, T) | (NH, T, T)";
    detail::require_rank({fn, "weights"}, weights, 3, 4, layout);
    detail::require_finite({fn, "weights"}, weights);
    const auto& s = weights.shape();
    const std::size_t r = weights.dimension(), B = r == 4 ? s[0] : 1, NH = s[r - 3], T = s[r - 1];
    if (s[r - 2] != T) {
        Shape want(s.begin(), s.end());
        want[r - 2] = T;
        throw Error(ErrorCode::shape_mismatch, {{"fn", fn}, {"arg", "weights"}, {"layout", layout}, {"expectedShape", want}, {"shape", detail::shape_of(weights)}});
    }
    for (std::size_t i = 0; i < weights.size(); ++i)
        if (!(weights.data()[i] >= 0.0 && weights.data()[i] <= 1.0))
            throw Error(ErrorCode::element_range, {{"fn", fn}, {"arg", "weights"}, {"value", weights.data()[i]},
                                                   {"index", detail::multi_index(weights, i)}, {"range", "[0, 1]"}});
    if (chars.size() != B * T) throw Error(ErrorCode::length_range, {{"fn", fn}, {"arg", "chars"}, {"length", chars.size()}, {"min", B * T}, {"max", B * T}});
    return {B, NH, T};
}
}  // namespace

void PatternAccumulator::add(const Tensor& weights, const std::vector<char32_t>& chars, bool causal) {
    const auto [B, NH, T] = check_weights(weights, chars);
    if (heads_ == 0) {
        heads_ = NH;
        sum_.assign(NH, {});
        entropy_.assign(NH, 0.0);
    } else if (NH != heads_) {
        Shape want(weights.shape().begin(), weights.shape().end());
        want[weights.dimension() - 3] = heads_;
        throw Error(ErrorCode::shape_mismatch, {{"fn", "patternStats"}, {"arg", "weights"}, {"layout", "(B, NH, T, T) | (NH, T, T)"},
                                                {"expectedShape", want}, {"shape", detail::shape_of(weights)}});
    }
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 1; t < T; ++t) {
            const Targets tg = targets_of(chars.data() + b * T, t);
            const double n = double(causal ? t + 1 : T);   // the positions row t may read
            for (std::size_t k = 0; k < P; ++k)
                if (!tg.at[k].empty()) {
                    rows_[k] += 1;
                    base_[k] += double(tg.at[k].size()) / n;
                }
            entropy_rows_ += 1;
            entropy_base_ += std::log(n);
            for (std::size_t h = 0; h < NH; ++h) {
                const double* row = weights.data() + ((b * NH + h) * T + t) * T;
                for (std::size_t k = 0; k < P; ++k)
                    for (std::size_t j : tg.at[k]) sum_[h][k] += row[j];
                double e = 0.0;
                for (std::size_t j = 0; j < T; ++j)
                    if (row[j] > 0.0) e -= row[j] * std::log(row[j]);   // 0 log 0 = 0
                entropy_[h] += e;
            }
        }
}

PatternStats PatternAccumulator::result() const {
    PatternStats out;
    out.heads = heads_;
    out.rows = rows_;
    out.entropy_rows = entropy_rows_;
    const auto mean = [](double sum, std::size_t n) { return n ? sum / double(n) : kNaN; };
    for (std::size_t k = 0; k < P; ++k) out.baseline[k] = mean(base_[k], rows_[k]);
    out.entropy_baseline = mean(entropy_base_, entropy_rows_);
    for (std::size_t h = 0; h < heads_; ++h) {
        std::array<double, P> m{};
        for (std::size_t k = 0; k < P; ++k) m[k] = mean(sum_[h][k], rows_[k]);
        out.mean.push_back(m);
        out.entropy.push_back(mean(entropy_[h], entropy_rows_));
    }
    return out;
}

PatternStats pattern_stats(const Tensor& weights, const std::vector<char32_t>& chars, bool causal) {
    PatternAccumulator acc;
    acc.add(weights, chars, causal);
    return acc.result();
}

HeadPatterns::Head HeadPatterns::strongest(Pattern p) const {
    Head best{0, 0};
    double top = -1.0;
    for (std::size_t l = 0; l < layers.size(); ++l)
        for (std::size_t h = 0; h < layers[l].heads; ++h)
            if (layers[l].mean[h][idx(p)] > top) { top = layers[l].mean[h][idx(p)]; best = {l, h}; }
    return best;
}

HeadPatterns CharTrainer::head_patterns(const std::string& text, std::size_t windows) {
    const char* fn = "headPatterns";
    if (windows < 1 || windows > kMaxPatternWindows) detail::to_index({fn, "opts.windows"}, double(windows), 1, kMaxPatternWindows);
    std::vector<int> ids;
    std::size_t T = cfg_.t_max, W = windows;
    if (!text.empty()) {
        ids = data_.encode(text, fn, "opts.text");
        if (ids.size() > cfg_.t_max)
            throw Error(ErrorCode::text_length, {{"fn", fn}, {"arg", "opts.text"}, {"length", ids.size()}, {"min", 1}, {"max", cfg_.t_max}});
        T = ids.size();
        W = 1;
    } else {
        // windows evenly spaced from the validation split's start to its end (it holds at least tMax + 1 characters)
        const std::vector<int>& val = data_.val();
        const std::size_t last = val.size() - T;
        for (std::size_t w = 0; w < W; ++w) {
            const std::size_t start = W == 1 ? 0 : w * last / (W - 1);
            ids.insert(ids.end(), val.begin() + long(start), val.begin() + long(start + T));
        }
    }
    // read kChunk windows at a time: the logits of all of them at once would be W * T * V numbers
    constexpr std::size_t kChunk = 4;
    std::vector<PatternAccumulator> acc(cfg_.layers);
    for (std::size_t w0 = 0; w0 < W; w0 += kChunk) {
        const std::size_t n = std::min(kChunk, W - w0);
        const std::vector<int> chunk(ids.begin() + long(w0 * T), ids.begin() + long((w0 + n) * T));
        model_.forward(chunk, {}, n, T);
        std::vector<char32_t> chars(chunk.size());
        for (std::size_t i = 0; i < chunk.size(); ++i) chars[i] = data_.chars()[std::size_t(chunk[i])];
        for (std::size_t l = 0; l < cfg_.layers; ++l) acc[l].add(model_.attention(l), chars, cfg_.causal);
    }
    HeadPatterns r{model_.steps(), W, T, cfg_.causal, text.empty() ? std::string() : data_.decode(ids), {}};
    for (const PatternAccumulator& a : acc) r.layers.push_back(a.result());
    return r;
}

namespace {
constexpr OptionSpec kText{"text", OptionKind::string, "the text measured, 1 to tMax characters of the vocabulary (default '': the validation windows)"};
constexpr OptionSpec kWindows{"windows", OptionKind::integer, "windows of tMax characters evenly spaced over the validation split, 1 to 256 (default 16)"};
}  // namespace

const OptionSet& head_patterns_option_set() {
    static const OptionSet set{&kText, &kWindows};
    return set;
}

HeadPatterns head_patterns(CharTrainer& tr, const Options& opts) {
    detail::OptionReader r(opts, "headPatterns", head_patterns_option_set());
    const std::string text = r.text(kText, "");
    const std::size_t windows = r.index(kWindows, 16, 1, kMaxPatternWindows);
    r.finish();
    return tr.head_patterns(text, windows);
}

}  // namespace attn
