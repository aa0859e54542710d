// The character GPT's trainer: seeded batches, training steps, evaluation, sampling, attention
// maps and the future-character check; make_trainer reads the JS-style options.
#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/gpt.hpp"
#include "gpt_kernels.hpp"
#include "internal.hpp"

namespace attn {

CharTrainer::CharTrainer(const std::string& text, GptConfig cfg, TrainOptions opts)
    : data_(text, cfg.t_max), cfg_((cfg.vocab = data_.vocab(), cfg)), model_(cfg_), opts_(opts), batch_seed_(cfg.seed * 7919 + 17) {
    if (opts_.t < 1 || opts_.t > cfg_.t_max) detail::to_index({"createModel", "opts.T"}, double(opts_.t), 1, cfg_.t_max);
    if (opts_.batch < 1 || opts_.batch > kGptMaxBatch) detail::to_index({"createModel", "opts.batch"}, double(opts_.batch), 1, kGptMaxBatch);
    if (!(opts_.lr > 0 && opts_.lr < 1))
        throw Error(ErrorCode::number_range, {{"fn", "createModel"}, {"arg", "opts.lr"}, {"value", opts_.lr}, {"range", "(0, 1)"}});
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
    if (n < 1 || n > kGptMaxSteps) detail::to_index({"trainSteps", "n"}, double(n), 1, kGptMaxSteps);
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

SplitLoss CharTrainer::evaluate(bool validation, std::size_t batches) {
    if (batches < 1 || batches > kGptMaxEvalBatches) detail::to_index({"evaluate", "batches"}, double(batches), 1, kGptMaxEvalBatches);
    // K = batches * B windows of T characters evenly spaced from the split's start to its end: the
    // same windows every time (comparable curves), and the whole split in each sample
    const std::vector<int>& split = validation ? data_.val() : data_.train();
    const std::size_t B = opts_.batch, T = opts_.t, K = batches * B, last = split.size() - T - 1;
    std::vector<double> window(K);   // each window's mean loss
    std::vector<int> x(B * T), y(B * T);
    for (std::size_t i = 0; i < batches; ++i) {
        for (std::size_t b = 0; b < B; ++b) {
            const std::size_t k = i * B + b, start = K == 1 ? 0 : k * last / (K - 1);
            std::copy_n(split.begin() + long(start), T, x.begin() + long(b * T));
            std::copy_n(split.begin() + long(start + 1), T, y.begin() + long(b * T));
        }
        model_.forward(x, y, B, T);
        const double* probs = model_.activations().probs.data();
        const std::size_t V = cfg_.vocab;
        for (std::size_t b = 0; b < B; ++b)
            window[i * B + b] = detail::crossentropy_forward(probs + b * T * V, y.data() + b * T, T, V);
    }
    // the mean of the windows (each T characters) and its standard error, sd / sqrt(K)
    double mean = 0.0;
    for (double l : window) mean += l;
    mean /= double(K);
    double ss = 0.0;
    for (double l : window) ss += (l - mean) * (l - mean);
    return {mean, K > 1 ? std::sqrt(ss / double(K - 1) / double(K)) : std::numeric_limits<double>::quiet_NaN()};
}

std::string CharTrainer::sample(const std::string& prompt, std::size_t length, double temperature, std::uint64_t seed) {
    if (length > kGptMaxSample) detail::to_index({"sample", "opts.length"}, double(length), 0, kGptMaxSample);
    if (!(temperature > 0.0 && temperature <= 10.0))
        throw Error(ErrorCode::number_range, {{"fn", "sample"}, {"arg", "opts.temperature"}, {"value", temperature}, {"range", "(0, 10]"}});
    std::vector<int> ids = prompt.empty() ? std::vector<int>{} : data_.encode(prompt, "sample", "opts.prompt");
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
        detail::softmax_rows(p.data(), p.data(), 1, V);
        double u = rng.uniform();
        std::size_t pick = V - 1;
        for (std::size_t v = 0; v < V; ++v) { if (u < p[v]) { pick = v; break; } u -= p[v]; }
        ids.push_back(int(pick));
    }
    return data_.decode(std::vector<int>(ids.begin() + long(prompt.empty() ? start : 0), ids.end()));
}

std::vector<Tensor> CharTrainer::attention_maps(const std::string& text) {
    const std::vector<int> ids = data_.encode(text, "attention", "text");
    if (ids.empty() || ids.size() > cfg_.t_max)
        throw Error(ErrorCode::text_length, {{"fn", "attention"}, {"arg", "text"}, {"length", ids.size()}, {"min", 1}, {"max", cfg_.t_max}});
    model_.forward(ids, {}, 1, ids.size());
    std::vector<Tensor> maps;
    for (std::size_t l = 0; l < cfg_.layers; ++l) {
        Tensor a = model_.attention(l);   // (1, NH, T, T)
        a.reshape({cfg_.heads, ids.size(), ids.size()});
        maps.push_back(a);
    }
    return maps;
}

GptBlockTrace CharTrainer::block_trace(const std::string& text, std::size_t layer) {
    const char* fn = "blockTrace";
    if (layer >= cfg_.layers) detail::to_index({fn, "opts.layer"}, double(layer), 0, cfg_.layers - 1);
    const std::vector<int> ids = data_.encode(text, fn, "text");
    const std::size_t T = ids.size(), C = cfg_.C, NH = cfg_.heads, hs = C / NH, l = layer;
    if (T < 1 || T > cfg_.t_max) throw Error(ErrorCode::text_length, {{"fn", fn}, {"arg", "text"}, {"length", T}, {"min", 1}, {"max", cfg_.t_max}});
    // the model's own forward pass (B = 1), keeping the scores too; the trace copies layer l's slices
    model_.forward(ids, {}, 1, T, /*keep_scores=*/true);
    const GptActivations& a = model_.activations();
    auto slice = [](const std::vector<double>& flat, std::size_t at, Shape shape) {
        Tensor t = Tensor::from_shape(shape);
        std::copy_n(flat.begin() + long(at), t.size(), t.begin());
        return t;
    };
    const std::size_t TC = T * C, TT = NH * T * T;
    GptBlockTrace r;
    r.layer = layer;
    r.text = data_.decode(ids);
    r.input = l == 0 ? slice(a.encoded, 0, {T, C}) : slice(a.residual3, (l - 1) * TC, {T, C});
    r.ln1 = slice(a.ln1, l * TC, {T, C});
    // qkv (T, 3C) = [q | k | v], head h in columns h*hs .. (h+1)*hs-1 of each third -> (NH, T, hs) each
    r.q = Tensor::from_shape({NH, T, hs});
    r.k = Tensor::from_shape({NH, T, hs});
    r.v = Tensor::from_shape({NH, T, hs});
    const double* qkv = a.qkv.data() + l * T * 3 * C;
    for (std::size_t h = 0; h < NH; ++h)
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t e = 0; e < hs; ++e) {
                r.q(h, t, e) = qkv[t * 3 * C + h * hs + e];
                r.k(h, t, e) = qkv[t * 3 * C + C + h * hs + e];
                r.v(h, t, e) = qkv[t * 3 * C + 2 * C + h * hs + e];
            }
    r.scores = slice(a.scores, l * TT, {NH, T, T});
    r.weights = slice(a.att, l * TT, {NH, T, T});
    r.heads = slice(a.atty, l * TC, {T, C});
    r.proj = slice(a.attproj, l * TC, {T, C});
    r.residual = slice(a.residual2, l * TC, {T, C});
    r.ln2 = slice(a.ln2, l * TC, {T, C});
    r.fc = slice(a.fch, l * 4 * TC, {T, 4 * C});
    r.gelu = slice(a.fch_gelu, l * 4 * TC, {T, 4 * C});
    r.fcproj = slice(a.fcproj, l * TC, {T, C});
    r.out = slice(a.residual3, l * TC, {T, C});
    return r;
}

FutureCheck CharTrainer::future_check(const std::string& text, std::size_t t, std::uint64_t seed) {
    const std::vector<int> ids = data_.encode(text, "futureCheck", "text");
    const std::size_t T = ids.size(), V = cfg_.vocab;
    if (T < 2 || T > cfg_.t_max)
        throw Error(ErrorCode::text_length, {{"fn", "futureCheck"}, {"arg", "text"}, {"length", T}, {"min", 2}, {"max", cfg_.t_max}});
    if (t > T - 2) throw Error(ErrorCode::t_past_end, {{"fn", "futureCheck"}, {"arg", "opts.t"}, {"value", t}, {"max", T - 2}});
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

// ---- options ---------------------------------------------------------------------------------
namespace {
constexpr OptionSpec kC{"C", OptionKind::integer, "the model width (default 48)"};
constexpr OptionSpec kHeads{"heads", OptionKind::integer, "attention heads per block, dividing C (default 4)"};
constexpr OptionSpec kLayers{"layers", OptionKind::integer, "transformer blocks (default 2)"};
constexpr OptionSpec kTMax{"tMax", OptionKind::integer, "the context length: rows of the learned position table (default 32)"};
constexpr OptionSpec kSeed{"seed", OptionKind::integer, "the seed of the initial weights and of the training batches (default 0)"};
constexpr OptionSpec kCausal{"causal", OptionKind::boolean,
                             "the causal mask (default true; false is a debug switch: attention sees the future)"};
constexpr OptionSpec kBatch{"batch", OptionKind::integer, "sequences per training step (default 8)"};
constexpr OptionSpec kT{"T", OptionKind::integer, "the length of a training sequence, from 1 to tMax (default tMax)"};
constexpr OptionSpec kLr{"lr", OptionKind::number, "AdamW's learning rate (default 3e-3)"};
constexpr OptionSpec kPrompt{"prompt", OptionKind::string, "the text continued, in the training text's characters (default '': its first character)"};
constexpr OptionSpec kLength{"length", OptionKind::integer, "the characters generated (default 80)"};
constexpr OptionSpec kTemperature{"temperature", OptionKind::number, "divides the logits before sampling (default 1)"};
constexpr OptionSpec kSampleSeed{"seed", OptionKind::integer, "the sampling seed (default 0)"};
constexpr OptionSpec kKeep{"t", OptionKind::integer, "the last position kept: the characters after it are replaced (default 0)"};
constexpr OptionSpec kReplaceSeed{"seed", OptionKind::integer, "the replacement characters' seed (default 0)"};
constexpr OptionSpec kLayer{"layer", OptionKind::integer, "the block traced, from 0 to layers - 1 (default 0)"};
}  // namespace

const OptionSet& trainer_option_set() {
    static const OptionSet set{&kC, &kHeads, &kLayers, &kTMax, &kSeed, &kCausal, &kBatch, &kT, &kLr};
    return set;
}
const OptionSet& sample_option_set() {
    static const OptionSet set{&kPrompt, &kLength, &kTemperature, &kSampleSeed};
    return set;
}
const OptionSet& future_check_option_set() {
    static const OptionSet set{&kKeep, &kReplaceSeed};
    return set;
}
const OptionSet& block_trace_option_set() {
    static const OptionSet set{&kLayer};
    return set;
}

CharTrainer make_trainer(const std::string& text, const Options& opts) {
    detail::OptionReader r(opts, "createModel", trainer_option_set());
    GptConfig cfg;
    TrainOptions to;
    cfg.C = r.index(kC, 48, 1, kGptMaxC);
    cfg.heads = r.index(kHeads, 4, 1, kGptMaxC);
    cfg.layers = r.index(kLayers, 2, 1, kGptMaxLayers);
    cfg.t_max = r.index(kTMax, 32, 1, kGptMaxT);
    cfg.seed = r.seed(kSeed);
    cfg.causal = r.boolean(kCausal, true);
    to.batch = r.index(kBatch, 8, 1, kGptMaxBatch);
    to.t = r.index(kT, double(cfg.t_max), 1, cfg.t_max);
    to.lr = r.number(kLr, 3e-3);
    r.finish();
    return CharTrainer(text, cfg, to);
}

// ---- as JavaScript calls them: numbers as JS gives them, checked here ------------------------------
TrainProgress train_steps(CharTrainer& tr, double n) {
    const double loss = tr.train_steps(detail::to_index({"trainSteps", "n"}, n, 1, kGptMaxSteps));
    return {loss, tr.model().steps()};
}

Evaluation evaluate(CharTrainer& tr, double batches) {
    const std::size_t n = detail::to_index({"evaluate", "batches"}, batches, 1, kGptMaxEvalBatches);
    const SplitLoss train = tr.evaluate(false, n), val = tr.evaluate(true, n);
    return {train.loss, val.loss, train.se, val.se};
}

std::string sample(CharTrainer& tr, const Options& opts) {
    detail::OptionReader r(opts, "sample", sample_option_set());
    const std::string prompt = r.text(kPrompt, "");
    const std::size_t length = r.index(kLength, 80, 0, kGptMaxSample);
    const double temperature = r.number(kTemperature, 1.0);
    const std::uint64_t seed = r.seed(kSampleSeed);
    r.finish();
    return tr.sample(prompt, length, temperature, seed);
}

FutureCheck future_check(CharTrainer& tr, const std::string& text, const Options& opts) {
    detail::OptionReader r(opts, "futureCheck", future_check_option_set());
    const std::size_t t = r.index(kKeep, 0, 0, kGptMaxT);
    const std::uint64_t seed = r.seed(kReplaceSeed);
    r.finish();
    return tr.future_check(text, t, seed);
}

GptBlockTrace block_trace(CharTrainer& tr, const std::string& text, const Options& opts) {
    detail::OptionReader r(opts, "blockTrace", block_trace_option_set());
    const std::size_t layer = r.index(kLayer, 0, 0, tr.model().config().layers - 1);
    r.finish();
    return tr.block_trace(text, layer);
}

}  // namespace attn
