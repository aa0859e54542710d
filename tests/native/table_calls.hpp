// Calls of every row of the entry-point table (wasm/bindings/table.cpp) on valid arguments, one or
// more per row: together a row's calls read every option set it declares and write every optional
// field and alternative its result declares. test_table.cpp runs them against the rows'
// declarations (results and option sets), test_options.cpp against each option's declaration.
#pragma once

#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "attn/attention.hpp"
#include "attn/gpt.hpp"
#include "wire.hpp"

namespace table_calls {

using attn::Options;
using attn::Tensor;
using attn::wire::Arg;
// a row's arguments, given options `o` added to the call's own (rows without options ignore o)
using Call = std::function<std::vector<Arg>(const Options&)>;

inline Options with(Options o, const Options& more) {
    for (const auto& [k, v] : more) o[k] = v;
    return o;
}

inline std::string training_text() {
    std::string text;
    for (int i = 0; i < 40; ++i) text += "abcdefghij";
    return text;
}
inline Options small_model() { return {{"C", 8.0}, {"heads", 2.0}, {"layers", 1.0}, {"tMax", 8.0}}; }

// Runs row `name` on args (defaults filled in as for JS), writing into w.
inline void run(const char* name, std::vector<Arg> args, attn::wire::Writer& w) {
    const attn::wire::Entry* e = attn::wire::find(name);
    REQUIRE_MESSAGE(e, name);
    attn::wire::run(*e, std::move(args), w);
}

// A new model's id (the model rows' first argument).
inline double new_model() {
    class Id final : public attn::wire::Writer {
    public:
        double id = -1;
        Writer& begin() override { return *this; }
        Writer& end() override { return *this; }
        Writer& begin_list() override { return *this; }
        Writer& end_list() override { return *this; }
        Writer& key(const char* k) override { at_id_ = std::string(k) == "id"; return *this; }
        Writer& number(double v) override { if (at_id_) id = v; at_id_ = false; return *this; }
        Writer& boolean(bool) override { return *this; }
        Writer& string(const std::string&) override { return *this; }
        Writer& tensor(const Tensor&) override { return *this; }
        Writer& values(const double*, std::size_t) override { return *this; }
    private:
        bool at_id_ = false;
    } w;
    run("createModel", {training_text(), small_model()}, w);
    REQUIRE(w.id >= 1);
    return w.id;
}

// The calls by row name; `model` is a createModel result's id (the model rows' first argument).
inline std::map<std::string, std::vector<Call>> calls(double model) {
    using attn::randn;
    using Numbers = std::vector<double>;
    using S = std::string;
    const Tensor m{{1, 2}, {3, 4}};
    const Tensor x = randn({1, 3, 2}, 1), memory = randn({1, 4, 2}, 5);
    const Options w{{"wq", randn({2, 2}, 2)}, {"wk", randn({2, 2}, 3)}, {"wv", randn({2, 2}, 4)}};
    const Options qkv{{"q", m}, {"k", m}, {"v", m}};
    const std::string text = training_text();
    const double id = model;
    auto explain = [=](const char* fn, const char* quantity, Numbers at, Options inputs) -> Call {
        return [=](const Options& o) { return std::vector<Arg>{S(fn), S(quantity), at, with(inputs, o)}; };
    };
    return {
        {"randn", {[](const Options&) { return std::vector<Arg>{Numbers{2, 3}, 1.0, 2.0}; }}},
        {"causalAverage", {[=](const Options& o) { return std::vector<Arg>{m, o}; }}},
        {"averagingMatrix", {[=](const Options& o) { return std::vector<Arg>{2.0, o}; }}},
        {"maxAbsDiff", {[=](const Options&) { return std::vector<Arg>{m, m}; }}},
        {"sum", {[=](const Options& o) { return std::vector<Arg>{m, o}; }}},
        {"matmul", {[=](const Options&) { return std::vector<Arg>{m, m}; }}},
        {"maskMatrix", {[=](const Options& o) { return std::vector<Arg>{2.0, 3.0, o}; }}},
        {"softmax", {[=](const Options& o) { return std::vector<Arg>{m, o}; }}},
        {"sdpa", {[=](const Options& o) { return std::vector<Arg>{m, m, m, o}; }}},
        {"sdpaBackward", {[=](const Options& o) { return std::vector<Arg>{m, m, m, m, o}; }}},
        {"sdpaReference", {[=](const Options& o) { return std::vector<Arg>{m, m, m, o}; }}},
        {"linearWeightToMath", {[=](const Options&) { return std::vector<Arg>{m}; }}},
        {"mathWeightToLinear", {[=](const Options&) { return std::vector<Arg>{m}; }}},
        {"multiHeadAttention", {[=](const Options& o) { return std::vector<Arg>{x, with(w, o)}; }}},
        {"multiHeadAttentionBackward",   // self-attention, then cross-attention (dmemory)
         {[=](const Options& o) { return std::vector<Arg>{x, x, with(w, o)}; },
          [=](const Options& o) { return std::vector<Arg>{x, x, with(with(w, {{"memory", memory}}), o)}; }}},
        {"attentionStats", {[](const Options&) { return std::vector<Arg>{Tensor{{0.25, 0.75}, {1, 0}}}; }}},
        {"dotProductVariance", {[](const Options& o) { return std::vector<Arg>{Numbers{2}, o}; }}},
        {"softmaxSharpening", {[](const Options&) { return std::vector<Arg>{Tensor{0.1, 0.2}}; }}},
        {"positions", {[](const Options& o) { return std::vector<Arg>{S("learned"), 2.0, 2.0, o}; }}},
        {"permutationCheck", {[=](const Options& o) { return std::vector<Arg>{x, with(w, o)}; }}},
        {"gradcheck",
         {[=](const Options& o) { return std::vector<Arg>{S("sdpa"), with(qkv, o)}; },
          [=](const Options& o) { return std::vector<Arg>{S("mha"), with(with(w, {{"x", x}}), o)}; }}},
        {"futureProbe", {[=](const Options& o) { return std::vector<Arg>{x, with(with(w, {{"t", 0.0}}), o)}; }}},
        {"explain",   // one call per function it explains, and each kind of explanation
         {explain("multiHeadAttention", "scores", {0, 0, 1, 0}, with(w, {{"x", x}})), explain("sdpa", "out", {1, 0}, qkv),
          explain("causalAverage", "out", {1, 0}, {{"x", m}}), explain("softmax", "weights", {1, 0}, {{"scores", m}}),
          explain("matmul", "out", {1, 1}, {{"a", m}, {"b", m}}),
          explain("positions", "out", {1, 1}, {{"kind", S("sinusoidal")}, {"T", 2.0}, {"C", 2.0}}),
          explain("permutationCheck", "permutedInput", {0, 1, 0}, with(w, {{"x", x}})),
          explain("permutationCheck", "permutedOut", {0, 1, 0}, with(w, {{"x", x}})), explain("gradcheck", "dq", {1, 0}, qkv),
          explain("futureProbe", "change", {0, 1, 0}, with(w, {{"x", x}, {"t", 0.0}})), explain("dropout", "out", {1, 0}, {{"x", m}})}},
        {"dropout", {[=](const Options& o) { return std::vector<Arg>{m, o}; }}},
        {"dropoutStats", {[](const Options& o) { return std::vector<Arg>{Tensor{{0.25, 0.75}, {1, 0}}, o}; }}},
        {"createModel", {[=](const Options& o) { return std::vector<Arg>{text, with(small_model(), o)}; }}},
        {"trainSteps", {[=](const Options&) { return std::vector<Arg>{id, 2.0}; }}},
        {"evaluate", {[=](const Options&) { return std::vector<Arg>{id, 1.0}; }}},
        {"sample", {[=](const Options& o) { return std::vector<Arg>{id, with({{"length", 5.0}}, o)}; }}},
        {"attention", {[=](const Options&) { return std::vector<Arg>{id, S("abcd")}; }}},
        {"futureCheck", {[=](const Options& o) { return std::vector<Arg>{id, S("abcd"), o}; }}},
        {"blockTrace", {[=](const Options& o) { return std::vector<Arg>{id, S("abcd"), o}; }}},
        {"headPatterns", {[=](const Options& o) { return std::vector<Arg>{id, with({{"windows", 2.0}}, o)}; },
                          [=](const Options& o) { return std::vector<Arg>{id, with({{"text", S("abcd")}}, o)}; }}},
        {"parameters", {[=](const Options&) { return std::vector<Arg>{id}; }}},
        {"diagnose",   // every verdict, level and shape note; a wrong shape (no diff); an attention's weights
         [=] {
             const Tensor x2{{1, 2, 3}, {4, 5, 6}};   // its causal average: {{1, 2, 3}, {2.5, 3.5, 4.5}}
             auto call = [=](S check, Tensor student, Options inputs) -> Call {
                 return [=](const Options& o) { return std::vector<Arg>{check, student, with(inputs, o)}; };
             };
             return std::vector<Call>{
                 call("causalAverage", Tensor{{1, 2, 3}, {2.5, 3.5, 4.5}}, {{"x", x2}}),                          // correct, float64
                 call("causalAverage", Tensor{{1 + 1e-7, 2.5}, {2, 3.5}, {3, 4.5}}, {{"x", x2}}),               // float32, transposed
                 call("causalAverage", Tensor{{{1.00004, 2, 3}, {2.5, 3.5, 4.5}}},
                      {{"x", x2}, {"resolution", Tensor(xt::zeros<double>({1, 2, 3}) + 5e-5)}}),                 // printed, leading ones
                 call("causalAverage", Tensor{{1, 2, 3}, {5, 7, 9}}, {{"x", x2}}),                                // a mistake: sums
                 call("causalAverage", m, {{"x", x2}}),                                                              // a wrong shape
                 call("softmax", Tensor{{1, 0}, {0.5, 0.4}}, {{"scores", Tensor(xt::zeros<double>({2, 2}))}}),      // unknown, firstWrong
                 call("attention", Tensor(xt::zeros<double>({1, 1, 3, 3})), with(w, {{"x", x}, {"quantity", S("weights")}})),
                 call("sdpaBackward", m, with(qkv, {{"gradOut", m}, {"gradient", S("dk")}})),
             };
         }()},
        {"diagnoseMistakes", {[](const Options&) { return std::vector<Arg>{S("softmax")}; }}},
        {"gptGradcheck", {[](const Options&) { return std::vector<Arg>{1.0}; }}},
        {"memoryStats", {[](const Options&) { return std::vector<Arg>{}; }}},
        {"dispose", {[=](const Options&) { return std::vector<Arg>{id}; }}},   // run last: the model's rows run first
    };
}

// The table's rows, the one that frees the model last.
inline std::vector<const attn::wire::Entry*> rows() {
    std::vector<const attn::wire::Entry*> r;
    for (const attn::wire::Entry& e : attn::wire::entries()) r.push_back(&e);
    std::stable_partition(r.begin(), r.end(), [](const attn::wire::Entry* e) { return e->role != attn::wire::Role::release; });
    return r;
}

}  // namespace table_calls
