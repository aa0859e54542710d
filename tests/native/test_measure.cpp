// What 18.8 measures on the model: the losses of the two splits (fixed windows, their standard
// error) and which head does what (pattern_stats on hand-made weights with hand-computed answers;
// head_patterns on a model, against pattern_stats of its own attention maps; an untrained model
// shows no pattern).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "attn/gpt.hpp"
#include "fixtures.hpp"
#include "internal.hpp"

using namespace attn;

namespace {
std::string shipped() { return fixtures::repo_file("lessons/data/train.txt"); }
GptConfig small(std::uint64_t seed = 1) {
    GptConfig c;
    c.C = 24; c.heads = 3; c.layers = 2; c.t_max = 12; c.seed = seed;
    return c;
}
TrainOptions opts(std::size_t batch = 3) { TrainOptions o; o.batch = batch; o.t = 12; return o; }
std::vector<char32_t> u32(const std::u32string& s) { return {s.begin(), s.end()}; }
constexpr std::size_t kPrev = 0, kSelf = 1, kSame = 2, kStart = 3, kWord = 4, kSep = 5;

// Four heads (T = 6) on "ab cad": 0 reads the previous character, 1 is uniform, 2 reads position 0,
// 3 reads position 2 (the space) from row 3 on and itself before.
Tensor four_heads() {
    const std::size_t T = 6;
    Tensor w = Tensor::from_shape({4, T, T});
    w.fill(0.0);
    for (std::size_t t = 0; t < T; ++t) {
        w(0, t, t == 0 ? 0 : t - 1) = 1.0;
        for (std::size_t j = 0; j <= t; ++j) w(1, t, j) = 1.0 / double(t + 1);
        w(2, t, 0) = 1.0;
        w(3, t, t >= 3 ? 2 : t) = 1.0;
    }
    return w;
}
}  // namespace

TEST_SUITE("gpt: what the page measures") {
    // Rows t = 1..5 of "ab cad" (a=0 b=1 ' '=2 c=3 a=4 d=5), by hand:
    //   previous, self: every row;  sameChar: t = 4 reads j = 0 ('a');  start: t = 2..5;
    //   wordStart: t = 5 (the space at 2, start 3 < t - 1);  separator: t = 4 and 5 (the space at 2).
    TEST_CASE("pattern statistics of hand-made heads equal the hand-computed means and uniform baselines") {
        const PatternStats s = pattern_stats(four_heads(), u32(U"ab cad"), true);
        REQUIRE(s.heads == 4);
        CHECK(s.rows == std::array<std::size_t, kPatterns>{5, 5, 1, 4, 1, 2});
        CHECK(s.entropy_rows == 5);
        // the uniform causal head: 1 / (t + 1) per target, averaged over the pattern's rows
        const double prev = (1.0 / 2 + 1.0 / 3 + 1.0 / 4 + 1.0 / 5 + 1.0 / 6) / 5;   // 0.29
        CHECK(s.baseline[kPrev] == doctest::Approx(prev));
        CHECK(s.baseline[kSelf] == doctest::Approx(prev));
        CHECK(s.baseline[kSame] == doctest::Approx(1.0 / 5));
        CHECK(s.baseline[kStart] == doctest::Approx((1.0 / 3 + 1.0 / 4 + 1.0 / 5 + 1.0 / 6) / 4));
        CHECK(s.baseline[kWord] == doctest::Approx(1.0 / 6));
        CHECK(s.baseline[kSep] == doctest::Approx((1.0 / 5 + 1.0 / 6) / 2));
        CHECK(s.entropy_baseline == doctest::Approx(std::log(720.0) / 5));   // ln 2 + ... + ln 6
        // head 0: all its weight on t - 1
        CHECK(s.mean[0] == std::array<double, kPatterns>{1, 0, 0, 0, 0, 0});
        CHECK(s.entropy[0] == 0.0);
        // head 1 is the uniform head: every mean is its baseline, the entropy too
        for (std::size_t k = 0; k < kPatterns; ++k) CHECK(s.mean[1][k] == doctest::Approx(s.baseline[k]));
        CHECK(s.entropy[1] == doctest::Approx(s.entropy_baseline));
        // head 2 reads position 0: the start, the earlier 'a' of row 4, and row 1's previous character
        CHECK(s.mean[2] == std::array<double, kPatterns>{0.2, 0, 1, 1, 0, 0});
        // head 3: row 3 reads its previous character (the space), rows 1 and 2 themselves, rows 4 and 5 the separator
        CHECK(s.mean[3] == std::array<double, kPatterns>{0.2, 0.4, 0, 0, 0, 1});
        // the verdicts: at least 3 times the uniform head
        const std::vector<std::vector<Pattern>> shows = {{Pattern::previous}, {}, {Pattern::same_char, Pattern::start}, {Pattern::separator}};
        for (std::size_t h = 0; h < 4; ++h)
            for (std::size_t k = 0; k < kPatterns; ++k) {
                CAPTURE(h);
                CAPTURE(k);
                const bool want = std::find(shows[h].begin(), shows[h].end(), Pattern(k)) != shows[h].end();
                CHECK(s.shows(h, Pattern(k)) == want);
            }
        // the strongest head of each pattern, over two layers (the second: the heads in reverse order)
        PatternStats rev = s;
        std::reverse(rev.mean.begin(), rev.mean.end());
        for (auto& m : rev.mean) for (double& v : m) v *= 0.5;   // weaker than layer 0 everywhere
        rev.mean[3][kSelf] = 0.9;                                   // but its head 3 (the uniform one) on self
        const HeadPatterns hp{0, 1, 6, true, "", {s, rev}};
        const auto at = [&](Pattern p) { const HeadPatterns::Head x = hp.strongest(p); return std::pair{x.layer, x.head}; };
        CHECK(at(Pattern::previous) == std::pair<std::size_t, std::size_t>{0, 0});
        CHECK(at(Pattern::self) == std::pair<std::size_t, std::size_t>{1, 3});
        CHECK(at(Pattern::same_char) == std::pair<std::size_t, std::size_t>{0, 2});
        CHECK(at(Pattern::separator) == std::pair<std::size_t, std::size_t>{0, 3});
        CHECK(at(Pattern::word_start) == std::pair<std::size_t, std::size_t>{0, 1});   // only the uniform head puts weight there
    }

    TEST_CASE("without the mask the uniform head reads all T positions, and windows add up row by row") {
        // B = 2 windows: the hand-made heads on "ab cad", then on "aaaaaa" (no separator, sameChar from t = 2)
        Tensor w = Tensor::from_shape({2, 4, 6, 6});
        const Tensor one = four_heads();
        for (std::size_t b = 0; b < 2; ++b) std::copy(one.begin(), one.end(), w.begin() + long(b * one.size()));
        const PatternStats s = pattern_stats(w, u32(U"ab cadaaaaaa"), false);
        // rows: window 1's plus window 2's (sameChar t = 2..5, start t = 2..5, no word start or separator)
        CHECK(s.rows == std::array<std::size_t, kPatterns>{10, 10, 5, 8, 1, 2});
        // without the mask every row reads T = 6 positions: 1/6 per target; sameChar in "aaaaaa" row t has t - 1 targets
        CHECK(s.baseline[kPrev] == doctest::Approx(1.0 / 6));
        CHECK(s.baseline[kSame] == doctest::Approx((1.0 / 6 + (1 + 2 + 3 + 4) / 6.0) / 5));
        CHECK(s.entropy_baseline == doctest::Approx(std::log(6.0)));
        // head 2 reads position 0, which holds an 'a' in both windows: sameChar 1 in every row that has one
        CHECK(s.mean[2][kSame] == doctest::Approx(1.0));
        CHECK(s.mean[2][kPrev] == doctest::Approx(0.2));   // rows t = 1 of both windows, of 10
        // the accumulator over the two windows one by one gives the same numbers
        PatternAccumulator acc;
        acc.add(one, u32(U"ab cad"), false);
        acc.add(one, u32(U"aaaaaa"), false);
        const PatternStats t = acc.result();
        CHECK(t.rows == s.rows);
        for (std::size_t h = 0; h < 4; ++h) {
            for (std::size_t k = 0; k < kPatterns; ++k) CHECK(t.mean[h][k] == doctest::Approx(s.mean[h][k]));
            CHECK(t.entropy[h] == doctest::Approx(s.entropy[h]));
        }
    }

    TEST_CASE("a pattern with no rows has no mean, no baseline and no verdict") {
        Tensor w = Tensor::from_shape({1, 2, 2});   // "ab": one row, t = 1
        w.fill(0.5);
        const PatternStats s = pattern_stats(w, u32(U"ab"), true);
        CHECK(s.rows[kPrev] == 1);
        CHECK(s.rows[kStart] == 0);
        CHECK(std::isnan(s.mean[0][kStart]));
        CHECK(std::isnan(s.baseline[kStart]));
        CHECK_FALSE(s.shows(0, Pattern::start));
    }

    TEST_CASE("spaces and separators: ASCII and CJK punctuation, not letters or digits") {
        for (char32_t c : std::u32string(U" \n\t\u3000")) CHECK(is_space(c));
        for (char32_t c : std::u32string(U",.;:!?'\"()-，。、；：！？《》…—")) CHECK(is_separator(c));
        for (char32_t c : std::u32string(U"aZ09月光é")) {
            CHECK_FALSE(is_separator(c));
            CHECK_FALSE(is_space(c));
        }
        CHECK_FALSE(is_space(U','));
    }

    TEST_CASE("head patterns of a text are the pattern statistics of the model's own attention maps") {
        CharTrainer tr(shipped(), small(), opts());
        tr.train_steps(3);
        const std::string text = "the cat. sat";
        const HeadPatterns hp = tr.head_patterns(text, 16);
        CHECK(hp.windows == 1);
        CHECK(hp.T == 12);
        CHECK(hp.text == text);
        CHECK(hp.step == 3);
        const std::vector<Tensor> maps = tr.attention_maps(text);
        REQUIRE(hp.layers.size() == 2);
        for (std::size_t l = 0; l < 2; ++l) {
            const PatternStats want = pattern_stats(maps[l], u32(U"the cat. sat"), true);
            CHECK(hp.layers[l].rows == want.rows);
            for (std::size_t h = 0; h < 3; ++h) {
                for (std::size_t k = 0; k < kPatterns; ++k) CHECK(hp.layers[l].mean[h][k] == doctest::Approx(want.mean[h][k]).epsilon(1e-12));
                CHECK(hp.layers[l].entropy[h] == doctest::Approx(want.entropy[h]).epsilon(1e-12));
            }
        }
    }

    TEST_CASE("the validation windows are evenly spaced over the split, read 4 at a time, the same as one by one") {
        CharTrainer tr(shipped(), small(), opts());
        tr.train_steps(2);
        const std::size_t W = 7, T = 12;
        const HeadPatterns hp = tr.head_patterns("", W);
        CHECK(hp.windows == W);
        CHECK(hp.text.empty());
        const std::vector<int>& val = tr.data().val();
        std::vector<PatternAccumulator> acc(2);
        for (std::size_t w = 0; w < W; ++w) {
            const std::size_t start = w * (val.size() - T) / (W - 1);
            const std::string window = tr.data().decode(std::vector<int>(val.begin() + long(start), val.begin() + long(start + T)));
            const std::vector<Tensor> maps = tr.attention_maps(window);
            std::vector<char32_t> chars;
            for (std::size_t i = 0; i < T; ++i) chars.push_back(tr.data().chars()[std::size_t(val[start + i])]);
            for (std::size_t l = 0; l < 2; ++l) acc[l].add(maps[l], chars, true);
        }
        for (std::size_t l = 0; l < 2; ++l) {
            const PatternStats want = acc[l].result();
            CHECK(hp.layers[l].rows == want.rows);
            CHECK(hp.layers[l].rows[kPrev] == W * (T - 1));
            for (std::size_t h = 0; h < 3; ++h)
                for (std::size_t k = 0; k < kPatterns; ++k) CHECK(hp.layers[l].mean[h][k] == doctest::Approx(want.mean[h][k]).epsilon(1e-12));
        }
    }

    TEST_CASE("an untrained model's heads are close to uniform: none shows a pattern") {
        CharTrainer tr(shipped(), small(5), opts());
        const HeadPatterns hp = tr.head_patterns("", 16);
        for (const PatternStats& s : hp.layers)
            for (std::size_t h = 0; h < s.heads; ++h) {
                for (std::size_t k = 0; k < kPatterns; ++k) {
                    CHECK_FALSE(s.shows(h, Pattern(k)));
                    CHECK(s.mean[h][k] / s.baseline[k] == doctest::Approx(1.0).epsilon(0.05));
                }
                CHECK(s.entropy[h] == doctest::Approx(s.entropy_baseline).epsilon(0.01));
            }
    }

    TEST_CASE("evaluate: both splits on the same number of evenly spaced windows, the mean and its standard error") {
        CharTrainer tr(shipped(), small(), opts(3));
        tr.train_steps(4);
        const std::size_t batches = 2, B = 3, T = 12, K = batches * B;
        for (bool validation : {false, true}) {
            CAPTURE(validation);
            const std::vector<int>& split = validation ? tr.data().val() : tr.data().train();
            // each window on its own (B = 1): the loss of T characters
            std::vector<double> losses;
            for (std::size_t k = 0; k < K; ++k) {
                const std::size_t start = k * (split.size() - T - 1) / (K - 1);
                const std::vector<int> x(split.begin() + long(start), split.begin() + long(start + T)),
                    y(split.begin() + long(start + 1), split.begin() + long(start + T + 1));
                losses.push_back(tr.model().forward(x, y, 1, T));
            }
            double mean = 0, ss = 0;
            for (double l : losses) mean += l / double(K);
            for (double l : losses) ss += (l - mean) * (l - mean);
            const SplitLoss got = tr.evaluate(validation, batches);
            CHECK(got.loss == doctest::Approx(mean).epsilon(1e-12));
            CHECK(got.se == doctest::Approx(std::sqrt(ss / double(K - 1) / double(K))).epsilon(1e-9));
            CHECK(got.se > 0.0);
        }
        CHECK(tr.evaluate(true, 2).loss == tr.evaluate(true, 2).loss);   // the same windows every time
    }
}
