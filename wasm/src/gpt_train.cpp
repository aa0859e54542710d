// The character GPT's trainer: seeded batches, training steps, evaluation, sampling, attention
// maps and the future-character check; make_trainer reads the JS-style options.
#include <algorithm>
#include <cmath>

#include "attn/gpt.hpp"
#include "gpt_kernels.hpp"
#include "internal.hpp"

namespace attn {

using detail::fail;

CharTrainer::CharTrainer(const std::string& text, GptConfig cfg, TrainOptions opts)
    : data_(text, cfg.t_max), cfg_((cfg.vocab = data_.vocab(), cfg)), model_(cfg_), opts_(opts), batch_seed_(cfg.seed * 7919 + 17) {
    if (opts_.t < 1 || opts_.t > cfg_.t_max)
        fail("train: T = " + std::to_string(opts_.t) + " must be from 1 to tMax = " + std::to_string(cfg_.t_max));
    if (opts_.batch < 1 || opts_.batch > 256) fail("train: batch must be from 1 to 256, got " + std::to_string(opts_.batch));
    if (!(opts_.lr > 0 && opts_.lr < 1)) fail("train: lr must be in (0, 1), got " + detail::num(opts_.lr));
}

std::vector<int> CharTrainer::batch(const std::vector<int>& split, std::uint64_t seed, std::vector<int>& targets) const {
    detail::Rng rng(seed);
    const std::size_t B = opts_.batch, T = opts_.t;
    std::vector<int> x(B * T);
    targets.assign(B * T, 0);
    for (std::size_t b = 0; b < B; ++b) {
        const std::size_t start = rng.below(split.size() - T);
        for (std::size_t t = 0; t < T; ++t) {
            x[b * T + t] = split[start + t];
            targets[b * T + t] = split[start + t + 1];
        }
    }
    return x;
}

double CharTrainer::train_steps(std::size_t n) {
    if (n < 1 || n > 100000) fail("trainSteps: n must be from 1 to 100000, got " + std::to_string(n));
    double total = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<int> y;
        const std::vector<int> x = batch(data_.train(), batch_seed_ + model_.steps(), y);
        total += model_.forward(x, y, opts_.batch, opts_.t);
        model_.zero_grad();
        model_.backward();
        model_.adamw(opts_.lr, opts_.beta1, opts_.beta2, opts_.eps, opts_.weight_decay);
    }
    return total / double(n);
}

double CharTrainer::evaluate(bool validation, std::size_t batches) {
    if (batches < 1 || batches > 1000) fail("evaluate: batches must be from 1 to 1000, got " + std::to_string(batches));
    double total = 0.0;
    for (std::size_t i = 0; i < batches; ++i) {   // the same seeded batches every time: comparable curves
        std::vector<int> y;
        const std::vector<int> x = batch(validation ? data_.val() : data_.train(), 1000003 + i, y);
        total += model_.forward(x, y, opts_.batch, opts_.t);
    }
    return total / double(batches);
}

std::string CharTrainer::sample(const std::string& prompt, std::size_t length, double temperature, std::uint64_t seed) {
    if (length > 2000) fail("sample: length must be at most 2000, got " + std::to_string(length));
    if (!(temperature > 0.0 && temperature <= 10.0)) fail("sample: temperature must be in (0, 10], got " + detail::num(temperature));
    std::vector<int> ids = prompt.empty() ? std::vector<int>{} : data_.encode(prompt, "sample: prompt");
    if (ids.empty()) ids.push_back(data_.train()[0]);
    const std::size_t start = ids.size();
    detail::Rng rng(seed);
    for (std::size_t k = 0; k < length; ++k) {
        const std::size_t T = std::min(ids.size(), cfg_.t_max);
        std::vector<int> ctx(ids.end() - long(T), ids.end());
        model_.forward(ctx, {}, 1, T);
        // p = softmax(logits at the last position / temperature)   (V,)
        const std::size_t V = cfg_.vocab;
        const double* last = model_.activations().logits.data() + (T - 1) * V;
        std::vector<double> p(V);
        for (std::size_t v = 0; v < V; ++v) p[v] = last[v] / temperature;
        detail::softmax_forward(p.data(), p.data(), 1, V);
        double u = rng.uniform();
        std::size_t pick = V - 1;
        for (std::size_t v = 0; v < V; ++v) { if (u < p[v]) { pick = v; break; } u -= p[v]; }
        ids.push_back(int(pick));
    }
    return data_.decode(std::vector<int>(ids.begin() + long(prompt.empty() ? start : 0), ids.end()));
}

std::vector<Tensor> CharTrainer::attention_maps(const std::string& text) {
    const std::vector<int> ids = data_.encode(text, "attention: text");
    if (ids.empty() || ids.size() > cfg_.t_max)
        fail("attention: text must have 1 to tMax = " + std::to_string(cfg_.t_max) + " characters, got " + std::to_string(ids.size()));
    model_.forward(ids, {}, 1, ids.size());
    std::vector<Tensor> maps;
    for (std::size_t l = 0; l < cfg_.layers; ++l) {
        Tensor a = model_.attention(l);   // (1, NH, T, T)
        a.reshape({cfg_.heads, ids.size(), ids.size()});
        maps.push_back(a);
    }
    return maps;
}

FutureCheck CharTrainer::future_check(const std::string& text, std::size_t t, std::uint64_t seed) {
    const std::vector<int> ids = data_.encode(text, "futureCheck: text");
    const std::size_t T = ids.size(), V = cfg_.vocab;
    if (T < 2 || T > cfg_.t_max)
        fail("futureCheck: text must have 2 to tMax = " + std::to_string(cfg_.t_max) + " characters, got " + std::to_string(T));
    if (t > T - 2) fail("futureCheck: t must be from 0 to T - 2 = " + std::to_string(T - 2) + ", got " + std::to_string(t));
    model_.forward(ids, {}, 1, T);
    const Tensor before = model_.logits();
    std::vector<int> changed = ids;
    detail::Rng rng(seed);
    for (std::size_t j = t + 1; j < T; ++j) changed[j] = int((std::size_t(ids[j]) + 1 + rng.below(V - 1)) % V);   // a different character
    model_.forward(changed, {}, 1, T);
    const Tensor after = model_.logits();
    FutureCheck r{0.0, 0.0, std::vector<double>(T, 0.0)};
    for (std::size_t i = 0; i < T; ++i) {
        for (std::size_t v = 0; v < V; ++v) r.per_position[i] = std::max(r.per_position[i], std::fabs(after.data()[i * V + v] - before.data()[i * V + v]));
        double& m = i <= t ? r.max_prefix_change : r.max_future_change;
        m = std::max(m, r.per_position[i]);
    }
    return r;
}

CharTrainer make_trainer(const std::string& text, const Options& opts) {
    detail::OptionReader r(opts, "createModel");
    GptConfig cfg;
    TrainOptions to;
    cfg.C = detail::to_index("createModel: option 'C'", r.number("C", 48), 1, 512);
    cfg.heads = detail::to_index("createModel: option 'heads'", r.number("heads", 4), 1, 512);
    cfg.layers = detail::to_index("createModel: option 'layers'", r.number("layers", 2), 1, 12);
    cfg.t_max = detail::to_index("createModel: option 'tMax'", r.number("tMax", 32), 1, 512);
    cfg.seed = detail::to_seed("createModel: option 'seed'", r.number("seed", 0));
    cfg.causal = r.boolean("causal", true);
    to.batch = detail::to_index("createModel: option 'batch'", r.number("batch", 8), 1, 256);
    to.t = detail::to_index("createModel: option 'T'", r.number("T", double(cfg.t_max)), 1, 512);
    to.lr = r.number("lr", 3e-3);
    r.finish();
    return CharTrainer(text, cfg, to);
}

}  // namespace attn
