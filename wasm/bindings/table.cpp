// The table of entry points: every function JS can call, declared once. wasm/js/api.js builds the
// JS API from it (methods, argument checks per kind, core.describe()); bindings.cpp runs its rows
// for the WASM module; tests/native/golden.cpp runs them natively. Each row only passes arguments
// to the public C++ API, which checks them, and writes the result with its writer (wire.hpp).
//
// Adding a function: declare it in the header, implement it, add a row here, and test it.
#include <map>
#include <memory>

#include "wire.hpp"

namespace attn::wire {

namespace {

ArgSpec tensor(const char* name) { return {name, Kind::tensor}; }
ArgSpec number(const char* name) { return {name, Kind::number}; }
ArgSpec number(const char* name, double fallback) { return {name, Kind::number, true, fallback}; }
ArgSpec string(const char* name) { return {name, Kind::string}; }
ArgSpec numbers(const char* name) { return {name, Kind::numbers}; }
ArgSpec opts() { return {"opts", Kind::options}; }
ArgSpec model() { return {"model", Kind::model}; }

// The character GPTs JS holds, by id (JS keeps the number; the model's release method frees it).
std::map<int, std::unique_ptr<CharTrainer>> models;
int next_model = 1;

// {id, config...}: what createModel returns
void write_created(Writer& w, int id, CharTrainer& tr) {
    const GptConfig& c = tr.model().config();
    std::vector<int> all(tr.data().vocab());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = int(i);
    w.begin().key("id").number(id).key("vocab").number(double(c.vocab)).key("C").number(double(c.C)).key("heads").number(double(c.heads));
    w.key("layers").number(double(c.layers)).key("tMax").number(double(c.t_max)).key("seed").number(double(c.seed)).key("causal").boolean(c.causal);
    w.key("batch").number(double(tr.options().batch)).key("T").number(double(tr.options().t)).key("lr").number(tr.options().lr);
    w.key("params").number(double(tr.model().params().size())).key("unigramEntropy").number(tr.data().unigram_entropy());
    w.key("trainChars").number(double(tr.data().train().size())).key("valChars").number(double(tr.data().val().size()));
    w.key("chars").string(tr.data().decode(all)).end();
}

}  // namespace

#define RUN(expr) []([[maybe_unused]] const Args& a, Writer& w) { write(w, expr); }

const std::vector<Entry>& entries() {
    static const std::vector<Entry> table = {
        // name, arguments, options, run, doc, returns
        {"randn", {numbers("shape"), number("seed", 0), number("std", 1)}, {},
         RUN(randn(checked_shape("randn", "shape", a.numbers(0)), checked_seed("randn", "seed", a.number(1)), a.number(2))),
         "Seeded N(0, std^2) tensor; the same numbers natively and in WebAssembly.", "tensor"},
        // 18.1
        {"causalAverage", {tensor("x"), opts()}, {"method"}, RUN(causal_average(a.tensor(0), a.options(1))),
         "out[t] = mean of x[0..t] for x (T, C) or (B, T, C), by loop, matrix or masked softmax.", "tensor like x"},
        {"averagingMatrix", {number("T"), opts()}, {"normalize"}, RUN(averaging_matrix(a.number(0), a.options(1))),
         "The (T, T) causal averaging matrix, or lower-triangular ones.", "tensor (T, T)"},
        {"maxAbsDiff", {tensor("a"), tensor("b")}, {}, RUN(max_abs_diff(a.tensor(0), a.tensor(1))), "max |a - b| over equal shapes.", "number"},
        {"sum", {tensor("x"), opts()}, {"dim"}, RUN(sum_along(a.tensor(0), a.options(1))), "x summed along one axis.", "tensor"},
        {"matmul", {tensor("a"), tensor("b")}, {}, RUN(matmul(a.tensor(0), a.tensor(1))),
         "(..., n, k) x (..., k, m); a 2-D operand is broadcast over the other's leading axes.", "tensor (..., n, m)"},
        {"maskMatrix", {number("Tq"), number("Tk"), opts()}, {"causal"}, RUN(mask_matrix(a.number(0), a.number(1), a.options(2))),
         "(Tq, Tk) of 1 = allowed, 0 = masked.", "tensor (Tq, Tk)"},
        // 18.2
        {"softmax", {tensor("scores"), opts()}, {"dim", "mask", "maskOrder"}, RUN(softmax(a.tensor(0), a.options(1))),
         "Softmax along any axis, with a causal or explicit mask applied before or after.", "{shape, data, maskedRows}"},
        // 18.3
        {"sdpa", {tensor("q"), tensor("k"), tensor("v"), opts()}, {"causal", "scale"}, RUN(sdpa(a.tensor(0), a.tensor(1), a.tensor(2), a.options(3))),
         "Scaled dot-product attention.", "{out, weights, scores}"},
        {"sdpaBackward", {tensor("q"), tensor("k"), tensor("v"), tensor("gradOut"), opts()}, {"causal", "scale"},
         RUN(sdpa_backward(a.tensor(0), a.tensor(1), a.tensor(2), a.tensor(3), a.options(4))), "Gradients of sdpa's output.", "{dq, dk, dv}"},
        {"sdpaReference", {tensor("q"), tensor("k"), tensor("v"), opts()}, {"causal", "scale"},
         RUN(sdpa_reference(a.tensor(0), a.tensor(1), a.tensor(2), a.options(3))), "sdpa from a deliberately plain implementation (18.7).",
         "{out, weights, scores}"},
        {"linearWeightToMath", {tensor("w")}, {}, RUN(linear_weight_to_math(a.tensor(0))), "nn.Linear's (d, C) weight as the math layout (C, d).",
         "tensor (C, d)"},
        {"mathWeightToLinear", {tensor("w")}, {}, RUN(math_weight_to_linear(a.tensor(0))), "A math-layout (C, d) weight as nn.Linear's (d, C).",
         "tensor (d, C)"},
        // 18.3, 18.4, 18.6
        {"multiHeadAttention", {tensor("x"), opts()}, {"wq", "wk", "wv", "heads", "causal", "scale", "memory"},
         RUN(multi_head_attention(a.tensor(0), a.options(1))), "Multi-head (self- or cross-) attention without the output projection.",
         "{out, weights, scores, q, k, v}"},
        {"multiHeadAttentionBackward", {tensor("x"), tensor("gradOut"), opts()}, {"wq", "wk", "wv", "heads", "causal", "scale", "memory"},
         RUN(multi_head_attention_backward(a.tensor(0), a.tensor(1), a.options(2))), "Gradients of multiHeadAttention's output.",
         "{dx, dwq, dwk, dwv, dmemory?}"},
        // 18.4
        {"attentionStats", {tensor("weights")}, {}, RUN(attention_stats(a.tensor(0))), "Entropy (nats) and largest weight of each row.",
         "{entropy, maxWeight}"},
        {"dotProductVariance", {numbers("dims"), opts()}, {"samples", "seed"}, RUN(dot_product_variance(a.numbers(0), a.options(1))),
         "Var(q.k) and Var(q.k / sqrt(d)) for q, k ~ N(0, I_d), measured.", "{dims, unscaled, scaled}"},
        {"softmaxSharpening", {tensor("logits"), number("factor", 8)}, {}, RUN(softmax_sharpening(a.tensor(0), a.number(1))),
         "softmax(factor * logits) with its Jacobian.", "{weights, jacobian, jacobianNorm, entropy, maxWeight}"},
        // 18.5
        {"positions", {string("kind"), number("T"), number("C"), opts()}, {"tMax", "seed"},
         RUN(positions(a.text(0), a.number(1), a.number(2), a.options(3))), "Learned or sinusoidal position table (T, C).", "tensor (T, C)"},
        {"permutationCheck", {tensor("x"), opts()}, {"wq", "wk", "wv", "heads", "causal", "scale", "memory", "positions", "tMax", "seed", "positionSeed"},
         RUN(permutation_check(a.tensor(0), a.options(1))), "max |attn(P x + pos) - P attn(x + pos)| for a seeded permutation P.",
         "{maxDiff, perm, permutedInput, outOfPermuted, permutedOut}"},
        // 18.7
        {"gradcheck", {string("kind"), opts()}, {"q", "k", "v", "x", "wq", "wk", "wv", "heads", "causal", "scale", "memory", "seed"},
         RUN(gradcheck(a.text(0), a.options(1))), "Analytic gradients of sdpa or mha against central finite differences.",
         "{passed, eps, atol, rtol, inputs}"},
        {"futureProbe", {tensor("x"), opts()}, {"wq", "wk", "wv", "heads", "causal", "scale", "memory", "t", "seed"},
         RUN(future_probe(a.tensor(0), a.options(1))), "Change x after position t and measure how the outputs move.",
         "{maxPrefixChange, maxFutureChange, change}"},
        {"explain", {string("fn"), string("quantity"), numbers("at"), opts()},
         {"x", "wq", "wk", "wv", "heads", "causal", "scale", "memory", "q", "k", "v", "method", "scores", "dim", "mask", "maskOrder", "a", "b",
          "kind", "T", "C", "tMax", "seed", "positions", "positionSeed", "t", "p", "training"},
         RUN(explain(a.text(0), a.text(1), a.numbers(2), a.options(3))),
         "How one cell of a result was computed: the core's terms in the core's order; value is the cell bit for bit "
         "(gradcheck's gradients add numeric: {plus, minus, eps, value}, its central difference).",
         "{value, kind, left?, right?, terms?, source?, pairwise?, sum?, scale?, divisor?, gradWeight?, gradDweight?, gradRowdot?, gradScale?, "
         "numeric?, scores?, exps?, masked?, max?, denominator?, target?, maskAfter?, position?, pair?, width?, power?, angle?, cosine?, "
         "from?, p?, training?, draw?, kept?}"},
        {"dropout", {tensor("x"), opts()}, {"p", "training", "seed"}, RUN(dropout(a.tensor(0), a.options(1))), "Inverted dropout.", "tensor like x"},
        {"dropoutStats", {tensor("weights"), opts()}, {"p", "samples", "seed", "training"}, RUN(dropout_stats(a.tensor(0), a.options(1))),
         "Row sums of dropped-out weights: one sample and the mean over many.", "{sampleRowSums, meanRowSums}"},
        // 18.8: the character GPT
        {"createModel", {string("text"), opts()}, {"C", "heads", "layers", "tMax", "seed", "causal", "batch", "T", "lr"},
         [](const Args& a, Writer& w) {
             auto tr = std::make_unique<CharTrainer>(make_trainer(a.text(0), a.options(1)));
             write_created(w, next_model, *tr);
             models[next_model++] = std::move(tr);
         },
         "A character GPT trained on text; call model.dispose() when done.",
         "GptModel (config: {vocab, C, heads, layers, tMax, seed, causal, batch, T, lr, params, unigramEntropy, trainChars, valChars, chars})",
         Role::create},
        {"trainSteps", {model(), number("n", 1)}, {}, RUN(train_steps(a.model(0), a.number(1))), "Train n AdamW steps on seeded batches.",
         "{loss (mean of the n steps), step}", Role::method},
        {"evaluate", {model(), number("batches", 4)}, {}, RUN(evaluate(a.model(0), a.number(1))),
         "Mean loss on the same number of fixed windows, evenly spaced, of each split; with its standard error over the windows.",
         "{train, val, trainSe, valSe}", Role::method},
        {"sample", {model(), opts()}, {"prompt", "length", "temperature", "seed"}, RUN(sample(a.model(0), a.options(1))),
         "Text generated after the prompt (or after the text's first character).", "string", Role::method},
        {"attention", {model(), string("text")}, {}, RUN(a.model(0).attention_maps(a.text(1))), "The attention weights for text.",
         "one tensor (heads, T, T) per layer", Role::method},
        {"blockTrace", {model(), string("text"), opts()}, {"layer"}, RUN(block_trace(a.model(0), a.text(1), a.options(2))),
         "One block's activations for text, stage by stage, from the model's own forward pass.",
         "{layer, text, input, ln1, q, k, v, scores, weights, heads, proj, residual, ln2, fc, gelu, fcproj, out}", Role::method},
        {"futureCheck", {model(), string("text"), opts()}, {"t", "seed"}, RUN(future_check(a.model(0), a.text(1), a.options(2))),
         "Replace the characters after t and compare the logits.", "{maxPrefixChange, maxFutureChange, perPosition}", Role::method},
        {"headPatterns", {model(), opts()}, {"text", "windows"}, RUN(head_patterns(a.model(0), a.options(1))),
         "What each head attends to (the previous character, itself, the same character, the start, the word's start, the last "
         "separator) on held-out text, against a uniform head; which heads show each pattern.",
         "{step, windows, T, causal, text, factor, patterns, baseline, rows, heads, found, strongest}", Role::method},
        {"parameters", {model()}, {}, [](const Args& a, Writer& w) { const auto& p = a.model(0).model().params(); w.values(p.data(), p.size()); },
         "A copy of every parameter, in the core's layout.", "Float64Array", Role::method},
        {"dispose", {model()}, {}, [](const Args& a, Writer& w) { models.erase(int(a.number(0))); w.begin().end(); },
         "Frees the model (twice is harmless).", "nothing", Role::release},
        {"gptGradcheck", {number("seed", 0)}, {}, RUN(gpt_gradcheck(a.number(0))), "Whole-GPT gradient check on a tiny configuration.",
         "{passed, maxAbsError, params, inputs}"},
        {"memoryStats", {}, {}, RUN(memory_stats()), "Heap in use and memory size of the instance: for leak tests and the curious.",
         "{heapInUse, memoryBytes, wireBytes, emvalHandles}"},
    };
    return table;
}

#undef RUN

CharTrainer& Args::model(std::size_t i) const {
    auto it = models.find(int(number(i)));
    if (it == models.end()) throw Error(ErrorCode::disposed, {{"fn", entry.name}});
    return *it->second;
}

}  // namespace attn::wire
