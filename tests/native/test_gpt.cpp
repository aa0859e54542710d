// The character GPT: whole-model gradcheck, loss at initialisation, the future-character check,
// training on the shipped text, and the data's errors.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "attn/gpt.hpp"

using namespace attn;

namespace {
std::string shipped() {
    std::ifstream f(ATTN_TRAIN_TEXT);
    std::stringstream s;
    s << f.rdbuf();
    REQUIRE(s.str().size() > 2000);
    return s.str();
}
GptConfig small(std::uint64_t seed = 1) {
    GptConfig c;
    c.C = 32; c.heads = 4; c.layers = 2; c.t_max = 16; c.seed = seed;
    return c;
}
TrainOptions opts16() { TrainOptions o; o.batch = 8; o.t = 16; o.lr = 3e-3; return o; }
}  // namespace

TEST_SUITE("gpt") {
    TEST_CASE("the whole model's analytic gradients match finite differences") {
        const GptGradcheck g = gpt_gradcheck(3);
        CHECK(g.passed);
        CHECK(g.max_abs_error < 1e-7);
        CHECK(g.params > 1000);
        REQUIRE(g.inputs.size() == 16);   // one per parameter tensor, in layout order
        CHECK(g.inputs[0].name == "wte");
        CHECK(g.inputs[4].name == "qkvw");
        CHECK(g.inputs[15].name == "lnfb");
        for (const GradcheckInput& in : g.inputs) {
            CAPTURE(in.name);
            CHECK(in.passed);
            CHECK(in.max_ratio < 0.1);
        }
    }

    TEST_CASE("a wrong backward fails the whole-model comparison") {
        // the same comparison, by hand, with one gradient entry spoiled
        GptConfig cfg;
        cfg.vocab = 5; cfg.C = 4; cfg.heads = 2; cfg.layers = 1; cfg.t_max = 3; cfg.seed = 2;
        Gpt m(cfg);
        const std::vector<int> x{0, 1, 2, 3, 4, 0}, y{1, 2, 3, 4, 0, 1};
        m.forward(x, y, 2, 3);
        m.zero_grad();
        m.backward();
        std::vector<double> g = m.grads();
        std::size_t i = 0;   // the largest gradient entry, spoiled by half
        for (std::size_t k = 0; k < g.size(); ++k) if (std::fabs(g[k]) > std::fabs(g[i])) i = k;
        CHECK(std::fabs(g[i]) > 1e-3);
        g[i] *= 1.5;
        double& p = m.params()[i];
        const double saved = p;
        p = saved + 1e-6; const double lp = m.forward(x, y, 2, 3);
        p = saved - 1e-6; const double lm = m.forward(x, y, 2, 3);
        p = saved;
        const double numeric = (lp - lm) / 2e-6;
        CHECK(std::fabs(m.grads()[i] - numeric) < 1e-8);
        CHECK(std::fabs(g[i] - numeric) > 1e-5 + 1e-3 * std::fabs(numeric));   // PyTorch's tolerance says: fail
    }

    TEST_CASE("the loss at initialisation is about ln V") {
        CharTrainer tr(shipped(), small(), opts16());
        const double V = double(tr.data().vocab());
        CHECK(tr.data().vocab() > 20);
        CHECK(tr.evaluate(false, 4) == doctest::Approx(std::log(V)).epsilon(0.02));
    }

    TEST_CASE("replacing characters after t leaves logits at positions <= t exactly unchanged") {
        CharTrainer tr(shipped(), small(), opts16());
        tr.train_steps(5);   // not just the initial weights
        for (std::size_t t = 0; t < 10; ++t) {
            CAPTURE(t);
            const FutureCheck f = tr.future_check("the cat sat on", t, 7);
            CHECK(f.max_prefix_change == 0.0);
            CHECK(f.max_future_change > 1e-6);
        }
        GptConfig leaky = small();
        leaky.causal = false;   // the debug switch: attention sees the future
        CharTrainer bad(shipped(), leaky, opts16());
        CHECK(bad.future_check("the cat sat on", 3, 7).max_prefix_change > 1e-6);
    }

    TEST_CASE("attention maps are causal (NH, T, T) rows that sum to 1") {
        CharTrainer tr(shipped(), small(), opts16());
        const std::vector<Tensor> maps = tr.attention_maps("the cat");
        REQUIRE(maps.size() == 2);
        REQUIRE(maps[0].shape() == Tensor::shape_type{4, 7, 7});
        for (std::size_t h = 0; h < 4; ++h)
            for (std::size_t i = 0; i < 7; ++i) {
                double s = 0;
                for (std::size_t j = 0; j < 7; ++j) { s += maps[1](h, i, j); if (j > i) CHECK(maps[1](h, i, j) == 0.0); }
                CHECK(s == doctest::Approx(1.0));
            }
    }

    TEST_CASE("the same seed gives the same model, the same curve and the same samples") {
        CharTrainer a(shipped(), small(9), opts16()), b(shipped(), small(9), opts16());
        CHECK(a.model().params() == b.model().params());
        CHECK(a.train_steps(3) == b.train_steps(3));
        CHECK(a.sample("the ", 20, 0.8, 4) == b.sample("the ", 20, 0.8, 4));
        CharTrainer c(shipped(), small(10), opts16());
        CHECK(c.model().params() != a.model().params());
    }

    TEST_CASE("bad text and bad requests are errors") {
        CHECK_THROWS_WITH_AS(CharTrainer("", small(), opts16()), "text: the training text is empty", Error);
        CHECK_THROWS_WITH_AS(CharTrainer("the cat sat", small(), opts16()),
                             "text: 11 characters is too short for the context length tMax = 16; it needs at least 170", Error);
        CharTrainer tr(shipped(), small(), opts16());
        CHECK_THROWS_WITH_AS(tr.sample("the Q", 5, 1.0, 1), "sample: prompt: the character 'Q' is not in the training text's vocabulary", Error);
        CHECK_THROWS_WITH_AS(tr.attention_maps("the cat sat on the mat again"), "attention: text must have 1 to tMax = 16 characters, got 28", Error);
        CHECK_THROWS_WITH_AS(tr.future_check("the cat", 6, 1), "futureCheck: t must be from 0 to T - 2 = 5, got 6", Error);
        GptConfig bad = small();
        bad.heads = 5;
        CHECK_THROWS_WITH_AS(CharTrainer(shipped(), bad, opts16()), "gpt: heads = 5 does not divide the width C = 32", Error);
        CHECK_THROWS_WITH_AS(CharTrainer(std::string("ab\xff"), small(), opts16()), "text: not valid UTF-8 at byte 2", Error);
    }

    TEST_CASE("unicode text is split into characters, not bytes") {
        std::string zh;
        for (int i = 0; i < 40; ++i) zh += "猫坐在垫子上。狗坐在地毯上。";
        CharTrainer tr(zh, small(), opts16());
        CHECK(tr.data().vocab() == 10);   // 猫 坐 在 垫 子 上 。 狗 地 毯
        CHECK(tr.sample("猫", 5, 1.0, 1).size() == 6 * 3);   // six three-byte characters
    }
}

TEST_SUITE("training") {
    TEST_CASE("a few hundred steps on the shipped text bring the loss clearly below the unigram entropy") {
        CharTrainer tr(shipped(), small(1), opts16());
        const double h1 = tr.data().unigram_entropy();
        CHECK(h1 > 2.5);
        const double start = tr.evaluate(false, 8);
        tr.train_steps(300);
        const double train = tr.evaluate(false, 8), val = tr.evaluate(true, 8);
        MESSAGE("unigram " << h1 << ", start " << start << ", after 300 steps train " << train << " val " << val);
        CHECK(train < h1 - 0.4);
        CHECK(val < h1);
        CHECK(train < start - 1.0);
    }
}
