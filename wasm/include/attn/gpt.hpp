// A small decoder-only character GPT in float64, in the nanoGPT shape and written the llm.c way:
// one flat parameter buffer, forward keeps what backward needs, backward mirrors forward.
//
//   x = wte[tokens] + wpe[positions]                                   (B, T, C)
//   per layer: x = x + proj(attn(ln1(x)))  with causal multi-head self-attention
//              x = x + fcproj(gelu(fc(ln2(x))))                        (MLP width 4C)
//   logits = lnf(x) wte^T (the head shares the token embedding)        (B, T, V)
//   loss = mean cross-entropy against the next characters
//
// Weights are in math layout (in, out): y = x W + b.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "attn/attention.hpp"

namespace attn {

// Limits of the configuration and of each call, checked by the functions below.
constexpr std::size_t kGptMaxC = 512, kGptMaxLayers = 12, kGptMaxT = 512, kGptMaxBatch = 256;
constexpr std::size_t kGptMaxSteps = 100000, kGptMaxEvalBatches = 1000, kGptMaxSample = 2000;

struct GptConfig {
    std::size_t vocab = 0;     // V, set from the text
    std::size_t C = 48;        // model width
    std::size_t heads = 4;     // NH; hs = C / NH
    std::size_t layers = 2;    // L
    std::size_t t_max = 32;    // context length: rows of the position table
    std::uint64_t seed = 0;
    bool causal = true;        // false: a debug model whose attention sees the future
};

// Offsets of every parameter tensor in the flat buffer (L layers; per-layer tensors are stacked):
//   wte (V, C), wpe (tMax, C), ln1w ln1b (L, C), qkvw (L, C, 3C), qkvb (L, 3C), attprojw (L, C, C),
//   attprojb (L, C), ln2w ln2b (L, C), fcw (L, C, 4C), fcb (L, 4C), fcprojw (L, 4C, C), fcprojb (L, C),
//   lnfw lnfb (C)
struct GptParamLayout {
    std::size_t wte, wpe, ln1w, ln1b, qkvw, qkvb, attprojw, attprojb, ln2w, ln2b, fcw, fcb, fcprojw, fcprojb, lnfw, lnfb, total;
};
// One parameter tensor: its name (as in the layout), offset in the flat buffer and shape.
struct GptParamTensor { std::string name; std::size_t offset; Shape shape; };

// What the forward pass keeps for backward and for inspection (llm.c's ActivationTensors), for
// the last call's B and T; BT = B * T. Per-layer buffers hold layer l at offset l * (one layer's size).
struct GptActivations {
    std::vector<double> encoded;              // (B, T, C)        wte[tokens] + wpe[0..T-1]
    std::vector<double> ln1;                  // (L, B, T, C)     layernorm of the residual stream
    std::vector<double> ln1_mean, ln1_rstd;   // (L, B, T)
    std::vector<double> qkv;                  // (L, B, T, 3C)    ln1 qkvw + qkvb = [q | k | v]
    std::vector<double> atty;                 // (L, B, T, C)     attention output, heads side by side
    std::vector<double> att;                  // (L, B, NH, T, T) attention weights
    std::vector<double> scores;               // (L, B, NH, T, T) q.k / sqrt(hs) before the mask; only after forward(..., keep_scores)
    std::vector<double> attproj;              // (L, B, T, C)     atty attprojw + attprojb
    std::vector<double> residual2;            // (L, B, T, C)     residual + attproj
    std::vector<double> ln2;                  // (L, B, T, C)
    std::vector<double> ln2_mean, ln2_rstd;   // (L, B, T)
    std::vector<double> fch;                  // (L, B, T, 4C)    ln2 fcw + fcb
    std::vector<double> fch_gelu;             // (L, B, T, 4C)    gelu(fch)
    std::vector<double> fcproj;               // (L, B, T, C)     fch_gelu fcprojw + fcprojb
    std::vector<double> residual3;            // (L, B, T, C)     residual2 + fcproj: the next layer's input
    std::vector<double> lnf;                  // (B, T, C)        final layernorm
    std::vector<double> lnf_mean, lnf_rstd;   // (B, T)
    std::vector<double> logits;               // (B, T, V)        lnf wte^T
    std::vector<double> probs;                // (B, T, V)        softmax(logits)
};

class Gpt {
public:
    explicit Gpt(const GptConfig& cfg);   // checks the config; GPT-2 style seeded initialisation
    const GptConfig& config() const { return cfg_; }
    const GptParamLayout& layout() const { return layout_; }
    std::vector<double>& params() { return params_; }
    const std::vector<double>& params() const { return params_; }
    const std::vector<double>& grads() const { return grads_; }
    std::vector<GptParamTensor> param_tensors() const;   // the layout's tensors, in buffer order

    // tokens, targets: (B, T) row-major, T <= t_max, values < vocab; targets may be null (no loss).
    // Returns the mean cross-entropy (or NaN without targets). Logits and activations are kept;
    // keep_scores also keeps the attention scores (for a block trace; training does not need them).
    double forward(const std::vector<int>& tokens, const std::vector<int>& targets, std::size_t B, std::size_t T, bool keep_scores = false);
    void zero_grad();
    void backward();   // after a forward with targets: accumulates into grads()
    void adamw(double lr, double beta1, double beta2, double eps, double weight_decay);

    // After forward: logits (B, T, V) and the attention weights of layer l: (B, NH, T, T).
    Tensor logits() const;
    Tensor attention(std::size_t layer) const;
    const GptActivations& activations() const { return acts_; }
    std::size_t steps() const { return step_; }

private:
    GptConfig cfg_;
    GptParamLayout layout_;
    std::vector<double> params_, grads_, m_, v_;
    std::size_t step_ = 0;
    // the last forward: its batch (B, T), tokens and targets (B, T), and activations
    std::size_t B_ = 0, T_ = 0;
    std::vector<int> tokens_, targets_;
    GptActivations acts_;
};

// Characters (Unicode code points) of a training text, its vocabulary and a 90/10 split.
class CharData {
public:
    static constexpr std::size_t kMaxBytes = 4000000, kMaxVocab = 2048;
    CharData(const std::string& utf8, std::size_t t_max);   // errors: empty, too short for t_max, too large
    std::size_t vocab() const { return chars_.size(); }
    const std::vector<char32_t>& chars() const { return chars_; }
    const std::vector<int>& train() const { return train_; }
    const std::vector<int>& val() const { return val_; }
    // error on unknown characters, naming the function and argument (fn, arg) the text came from
    std::vector<int> encode(const std::string& utf8, std::string_view fn, std::string_view arg) const;
    std::string decode(const std::vector<int>& ids) const;
    double unigram_entropy() const;   // of the training split, in nats
private:
    std::vector<char32_t> chars_;
    std::vector<int> train_, val_;
};

struct TrainOptions {
    std::size_t batch = 8, t = 32;
    double lr = 3e-3, beta1 = 0.9, beta2 = 0.99, eps = 1e-8, weight_decay = 0.0;
};

// One block's activations for one text (B = 1), as the forward pass computed them (18.8's
// step-through). T characters, C width, NH heads, hs = C / NH.
struct GptBlockTrace {
    std::size_t layer;
    std::string text;    // the T characters read
    Tensor input;        // (T, C)      the residual stream entering the block: the embedding, or layer - 1's output
    Tensor ln1;          // (T, C)      LayerNorm 1 of the input
    Tensor q, k, v;      // (NH, T, hs) ln1 W_qkv + b, split into the heads
    Tensor scores;       // (NH, T, T)  q k^T / sqrt(hs), before the mask
    Tensor weights;      // (NH, T, T)  softmax(scores + M), M = -inf above the diagonal when causal
    Tensor heads;        // (T, C)      weights v, the heads side by side
    Tensor proj;         // (T, C)      heads W_proj + b
    Tensor residual;     // (T, C)      input + proj
    Tensor ln2;          // (T, C)      LayerNorm 2 of the residual
    Tensor fc;           // (T, 4C)     ln2 W_fc + b
    Tensor gelu;         // (T, 4C)     gelu(fc), tanh approximation
    Tensor fcproj;       // (T, C)      gelu W_fcproj + b
    Tensor out;          // (T, C)      residual + fcproj: the next block's input
};

struct FutureCheck {
    double max_prefix_change;    // max |logits' - logits| over positions <= t: exactly 0 when causal
    double max_future_change;    // over positions > t
    std::vector<double> per_position;   // max |change| at each position (T,)
};

// ---- What each head attends to, measured (18.8's tour; gpt_patterns.cpp) ---------------------
// A pattern is a position p(t) that the text picks for each row t of a head's weights; its
// statistic is the mean, over the rows where p(t) exists, of the weight row t puts there. Rows
// start at t = 1 (row 0 of a causal head can only read position 0), and a target that falls on t
// or t - 1 is left to "self" and "previous", so that each pattern counts rows of its own:
//   previous    t - 1
//   self        t
//   sameChar    every j < t - 1 holding the same character as t (their weights summed)
//   start       0, for t >= 2
//   wordStart   1 + the last space or line break before t, when that is < t - 1
//   separator   the last space, line break or punctuation mark before t, when that is < t - 1
// The baseline is what a uniform head gives on the same rows, exactly: 1 / n per target, n the
// positions row t may read (t + 1 with the causal mask, T without; sameChar: count / n). A head
// shows a pattern when its mean is at least kPatternFactor times the baseline, so a uniform head,
// which is what an untrained model's heads are close to, shows none.
enum class Pattern : std::size_t { previous, self, same_char, start, word_start, separator };
constexpr std::size_t kPatterns = 6;
constexpr double kPatternFactor = 3.0;
const char* pattern_name(Pattern p);   // "previous", "self", "sameChar", "start", "wordStart", "separator"
bool is_space(char32_t c);             // space, tab, line breaks, the ideographic space
bool is_separator(char32_t c);         // a space or a punctuation mark (ASCII, general, CJK, full-width)

struct PatternStats {
    std::size_t heads = 0;
    std::vector<std::array<double, kPatterns>> mean;   // [head][pattern]; NaN where no row has the target
    std::vector<double> entropy;                       // [head]: mean row entropy over rows t >= 1, nats
    std::array<double, kPatterns> baseline{};          // the uniform head's, on the same rows (NaN: no rows)
    double entropy_baseline = 0;                       // mean of ln n over the same rows
    std::array<std::size_t, kPatterns> rows{};         // rows that have the pattern's target
    std::size_t entropy_rows = 0;
    bool shows(std::size_t head, Pattern p) const;     // mean >= kPatternFactor * baseline
};
// weights (B, NH, T, T) or (NH, T, T): attention weights, each row in [0, 1]; chars: the B * T
// characters the rows belong to (row-major); causal: whether row t may read only positions <= t.
PatternStats pattern_stats(const Tensor& weights, const std::vector<char32_t>& chars, bool causal);
// The same over several calls of add (windows read in batches): the result is pattern_stats of
// all their rows together. Every call must have the same number of heads.
class PatternAccumulator {
public:
    void add(const Tensor& weights, const std::vector<char32_t>& chars, bool causal);   // as pattern_stats
    PatternStats result() const;
private:
    std::size_t heads_ = 0;
    std::vector<std::array<double, kPatterns>> sum_;   // [head][pattern]: the weights on the targets
    std::vector<double> entropy_;                      // [head]: the rows' entropies
    std::array<double, kPatterns> base_{};
    double entropy_base_ = 0;
    std::array<std::size_t, kPatterns> rows_{};
    std::size_t entropy_rows_ = 0;
};

// Every layer's PatternStats for one model on held-out text.
struct HeadPatterns {
    std::size_t step, windows, T;
    bool causal;
    std::string text;                  // the text measured, or "" for the validation windows
    std::vector<PatternStats> layers;
    struct Head { std::size_t layer, head; };
    Head strongest(Pattern p) const;   // the head with the largest mean (the first of a tie; layer 0 head 0 if no row has the pattern)
};

// A loss measured on fixed windows of a split: the mean over the windows and its standard error
// (the windows' standard deviation / sqrt(their number)): how far the sample alone may move it.
struct SplitLoss { double loss, se; };

// A model with its data, optimizer settings and sampling state: what the lab trains.
class CharTrainer {
public:
    CharTrainer(const std::string& text, GptConfig cfg, TrainOptions opts);
    Gpt& model() { return model_; }
    const CharData& data() const { return data_; }
    const TrainOptions& options() const { return opts_; }
    double train_steps(std::size_t n);                  // mean training loss of the n steps
    // the mean loss over `batches` batches of fixed windows evenly spaced over the split, and its standard error
    SplitLoss evaluate(bool validation, std::size_t batches);
    std::string sample(const std::string& prompt, std::size_t length, double temperature, std::uint64_t seed);
    std::vector<Tensor> attention_maps(const std::string& text);   // per layer (NH, T, T)
    GptBlockTrace block_trace(const std::string& text, std::size_t layer);   // 1 <= T <= tMax characters, layer < L
    FutureCheck future_check(const std::string& text, std::size_t t, std::uint64_t seed);
    // text "": `windows` windows of tMax characters evenly spaced over the validation split, read
    // as one batch; else the text itself (1 to tMax characters of the vocabulary), windows = 1
    HeadPatterns head_patterns(const std::string& text, std::size_t windows);
private:
    CharData data_;
    GptConfig cfg_;
    Gpt model_;
    TrainOptions opts_;
    std::uint64_t batch_seed_;
    std::vector<int> batch(const std::vector<int>& split, std::uint64_t seed, std::vector<int>& targets) const;
};

// A trainer from JS-style options: {C, heads, layers, tMax, seed, causal, batch, T, lr}; T defaults
// to tMax. Unknown options and bad values are errors, as everywhere in the API.
CharTrainer make_trainer(const std::string& text, const Options& opts);
const OptionSet& trainer_option_set();   // C, heads, layers, tMax, seed, causal, batch, T, lr

// Gradient check of the whole model on a tiny configuration (V 7, C 8, 2 heads, 2 layers, T 4,
// B 2) against central finite differences, with the lab's gradcheck (PyTorch's tolerances):
// max |analytic - numeric| over all parameters, and the result per parameter tensor. seed: a whole
// number from 0 to 2^53 - 1.
struct GptGradcheck { bool passed; double max_abs_error; std::size_t params; std::vector<GradcheckInput> inputs; };
GptGradcheck gpt_gradcheck(double seed);

// ---- As JavaScript calls them (wasm/bindings/table.cpp): numbers and options as JS gives them,
// checked here like every argument above.
struct TrainProgress { double loss; std::size_t step; };   // mean loss of the n steps, steps so far
TrainProgress train_steps(CharTrainer& tr, double n);
struct Evaluation { double train, val, train_se, val_se; };
Evaluation evaluate(CharTrainer& tr, double batches);   // the same number of fixed windows of each split, at the same step
std::string sample(CharTrainer& tr, const Options& opts);
const OptionSet& sample_option_set();   // prompt = '', length = 80, temperature = 1, seed = 0
FutureCheck future_check(CharTrainer& tr, const std::string& text, const Options& opts);
const OptionSet& future_check_option_set();   // t = 0, seed = 0
GptBlockTrace block_trace(CharTrainer& tr, const std::string& text, const Options& opts);
const OptionSet& block_trace_option_set();   // layer = 0
HeadPatterns head_patterns(CharTrainer& tr, const Options& opts);
const OptionSet& head_patterns_option_set();   // text = '', windows = 16

}  // namespace attn
