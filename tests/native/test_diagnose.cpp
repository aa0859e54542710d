// "Check my numbers" (attn/diagnose.hpp): each known mistake, computed by the core, against
// values computed by hand; the levels of a match (float64, float32, printed precision); shapes.
// tests/node/diagnose.test.mjs runs the same mistakes as PyTorch programs.
#include <doctest/doctest.h>

#include <cmath>
#include <algorithm>
#include <limits>

#include <xtensor/xview.hpp>

#include "attn/attention.hpp"
#include "attn/diagnose.hpp"

using namespace attn;

namespace {

const double nan_ = std::numeric_limits<double>::quiet_NaN();

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

Diagnosis check(const std::string& c, const DiagnoseInputs& in, const Tensor& student, const Tensor& res = Tensor()) {
    return diagnose(c, in, student, res.dimension() == 0 ? Tensor(xt::zeros<double>({std::size_t(0)})) : res);
}

}  // namespace

TEST_SUITE("diagnose") {
    const Tensor X = {{2.0, 0.0}, {0.0, 4.0}, {4.0, 2.0}};   // the chapter's example

    TEST_CASE("18.1: the right average matches at float64, each mistake by hand is named") {
        DiagnoseInputs in;
        in.x = X;
        const Diagnosis right = check("causalAverage", in, Tensor{{2.0, 0.0}, {1.0, 2.0}, {2.0, 2.0}});
        CHECK(right.verdict == "correct");
        CHECK(right.level == MatchLevel::Float64);
        CHECK(right.mistakes.empty());
        const std::pair<const char*, Tensor> mistakes[] = {
            {"sums_not_means", {{2.0, 0.0}, {2.0, 4.0}, {6.0, 6.0}}},
            {"sees_future", {{2.0, 2.0}, {2.0, 2.0}, {2.0, 2.0}}},
            {"misses_itself", {{nan_, nan_}, {2.0, 0.0}, {1.0, 2.0}}},
            {"over_channels", {{2.0, 1.0}, {0.0, 2.0}, {4.0, 3.0}}},
        };
        for (const auto& mistake : mistakes) {
            const char* id = mistake.first;
            const Tensor& student = mistake.second;
            CAPTURE(id);
            const Diagnosis d = check("causalAverage", in, student);
            CHECK(d.verdict == "mistake");
            CHECK(d.mistakes == std::vector<std::string>{id});
            CHECK(d.level == MatchLevel::None);
        }
    }

    TEST_CASE("18.1 on a batch: the mistake of each sequence, and the NaN row of each") {
        DiagnoseInputs in;
        in.x = Tensor(xt::zeros<double>({2, 3, 2}));
        xt::view(in.x, 0) = X;
        xt::view(in.x, 1) = X * -1.0;
        Tensor student = xt::zeros<double>({2, 3, 2});
        xt::view(student, 0) = Tensor{{nan_, nan_}, {2.0, 0.0}, {1.0, 2.0}};
        xt::view(student, 1) = Tensor{{nan_, nan_}, {-2.0, 0.0}, {-1.0, -2.0}};
        const Diagnosis d = check("causalAverage", in, student);
        CHECK(d.mistakes == std::vector<std::string>{"misses_itself"});
    }

    TEST_CASE("18.2: the mask after the softmax, the other axis, no mask and masks off by one, on zero scores") {
        DiagnoseInputs in;
        in.scores = xt::zeros<double>({3, 3});
        const double t = 1.0 / 3.0;
        const std::pair<const char*, Tensor> cases[] = {
            {"correct", {{1, 0, 0}, {0.5, 0.5, 0}, {t, t, t}}},
            {"mask_after", {{t, 0, 0}, {t, t, 0}, {t, t, t}}},
            {"no_mask", {{t, t, t}, {t, t, t}, {t, t, t}}},
            {"softmax_over_queries", {{t, 0, 0}, {t, 0.5, 0}, {t, 0.5, 1}}},
            {"sees_one_future", {{0.5, 0.5, 0}, {t, t, t}, {t, t, t}}},
            {"misses_itself", {{nan_, nan_, nan_}, {1, 0, 0}, {0.5, 0.5, 0}}},
        };
        for (const auto& c : cases) {
            const char* id = c.first;   // a named variable, not a structured binding: CAPTURE's lambda cannot capture one in C++17
            const Tensor& student = c.second;
            CAPTURE(id);
            const Diagnosis d = check("softmax", in, student);
            if (std::string(id) == "correct") {
                CHECK(d.verdict == "correct");
            } else {
                CHECK(d.verdict == "mistake");
                CHECK(d.mistakes == std::vector<std::string>{id});
            }
        }
    }

    TEST_CASE("levels: float32 rounding, the printed precision, and a wrong cell located") {
        DiagnoseInputs in;
        in.scores = Tensor{{0.3, -1.2, 0.7}, {2.0, 0.1, -0.4}, {0.25, 0.5, -2.0}};
        const Tensor w = check("softmax", in, Tensor(xt::ones<double>({1, 1}))).expected;
        CHECK(check("softmax", in, w).level == MatchLevel::Float64);
        CHECK(check("softmax", in, Tensor(w + 3e-7)).level == MatchLevel::Float32);
        // as PyTorch's four decimals can be off: 4.5e-5, under half a unit of the fourth decimal
        const Tensor printed = w + 4.5e-5;
        CHECK(check("softmax", in, printed).level == MatchLevel::None);
        CHECK(check("softmax", in, printed, Tensor(xt::zeros<double>(w.shape()) + 5e-5)).level == MatchLevel::Printed);
        Tensor off = w;
        off(2, 1) += 1e-3;
        const Diagnosis d = check("softmax", in, off);
        CHECK(d.verdict == "unknown");
        CHECK(d.first_wrong == std::vector<std::size_t>{2, 1});
        CHECK(d.max_diff == doctest::Approx(1e-3).epsilon(1e-6));
        CHECK(d.diff(2, 1) == doctest::Approx(1e-3).epsilon(1e-6));
        CHECK(d.diff(0, 0) == 0.0);
    }

    TEST_CASE("shapes: a forgotten transpose and leading axes of 1 are aligned and said, another shape is a shape verdict") {
        DiagnoseInputs in;
        in.x = X;
        const Tensor y = {{2.0, 0.0}, {1.0, 2.0}, {2.0, 2.0}};
        const Diagnosis t = check("causalAverage", in, Tensor(xt::transpose(y)));
        CHECK(t.verdict == "correct");
        CHECK(t.shape_note == "transposed");
        CHECK(t.shape == Shape{2, 3});
        const Diagnosis lead = check("causalAverage", in, Tensor(xt::reshape_view(y, Shape{1, 3, 2})));
        CHECK(lead.verdict == "correct");
        CHECK(lead.shape_note == "leading_ones");
        const Diagnosis bad = check("causalAverage", in, Tensor(xt::zeros<double>({4, 2})));
        CHECK(bad.verdict == "shape");
        CHECK(bad.shape == Shape{4, 2});
        CHECK(shape_str(Shape(bad.expected.shape().begin(), bad.expected.shape().end())) == "(3, 2)");
    }

    TEST_CASE("attention: mistakes these inputs cannot tell apart are said, not claimed") {
        DiagnoseInputs in;
        in.x = randn({1, 4, 6}, 1);
        in.wq = randn({6, 6}, 2);
        in.wk = randn({6, 6}, 3);
        in.wv = randn({6, 6}, 4);
        in.heads = 1;   // hs = C = 6: 1/sqrt(C) is 1/sqrt(hs)
        const Diagnosis one = check("attention", in, Tensor(xt::zeros<double>({1, 4, 6})));
        CHECK(has(one.same_as_correct, "scale_model"));
        CHECK_FALSE(has(one.same_as_correct, "no_scale"));
        for (const auto& c : one.candidates) CHECK(c.id != "heads_not_split");   // one head: nothing to split
        in.heads = 3;
        const Diagnosis three = check("attention", in, Tensor(xt::zeros<double>({1, 4, 6})));
        CHECK_FALSE(has(three.same_as_correct, "scale_model"));
        bool split = false;
        for (const auto& c : three.candidates) split = split || c.id == "heads_not_split";
        CHECK(split);
    }

    // weights (3, 3), a keep mask, p = 0.25: kept weights times 1 / (1 - p) = 4/3, 1 / p = 4, 1 - p = 3/4
    const Tensor W = {{1.0, 0.0, 0.0}, {0.5, 0.5, 0.0}, {0.25, 0.25, 0.5}};
    const Tensor Keep = {{1.0, 0.0, 1.0}, {0.0, 1.0, 1.0}, {1.0, 1.0, 0.0}};

    TEST_CASE("18.7 dropout: the right result in training and in evaluation, each mistake by hand is named") {
        DiagnoseInputs in;
        in.weights = W;
        in.keep = Keep;
        in.p = 0.25;
        const double f = 4.0 / 3.0;
        SUBCASE("training") {
            const std::pair<const char*, Tensor> cases[] = {
                {"correct", {{f, 0, 0}, {0, 0.5 * f, 0}, {0.25 * f, 0.25 * f, 0}}},
                {"no_rescale", {{1, 0, 0}, {0, 0.5, 0}, {0.25, 0.25, 0}}},
                {"divides_by_p", {{4, 0, 0}, {0, 2, 0}, {1, 1, 0}}},
                {"multiplies_by_1_minus_p", {{0.75, 0, 0}, {0, 0.375, 0}, {0.1875, 0.1875, 0}}},
            };
            for (const auto& c : cases) {
                const char* id = c.first;
                const Tensor& student = c.second;
                CAPTURE(id);
                const Diagnosis d = check("dropout", in, student);
                if (std::string(id) == "correct") {
                    CHECK(d.verdict == "correct");
                    CHECK(d.level == MatchLevel::Float64);
                } else {
                    CHECK(d.verdict == "mistake");
                    CHECK(d.mistakes == std::vector<std::string>{id});
                }
                CHECK(d.same_as_correct.empty());
                for (const auto& k : d.candidates) CHECK(k.id != "drops_in_eval");   // training: nothing to tell from evaluation
            }
        }
        SUBCASE("evaluation: the identity; dropping and rescaling anyway is the mistake") {
            in.training = false;
            const Diagnosis right = check("dropout", in, W);
            CHECK(right.verdict == "correct");
            CHECK(right.candidates.size() == 2);   // the right result and drops_in_eval only
            const Diagnosis d = check("dropout", in, Tensor{{f, 0, 0}, {0, 0.5 * f, 0}, {0.25 * f, 0.25 * f, 0}});
            CHECK(d.verdict == "mistake");
            CHECK(d.mistakes == std::vector<std::string>{"drops_in_eval"});
        }
        SUBCASE("p = 0.5: 1 / p is 1 / (1 - p), said and not claimed") {
            in.p = 0.5;
            const Diagnosis d = check("dropout", in, Tensor{{2, 0, 0}, {0, 1, 0}, {0.5, 0.5, 0}});
            CHECK(d.verdict == "correct");
            CHECK(d.same_as_correct == std::vector<std::string>{"divides_by_p"});
            CHECK(d.mistakes.empty());
        }
        SUBCASE("p = 0: nothing dropped could be told from anything") {
            in.p = 0.0;
            const Diagnosis d = check("dropout", in, W);
            CHECK(d.verdict == "correct");
            for (const auto& k : d.candidates) CHECK(k.id != "divides_by_p");   // 1 / 0: not tried
        }
    }

    TEST_CASE("18.7 dropout: a keep mask of another shape, values other than 0 and 1, a p of 1 or below 0 are coded errors") {
        DiagnoseInputs in;
        in.weights = W;
        in.keep = Keep;
        in.p = 0.25;
        const Tensor student = W;
        SUBCASE("the keep mask's shape") {
            in.keep = Tensor{{1.0, 0.0, 1.0}, {0.0, 1.0, 1.0}};
            CHECK_THROWS_WITH_AS(check("dropout", in, student), "diagnose: opts.keep must have shape (..., T, T) = (3, 3), got (2, 3)", Error);
        }
        SUBCASE("a value of the keep mask") {
            in.keep(1, 2) = 0.5;
            CHECK_THROWS_WITH_AS(check("dropout", in, student), "diagnose: opts.keep: every value must lie in {0, 1}, got 0.5 at [1, 2]", Error);
            try {
                check("dropout", in, student);
            } catch (const Error& e) {
                CHECK(e.code() == ErrorCode::element_range);
            }
        }
        SUBCASE("p") {
            for (const double p : {1.0, -0.1, nan_}) {
                CAPTURE(p);
                in.p = p;
                CHECK_THROWS_AS(check("dropout", in, student), Error);
                try {
                    check("dropout", in, student);
                } catch (const Error& e) {
                    CHECK(e.code() == ErrorCode::number_range);
                }
            }
            in.p = 1.0;
            CHECK_THROWS_WITH_AS(check("dropout", in, student), "diagnose: opts.p must be in [0, 1), got 1", Error);
        }
        SUBCASE("through the options: p is needed, a keep mask of another shape") {
            Options o{{"weights", W}, {"keep", Keep}};
            CHECK_THROWS_WITH_AS(diagnose("dropout", student, o), doctest::Contains("opts.p"), Error);
            o["p"] = 0.25;
            o["keep"] = Tensor(xt::ones<double>({1, 3, 3}));
            CHECK_THROWS_WITH_AS(diagnose("dropout", student, o), "diagnose: opts.keep must have shape (..., T, T) = (3, 3), got (1, 3, 3)", Error);
            o["keep"] = Keep;
            o["training"] = false;
            CHECK(diagnose("dropout", student, o).verdict == "correct");
        }
        CHECK(diagnose_mistakes("dropout") == std::vector<std::string>{"no_rescale", "divides_by_p", "multiplies_by_1_minus_p", "drops_in_eval"});
    }

    TEST_CASE("attention: the scores, before the mask and the softmax, are not said to leave their mistakes open") {
        DiagnoseInputs in;
        in.x = randn({1, 4, 6}, 1);
        in.wq = randn({6, 6}, 2);
        in.wk = randn({6, 6}, 3);
        in.wv = randn({6, 6}, 4);
        in.heads = 2;
        in.causal = true;
        in.quantity = "scores";
        MhaOptions o;
        o.wq = in.wq; o.wk = in.wk; o.wv = in.wv; o.heads = 2; o.causal = true;
        const Diagnosis d = check("attention", in, multi_head_attention(in.x, o).scores);
        CHECK(d.verdict == "correct");
        CHECK(d.same_as_correct.empty());
        for (const auto& c : d.candidates)
            for (const char* id : {"mask_after", "no_mask", "sees_one_future", "misses_itself", "softmax_over_queries"}) CHECK(c.id != id);
        bool scale = false;   // the scale's mistakes stay: they change the scores
        for (const auto& c : d.candidates) scale = scale || c.id == "no_scale";
        CHECK(scale);
        in.quantity = "weights";   // after the softmax they are all there
        const Diagnosis w = check("attention", in, multi_head_attention(in.x, o).weights);
        bool mask = false;
        for (const auto& c : w.candidates) mask = mask || c.id == "mask_after";
        CHECK(mask);
    }

    TEST_CASE("an unknown check is an Error naming it") {
        DiagnoseInputs in;
        CHECK_THROWS_AS(diagnose("average", in, Tensor(xt::ones<double>({1, 1})), Tensor()), Error);
        try {
            diagnose("average", in, Tensor(xt::ones<double>({1, 1})), Tensor());
        } catch (const Error& e) {
            CHECK(e.code() == ErrorCode::not_one_of);
        }
        CHECK(diagnose_mistakes("softmax") ==
              std::vector<std::string>{"mask_after", "no_mask", "softmax_over_queries", "sees_one_future", "misses_itself"});
    }
}
