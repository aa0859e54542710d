// The table of entry points: every function JS can call, declared once. wasm/js/api.js builds the
// JS API from it (methods, argument checks per kind, core.describe()); bindings.cpp runs its rows
// for the WASM module; tests/native/golden.cpp runs them natively. Each row only passes arguments
// to the public C++ API, which checks them, and writes the result with its writer (results.hpp).
// A row names the OptionSets its function reads (declared in the core beside the function) and
// takes its result's declaration from the type its call returns (RUN): neither is repeated here.
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
std::vector<OptionVariant> none() { return {}; }
// a row's options: READS(sdpa_option_set) is a function giving {{"", &sdpa_option_set()}}
#define READS(set) [] { return std::vector<OptionVariant>{{"", &set()}}; }
// explain's options: the ones of each function it explains
std::vector<OptionVariant> explain_reads() {
    std::vector<OptionVariant> v;
    for (const ExplainedOptions& e : explain_option_sets()) v.push_back({std::string("fn '") + e.fn + "'", e.options});
    return v;
}

// The character GPTs JS holds, by id (JS keeps the number; the model's release method frees it).
std::map<int, std::unique_ptr<CharTrainer>> models;
int next_model = 1;

// {id, config...}: what createModel returns (api.js makes it a GptModel whose config this is)
Type created_type() {
    namespace r = returns;
    std::vector<Field> config{r::field("id", r::number(), "the model's id in the core")};
    for (const char* n : {"vocab", "C", "heads", "layers", "tMax", "seed"}) config.push_back(r::field(n, r::number()));
    config.push_back(r::field("causal", r::boolean()));
    for (const char* n : {"batch", "T", "lr"}) config.push_back(r::field(n, r::number()));
    config.push_back(r::field("params", r::number(), "parameters in all"));
    config.push_back(r::field("unigramEntropy", r::number(), "nats: the loss of guessing by character frequency"));
    for (const char* n : {"trainChars", "valChars"}) config.push_back(r::field(n, r::number()));
    config.push_back(r::field("chars", r::string(), "the vocabulary, in id order"));
    return r::model(std::move(config));
}
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

// the call, written with its writer, and its result's declaration from the call's C++ type
#define RUN(expr)                                                             \
    []([[maybe_unused]] const Args& a, Writer& w) { write(w, expr); },        \
    returns_of([]([[maybe_unused]] const Args& a) { return expr; })

const std::vector<Entry>& entries() {
    static const std::vector<Entry> table = {
        // name, arguments, options, doc, run and returns, role
        {"randn", {numbers("shape"), number("seed", 0), number("std", 1)}, none,
         "Seeded N(0, std^2) tensor; the same numbers natively and in WebAssembly.",
         RUN(randn(checked_shape("randn", "shape", a.numbers(0)), checked_seed("randn", "seed", a.number(1)), a.number(2)))},
        // 18.1
        {"causalAverage", {tensor("x"), opts()}, READS(causal_average_option_set),
         "out[t] = mean of x[0..t] for x (T, C) or (B, T, C), by loop, matrix or masked softmax: a tensor like x.",
         RUN(causal_average(a.tensor(0), a.options(1)))},
        {"averagingMatrix", {number("T"), opts()}, READS(averaging_matrix_option_set),
         "The (T, T) causal averaging matrix, or lower-triangular ones.", RUN(averaging_matrix(a.number(0), a.options(1)))},
        {"maxAbsDiff", {tensor("a"), tensor("b")}, none, "max |a - b| over equal shapes.", RUN(max_abs_diff(a.tensor(0), a.tensor(1)))},
        {"sum", {tensor("x"), opts()}, READS(sum_option_set), "x summed along one axis.", RUN(sum_along(a.tensor(0), a.options(1)))},
        {"matmul", {tensor("a"), tensor("b")}, none, "(..., n, k) x (..., k, m) = (..., n, m); a 2-D operand is broadcast over the other's leading axes.",
         RUN(matmul(a.tensor(0), a.tensor(1)))},
        {"maskMatrix", {number("Tq"), number("Tk"), opts()}, READS(mask_matrix_option_set), "(Tq, Tk) of 1 = allowed, 0 = masked.",
         RUN(mask_matrix(a.number(0), a.number(1), a.options(2)))},
        // 18.2
        {"softmax", {tensor("scores"), opts()}, READS(softmax_option_set),
         "Softmax along any axis, with a causal or explicit mask applied before or after.", RUN(softmax(a.tensor(0), a.options(1)))},
        // 18.3
        {"sdpa", {tensor("q"), tensor("k"), tensor("v"), opts()}, READS(sdpa_option_set),
         "Scaled dot-product attention: out (..., Tq, dv), weights and scores (..., Tq, Tk).",
         RUN(sdpa(a.tensor(0), a.tensor(1), a.tensor(2), a.options(3)))},
        {"sdpaBackward", {tensor("q"), tensor("k"), tensor("v"), tensor("gradOut"), opts()}, READS(sdpa_option_set),
         "Gradients of sdpa's output.", RUN(sdpa_backward(a.tensor(0), a.tensor(1), a.tensor(2), a.tensor(3), a.options(4)))},
        {"sdpaReference", {tensor("q"), tensor("k"), tensor("v"), opts()}, READS(sdpa_option_set),
         "sdpa from a deliberately plain implementation (18.7).", RUN(sdpa_reference(a.tensor(0), a.tensor(1), a.tensor(2), a.options(3)))},
        {"linearWeightToMath", {tensor("w")}, none, "nn.Linear's (d, C) weight as the math layout (C, d).", RUN(linear_weight_to_math(a.tensor(0)))},
        {"mathWeightToLinear", {tensor("w")}, none, "A math-layout (C, d) weight as nn.Linear's (d, C).", RUN(math_weight_to_linear(a.tensor(0)))},
        // 18.3, 18.4, 18.6
        {"multiHeadAttention", {tensor("x"), opts()}, READS(multi_head_attention_option_set),
         "Multi-head (self- or cross-) attention without the output projection; results: 'out' returns out alone.",
         RUN(multi_head_attention(a.tensor(0), a.options(1)))},
        {"multiHeadAttentionBackward", {tensor("x"), tensor("gradOut"), opts()}, READS(mha_option_set),
         "Gradients of multiHeadAttention's output.", RUN(multi_head_attention_backward(a.tensor(0), a.tensor(1), a.options(2)))},
        // 18.4
        {"attentionStats", {tensor("weights")}, none, "Entropy (nats) and largest weight of each row.", RUN(attention_stats(a.tensor(0)))},
        {"dotProductVariance", {numbers("dims"), opts()}, READS(dot_product_variance_option_set),
         "Var(q.k) and Var(q.k / sqrt(d)) for q, k ~ N(0, I_d), measured.", RUN(dot_product_variance(a.numbers(0), a.options(1)))},
        {"softmaxSharpening", {tensor("logits"), number("factor", 8)}, none, "softmax(factor * logits) with its Jacobian.",
         RUN(softmax_sharpening(a.tensor(0), a.number(1)))},
        // 18.5
        {"positions", {string("kind"), number("T"), number("C"), opts()}, READS(positions_option_set),
         "Learned or sinusoidal position table (T, C).", RUN(positions(a.text(0), a.number(1), a.number(2), a.options(3)))},
        {"permutationCheck", {tensor("x"), opts()}, READS(permutation_option_set),
         "max |attn(P x + pos) - P attn(x + pos)| for a seeded permutation P.", RUN(permutation_check(a.tensor(0), a.options(1)))},
        // 18.7
        {"gradcheck", {string("kind"), opts()}, [] { return std::vector<OptionVariant>{{"kind 'sdpa'", &gradcheck_sdpa_option_set()}, {"kind 'mha'", &gradcheck_mha_option_set()}}; },
         "Analytic gradients of sdpa or mha against central finite differences.", RUN(gradcheck(a.text(0), a.options(1)))},
        {"futureProbe", {tensor("x"), opts()}, READS(future_probe_option_set), "Change x after position t and measure how the outputs move.",
         RUN(future_probe(a.tensor(0), a.options(1)))},
        {"explain", {string("fn"), string("quantity"), numbers("at"), opts()}, explain_reads,
         "How one cell of a result was computed: the core's terms in the core's order; value is the cell bit for bit "
         "(gradcheck's gradients add numeric: {plus, minus, eps, value}, its central difference).",
         RUN(explain(a.text(0), a.text(1), a.numbers(2), a.options(3)))},
        {"dropout", {tensor("x"), opts()}, READS(dropout_option_set), "Inverted dropout: a tensor like x.", RUN(dropout(a.tensor(0), a.options(1)))},
        {"dropoutStats", {tensor("weights"), opts()}, READS(dropout_stats_option_set),
         "Row sums of dropped-out weights: one sample and the mean over many.", RUN(dropout_stats(a.tensor(0), a.options(1)))},
        // 18.8: the character GPT
        {"createModel", {string("text"), opts()}, READS(trainer_option_set), "A character GPT trained on text; call model.dispose() when done.",
         [](const Args& a, Writer& w) {
             auto tr = std::make_unique<CharTrainer>(make_trainer(a.text(0), a.options(1)));
             write_created(w, next_model, *tr);
             models[next_model++] = std::move(tr);
         },
         created_type, Role::create},
        {"trainSteps", {model(), number("n", 1)}, none, "Train n AdamW steps on seeded batches.", RUN(train_steps(a.model(0), a.number(1))),
         Role::method},
        {"evaluate", {model(), number("batches", 4)}, none,
         "Mean loss on the same number of fixed windows, evenly spaced, of each split, with its standard error over the windows.",
         RUN(evaluate(a.model(0), a.number(1))), Role::method},
        {"sample", {model(), opts()}, READS(sample_option_set), "Text generated after the prompt (or after the text's first character).",
         RUN(sample(a.model(0), a.options(1))), Role::method},
        {"attention", {model(), string("text")}, none, "The attention weights for text: one tensor (heads, T, T) per layer.",
         RUN(a.model(0).attention_maps(a.text(1))), Role::method},
        {"blockTrace", {model(), string("text"), opts()}, READS(block_trace_option_set),
         "One block's activations for text, stage by stage, from the model's own forward pass.", RUN(block_trace(a.model(0), a.text(1), a.options(2))),
         Role::method},
        {"futureCheck", {model(), string("text"), opts()}, READS(future_check_option_set), "Replace the characters after t and compare the logits.",
         RUN(future_check(a.model(0), a.text(1), a.options(2))), Role::method},
        {"headPatterns", {model(), opts()}, READS(head_patterns_option_set),
         "What each head attends to (the previous character, itself, the same character, the start, the word's start, the last "
         "separator) on held-out text, against a uniform head; which heads show each pattern.",
         RUN(head_patterns(a.model(0), a.options(1))), Role::method},
        {"parameters", {model()}, none, "A copy of every parameter, in the core's layout.",
         [](const Args& a, Writer& w) { const auto& p = a.model(0).model().params(); w.values(p.data(), p.size()); }, [] { return returns::float64_array(); },
         Role::method},
        {"dispose", {model()}, none, "Frees the model (twice is harmless).",
         [](const Args& a, Writer& w) { models.erase(int(a.number(0))); w.begin().end(); }, [] { return returns::nothing(); }, Role::release},
        // Check my numbers
        {"diagnose", {string("check"), tensor("student"), opts()}, READS(diagnose_option_set),
         "A student's tensor against the core's result for the check's inputs and against each known mistake, computed by the core.",
         RUN(diagnose(a.text(0), a.tensor(1), a.options(2)))},
        {"diagnoseMistakes", {string("check")}, none, "The mistakes a check of diagnose knows, in the order they are tried.",
         RUN(diagnose_mistakes(a.text(0)))},
        {"gptGradcheck", {number("seed", 0)}, none, "Whole-GPT gradient check on a tiny configuration.", RUN(gpt_gradcheck(a.number(0)))},
        {"memoryStats", {}, none, "Heap in use and memory size of the instance: for leak tests and the curious.", RUN(memory_stats())},
    };
    return table;
}

#undef RUN
#undef READS

CharTrainer& Args::model(std::size_t i) const {
    auto it = models.find(int(number(i)));
    if (it == models.end()) throw Error(ErrorCode::disposed, {{"fn", entry.name}});
    return *it->second;
}

}  // namespace attn::wire
