// The character GPT: its forward pass against a plain reference written from the textbook, its
// kernels at hand-computed values, AdamW against the textbook update, the initialisation, the
// data, the whole-model gradcheck, the future-character check, training on the shipped text, and
// the errors.
#include <doctest/doctest.h>

#include <cmath>

#include "attn/gpt.hpp"
#include "fixtures.hpp"
#include "gpt_kernels.hpp"
#include "internal.hpp"
#include "reference.hpp"

using namespace attn;

namespace {
std::string shipped() {
    const std::string text = fixtures::repo_file("lessons/data/train.txt");
    REQUIRE(text.size() > 2000);
    return text;
}
GptConfig small(std::uint64_t seed = 1) {
    GptConfig c;
    c.C = 32; c.heads = 4; c.layers = 2; c.t_max = 16; c.seed = seed;
    return c;
}
TrainOptions opts16() { TrainOptions o; o.batch = 8; o.t = 16; o.lr = 3e-3; return o; }

// A model where symmetric mistakes cannot cancel: V 11, C 12 with 3 heads (hs 4, so 1/sqrt(hs) is
// not 1/sqrt(C)), 2 layers, tMax 7 > T; every parameter moved off its initial value (gains not 1,
// biases not 0) by seeded N(0, 0.5^2) noise.
Gpt reference_model(bool causal) {
    GptConfig cfg;
    cfg.vocab = 11; cfg.C = 12; cfg.heads = 3; cfg.layers = 2; cfg.t_max = 7; cfg.seed = 4; cfg.causal = causal;
    Gpt m(cfg);
    detail::Rng rng(40);
    for (double& p : m.params()) p += 0.5 * rng.normal();
    return m;
}
ref::Gpt reference_of(const Gpt& m) {
    const GptConfig& c = m.config();
    return ref::Gpt(c.vocab, c.C, c.heads, c.layers, c.t_max, c.causal, m.params());
}
const std::size_t kB = 2, kT = 5;
const std::vector<int> kTokens{3, 0, 10, 7, 7, 1, 5, 2, 9, 4}, kTargets{0, 10, 7, 7, 1, 5, 2, 9, 4, 6};   // (B, T) = (2, 5)
}  // namespace

TEST_SUITE("gpt: forward against a plain reference") {
    TEST_CASE("the parameter layout is the documented GPT-2 order") {
        const Gpt m = reference_model(true);
        const ref::Gpt r = reference_of(m);
        const std::vector<GptParamTensor> t = m.param_tensors();
        REQUIRE(t.size() == 16);
        const std::size_t want[16] = {r.wte, r.wpe, r.ln1w, r.ln1b, r.qkvw, r.qkvb, r.attprojw, r.attprojb,
                                      r.ln2w, r.ln2b, r.fcw, r.fcb, r.fcprojw, r.fcprojb, r.lnfw, r.lnfb};
        for (std::size_t i = 0; i < 16; ++i) {
            CAPTURE(t[i].name);
            CHECK(t[i].offset == want[i]);
        }
        CHECK(t[4].shape == Shape{2, 12, 36});   // qkvw (L, C, 3C)
        CHECK(t[12].shape == Shape{2, 48, 12});  // fcprojw (L, 4C, C)
        CHECK(m.params().size() == r.total);
        CHECK(m.layout().total == r.total);
    }

    TEST_CASE("the embedding and one block match the textbook block") {
        for (bool causal : {true, false}) {
            CAPTURE(causal);
            Gpt m = reference_model(causal);
            const ref::Gpt r = reference_of(m);
            m.forward(kTokens, kTargets, kB, kT);
            const GptActivations& a = m.activations();
            CHECK(ref::max_abs(r.embed(kTokens, kB, kT), a.encoded.data()) < 1e-15);
            std::vector<double> att;
            const std::vector<double> x1 = r.block(a.encoded, kB, kT, 0, &att);
            CHECK(ref::max_abs(x1, a.residual3.data()) < 1e-12);   // layer 0's output
            CHECK(ref::max_abs(att, a.att.data()) < 1e-12);        // layer 0's attention weights
            // layer 1 from the model's own layer-0 output: each block checked on its own
            std::vector<double> att1;
            const std::vector<double> x0(a.residual3.begin(), a.residual3.begin() + long(kB * kT * 12));
            CHECK(ref::max_abs(r.block(x0, kB, kT, 1, &att1), a.residual3.data() + kB * kT * 12) < 1e-12);
            CHECK(ref::max_abs(att1, a.att.data() + kB * 3 * kT * kT) < 1e-12);
        }
    }

    TEST_CASE("the whole model's logits and loss match the textbook model with the tied head") {
        for (bool causal : {true, false}) {
            CAPTURE(causal);
            Gpt m = reference_model(causal);
            const ref::Gpt r = reference_of(m);
            const double loss = m.forward(kTokens, kTargets, kB, kT);
            const std::vector<double> z = r.logits(kTokens, kB, kT);
            CHECK(ref::max_abs(z, m.activations().logits.data()) < 1e-12);
            CHECK(std::fabs(loss - r.loss(z, kTargets)) < 1e-12);
            CHECK(loss > 1.0);   // not a degenerate model: about ln 11 and more
            SUBCASE("without targets the logits are the same and the loss is NaN") {
                CHECK(std::isnan(m.forward(kTokens, {}, kB, kT)));
                CHECK(ref::max_abs(z, m.logits().data()) < 1e-12);
            }
        }
    }

    TEST_CASE("LayerNorm divides by the biased variance plus 1e-5 inside the square root") {
        // x = (1, 2, 4, 8): mean 3.75, variance 7.1875 (divided by C = 4, not 3)
        const double x[4] = {1, 2, 4, 8}, w[4] = {2, 1, 0.5, 1}, b[4] = {0, 1, 0, -1};
        double y[4], mean, rstd;
        detail::layernorm_forward(y, &mean, &rstd, x, w, b, 1, 4);
        CHECK(mean == 3.75);
        CHECK(std::fabs(rstd - 1.0 / std::sqrt(7.1875 + 1e-5)) < 1e-16);
        // (x - mean) / sqrt(var + 1e-5) = -1.025754575496193, -0.6527529116793956, 0.09325041595419938, 1.5852570712213894
        const double want[4] = {-2.051509150992386, 0.3472470883206044, 0.04662520797709969, 0.5852570712213894};
        for (int c = 0; c < 4; ++c) CHECK(std::fabs(y[c] - want[c]) < 1e-15);
    }

    TEST_CASE("GELU is the tanh approximation, not the exact erf form") {
        // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) at 1, -0.5, 2; the erf form x Phi(x) gives
        // 0.8413447460685429, -0.15426876936299344, 1.9544997361036416
        const double x[3] = {1.0, -0.5, 2.0}, want[3] = {0.8411919906082768, -0.15428599017485606, 1.954597694087775};
        double y[3];
        detail::gelu_forward(y, x, 3);
        for (int i = 0; i < 3; ++i) CHECK(std::fabs(y[i] - want[i]) < 1e-15);
    }

    TEST_CASE("the classifier's softmax stays finite on logits of 1e3") {
        const double z[3] = {1000.0, 999.0, -1000.0};
        double pr[3];
        detail::softmax_rows(pr, z, 1, 3);
        CHECK(std::fabs(pr[0] - 0.7310585786300049) < 1e-15);   // 1 / (1 + e^-1)
        CHECK(std::fabs(pr[1] - 0.2689414213699951) < 1e-15);
        CHECK(pr[2] == 0.0);
    }
}

TEST_SUITE("gpt: AdamW") {
    TEST_CASE("three steps follow the textbook update: bias-corrected moments, decoupled weight decay") {
        Gpt m = reference_model(true);
        // every term visible: beta1 != beta2, eps comparable to sqrt(v_hat) for small gradients, weight decay on
        const double lr = 0.01, beta1 = 0.8, beta2 = 0.95, eps = 1e-4, wd = 0.1;
        const std::size_t n = m.params().size();
        std::vector<double> mom(n, 0.0), vel(n, 0.0);
        for (int t = 1; t <= 3; ++t) {
            CAPTURE(t);
            m.forward(kTokens, kTargets, kB, kT);
            m.zero_grad();
            m.backward();
            const std::vector<double> g = m.grads(), before = m.params();
            m.adamw(lr, beta1, beta2, eps, wd);
            CHECK(m.steps() == std::size_t(t));
            double worst = 0.0, moved = 0.0;
            for (std::size_t i = 0; i < n; ++i) {
                mom[i] = beta1 * mom[i] + (1 - beta1) * g[i];
                vel[i] = beta2 * vel[i] + (1 - beta2) * g[i] * g[i];
                const double m_hat = mom[i] / (1 - std::pow(beta1, t)), v_hat = vel[i] / (1 - std::pow(beta2, t));
                const double want = before[i] - lr * (m_hat / (std::sqrt(v_hat) + eps) + wd * before[i]);
                worst = std::max(worst, std::fabs(m.params()[i] - want));
                moved = std::max(moved, std::fabs(m.params()[i] - before[i]));
            }
            CHECK(worst < 1e-15);
            CHECK(moved > 1e-3);
        }
    }
}

TEST_SUITE("gpt: initialisation") {
    TEST_CASE("GPT-2 initialisation: N(0, 0.02) weights, residual projections N(0, (0.02 / sqrt(2L))^2), unit gains, zero biases") {
        GptConfig cfg;
        cfg.vocab = 40; cfg.C = 48; cfg.heads = 4; cfg.layers = 3; cfg.t_max = 32; cfg.seed = 5;
        const Gpt m(cfg);
        const double proj = 0.02 / std::sqrt(6.0);
        for (const GptParamTensor& t : m.param_tensors()) {
            CAPTURE(t.name);
            std::size_t n = 1;
            for (std::size_t d : t.shape) n *= d;
            const double* p = m.params().data() + t.offset;
            double mean = 0, sq = 0, lo = p[0], hi = p[0];
            for (std::size_t i = 0; i < n; ++i) {
                mean += p[i] / double(n);
                sq += p[i] * p[i] / double(n);
                lo = std::min(lo, p[i]);
                hi = std::max(hi, p[i]);
            }
            const bool bias = t.name.back() == 'b';
            const bool gain = t.name == "ln1w" || t.name == "ln2w" || t.name == "lnfw";
            if (bias) CHECK((lo == 0.0 && hi == 0.0));
            else if (gain) CHECK((lo == 1.0 && hi == 1.0));
            else {
                const double want = (t.name == "attprojw" || t.name == "fcprojw") ? proj : 0.02;
                // n >= 1000 draws: the sample deviation within 5 % (doctest::Approx would compare these
                // small numbers to 1 + |value|, that is absolutely)
                CHECK(std::fabs(std::sqrt(sq) / want - 1.0) < 0.05);
                CHECK(std::fabs(mean) < 0.1 * want);
            }
        }
    }
}

TEST_SUITE("gpt: data") {
    TEST_CASE("the unigram entropy of the training split is in nats - the split is the first 90 %") {
        // 40 characters: the first 36 (the training split) are 27 'a' and 9 'b'; the held-out 4 are 'b'
        const std::string text = std::string(27, 'a') + std::string(13, 'b');
        const CharData d(text, 1);
        CHECK(d.vocab() == 2);
        CHECK(d.train().size() == 36);
        CHECK(d.val() == std::vector<int>{1, 1, 1, 1});
        // -(3/4 ln 3/4 + 1/4 ln 1/4); in bits it would be 0.8112781244591328
        CHECK(std::fabs(d.unigram_entropy() - 0.5623351446188083) < 1e-15);
    }
}

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
        CHECK(tr.evaluate(false, 4).loss == doctest::Approx(std::log(V)).epsilon(0.02));
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

    TEST_CASE("a block trace is the model's own forward, stage by stage, and matches the textbook block") {
        // 3 heads of hs 4 in C 12 (1/sqrt(hs) is not 1/sqrt(C)), 3 layers (two hand-overs checked), weights
        // moved off their initial values so that no stage is an identity
        GptConfig cfg;
        cfg.C = 12; cfg.heads = 3; cfg.layers = 3; cfg.t_max = 8; cfg.seed = 5;
        TrainOptions o = opts16();
        o.t = 8;
        CharTrainer tr(shipped(), cfg, o);
        detail::Rng rng(50);
        for (double& p : tr.model().params()) p += 0.5 * rng.normal();
        const Gpt& m = tr.model();
        const ref::Gpt r = reference_of(m);
        const std::string text = "the cat";
        const std::vector<int> ids = tr.data().encode(text, "test", "text");
        const std::size_t T = ids.size(), C = 12;
        std::vector<GptBlockTrace> traces;
        for (std::size_t l = 0; l < 3; ++l) traces.push_back(tr.block_trace(text, l));
        auto flat = [](const Tensor& t) { return std::vector<double>(t.begin(), t.end()); };
        CHECK(ref::max_abs(r.embed(ids, 1, T), traces[0].input.data()) < 1e-15);
        for (std::size_t l = 0; l < 3; ++l) {
            CAPTURE(l);
            const GptBlockTrace& b = traces[l];
            CHECK(b.layer == l);
            CHECK(b.text == text);
            CHECK(b.q.shape() == Tensor::shape_type{3, T, 4});
            CHECK(b.scores.shape() == Tensor::shape_type{3, T, T});
            CHECK(b.fc.shape() == Tensor::shape_type{T, 4 * C});
            ref::Gpt::Trace want;
            const std::vector<double> out = r.block(flat(b.input), 1, T, l, nullptr, &want);
            const std::pair<const char*, std::pair<const std::vector<double>*, const Tensor*>> stages[] = {
                {"ln1", {&want.ln1, &b.ln1}}, {"q", {&want.q, &b.q}}, {"k", {&want.k, &b.k}}, {"v", {&want.v, &b.v}},
                {"scores", {&want.scores, &b.scores}}, {"weights", {&want.weights, &b.weights}}, {"heads", {&want.heads, &b.heads}},
                {"proj", {&want.proj, &b.proj}}, {"residual", {&want.residual, &b.residual}}, {"ln2", {&want.ln2, &b.ln2}},
                {"fc", {&want.fc, &b.fc}}, {"gelu", {&want.gelu, &b.gelu}}, {"fcproj", {&want.fcproj, &b.fcproj}}, {"out", {&out, &b.out}}};
            for (const auto& stage : stages) {
                const char* name = stage.first;   // not a structured binding: CAPTURE's lambda (clang 14, C++17)
                const auto& pair = stage.second;
                CAPTURE(name);
                REQUIRE(pair.first->size() == pair.second->size());
                CHECK(ref::max_abs(*pair.first, pair.second->data()) < 1e-12);
            }
            // the scores are not a scaled copy of something else: the masked ones are kept, the softmax is of the scaled ones
            CHECK(b.scores(0, 0, T - 1) != 0.0);
            CHECK(b.weights(0, 0, T - 1) == 0.0);
            // the block's output is the next block's input, bit for bit
            if (l + 1 < 3) CHECK(flat(b.out) == flat(traces[l + 1].input));
        }
        // what the model's forward uses: the attention maps of a plain forward (no scores kept) are the trace's weights
        // bit for bit, and the last block's output through lnf and the tied head gives the model's logits
        const std::vector<Tensor> maps = tr.attention_maps(text);
        const Tensor logits = tr.model().logits();
        for (std::size_t l = 0; l < 3; ++l) CHECK(flat(maps[l]) == flat(traces[l].weights));
        std::vector<double> z(T * m.config().vocab);
        {
            const std::vector<double> h = r.layernorm(flat(traces[2].out), r.lnfw, r.lnfb);
            for (std::size_t t = 0; t < T; ++t)
                for (std::size_t v = 0; v < m.config().vocab; ++v) {
                    double s = 0;
                    for (std::size_t c = 0; c < C; ++c) s += h[t * C + c] * m.params()[r.wte + v * C + c];
                    z[t * m.config().vocab + v] = s;
                }
        }
        CHECK(ref::max_abs(z, logits.data()) < 1e-12);
        tr.block_trace(text, 1);   // the trace's forward leaves the same logits as a plain forward
        CHECK(flat(tr.model().logits()) == flat(logits));
        // the page explains a map cell with the lab's sdpa on the traced heads: the same cell, bit for bit
        const GptBlockTrace& b = traces[1];
        const Options on{{"q", b.q}, {"k", b.k}, {"v", b.v}, {"causal", true}};
        for (double h = 0; h < 3; ++h)
            for (double t = 0; t < double(T); ++t)
                for (double j = 0; j <= t; ++j) {
                    const Explanation e = explain("sdpa", "weights", {h, t, j}, on);
                    CHECK(e.value == b.weights(std::size_t(h), std::size_t(t), std::size_t(j)));
                    CHECK(e.scores[std::size_t(j)] == b.scores(std::size_t(h), std::size_t(t), std::size_t(j)));
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

    TEST_CASE("unicode text is split into characters, not bytes") {
        std::string zh;
        for (int i = 0; i < 40; ++i) zh += "猫坐在垫子上。狗坐在地毯上。";
        CharTrainer tr(zh, small(), opts16());
        CHECK(tr.data().vocab() == 10);   // 猫 坐 在 垫 子 上 。 狗 地 毯
        CHECK(tr.sample("猫", 5, 1.0, 1).size() == 6 * 3);   // six three-byte characters
    }
}

TEST_SUITE("training") {
    TEST_CASE("training: a few hundred steps on the shipped text bring the loss clearly below the unigram entropy") {
        CharTrainer tr(shipped(), small(1), opts16());
        const double h1 = tr.data().unigram_entropy();
        CHECK(h1 > 2.5);
        const double start = tr.evaluate(false, 8).loss;
        tr.train_steps(300);
        const double train = tr.evaluate(false, 8).loss, val = tr.evaluate(true, 8).loss;
        MESSAGE("unigram " << h1 << ", start " << start << ", after 300 steps train " << train << " val " << val);
        CHECK(train < h1 - 0.4);
        CHECK(val < h1);
        CHECK(train < start - 1.0);
    }
}
