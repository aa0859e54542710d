// The writers and declarations of the character GPT's results (18.8): results.hpp says what a
// writer and a declaration are.
#pragma once

#include "results_chapter.hpp"   // write_inputs, inputs_type: the gradient checks' per-input report

namespace attn::wire {

// the character GPT
inline void write(Writer& w, const TrainProgress& p) { w.begin().key("loss").number(p.loss).key("step").number(double(p.step)).end(); }
template <> inline Type result_type<TrainProgress>() {
    using namespace returns;
    return object({field("loss", number(), "the mean of the n steps' losses"), field("step", number(), "steps so far")});
}
inline void write(Writer& w, const Evaluation& e) {
    w.begin().key("train").number(e.train).key("val").number(e.val).key("trainSe").number(e.train_se).key("valSe").number(e.val_se).end();
}
template <> inline Type result_type<Evaluation>() {
    using namespace returns;
    return object({field("train", number(), "the training split's mean loss on its fixed windows"), field("val", number(), "the validation split's"),
                   field("trainSe", number(), "the standard error of train over its windows"), field("valSe", number(), "of val")});
}
inline void write(Writer& w, const FutureCheck& f) {
    w.begin().key("maxPrefixChange").number(f.max_prefix_change).key("maxFutureChange").number(f.max_future_change);
    w.key("perPosition").numbers(f.per_position).end();
}
template <> inline Type result_type<FutureCheck>() {
    using namespace returns;
    return object({field("maxPrefixChange", number()), field("maxFutureChange", number()), field("perPosition", numbers())});
}
inline void write(Writer& w, const std::vector<Tensor>& maps) {
    w.begin_list();
    for (const Tensor& t : maps) w.tensor(t);
    w.end_list();
}
template <> inline Type result_type<std::vector<Tensor>>() { return returns::array(returns::tensor()); }
inline void write(Writer& w, const GptBlockTrace& b) {
    w.begin().key("layer").number(double(b.layer)).key("text").string(b.text).key("input").tensor(b.input).key("ln1").tensor(b.ln1);
    w.key("q").tensor(b.q).key("k").tensor(b.k).key("v").tensor(b.v).key("scores").tensor(b.scores).key("weights").tensor(b.weights);
    w.key("heads").tensor(b.heads).key("proj").tensor(b.proj).key("residual").tensor(b.residual).key("ln2").tensor(b.ln2);
    w.key("fc").tensor(b.fc).key("gelu").tensor(b.gelu).key("fcproj").tensor(b.fcproj).key("out").tensor(b.out).end();
}
template <> inline Type result_type<GptBlockTrace>() {
    using namespace returns;
    Type t = tensors({"input", "ln1", "q", "k", "v", "scores", "weights", "heads", "proj", "residual", "ln2", "fc", "gelu", "fcproj", "out"});
    t.fields.insert(t.fields.begin(), {field("layer", number()), field("text", string())});
    return t;
}
// one key per pattern (its name), the value value(k) of pattern k
template <class F>
void pattern_keys(Writer& w, F value) {
    for (std::size_t k = 0; k < kPatterns; ++k) w.key(pattern_name(Pattern(k))).number(value(k));
}
// mean, ratio (mean / baseline), baseline and rows by pattern name; baseline and rows also hold the entropy's
inline void write(Writer& w, const HeadPatterns& hp) {
    const PatternStats& first = hp.layers.front();   // the rows and baselines are the text's: the same in every layer
    w.begin().key("step").number(double(hp.step)).key("windows").number(double(hp.windows)).key("T").number(double(hp.T));
    w.key("causal").boolean(hp.causal).key("text").string(hp.text).key("factor").number(kPatternFactor).key("patterns").begin_list();
    for (std::size_t k = 0; k < kPatterns; ++k) w.string(pattern_name(Pattern(k)));
    w.end_list().key("baseline").begin();
    pattern_keys(w, [&](std::size_t k) { return first.baseline[k]; });
    w.key("entropy").number(first.entropy_baseline).end().key("rows").begin();
    pattern_keys(w, [&](std::size_t k) { return double(first.rows[k]); });
    w.key("entropy").number(double(first.entropy_rows)).end().key("heads").begin_list();
    for (std::size_t l = 0; l < hp.layers.size(); ++l)
        for (std::size_t h = 0; h < hp.layers[l].heads; ++h) {
            const PatternStats& s = hp.layers[l];
            w.begin().key("layer").number(double(l)).key("head").number(double(h)).key("mean").begin();
            pattern_keys(w, [&](std::size_t k) { return s.mean[h][k]; });
            w.end().key("ratio").begin();
            pattern_keys(w, [&](std::size_t k) { return s.mean[h][k] / s.baseline[k]; });
            w.end().key("entropy").number(s.entropy[h]).end();
        }
    w.end_list().key("found").begin();
    for (std::size_t k = 0; k < kPatterns; ++k) {
        w.key(pattern_name(Pattern(k))).begin_list();
        for (std::size_t l = 0; l < hp.layers.size(); ++l)
            for (std::size_t h = 0; h < hp.layers[l].heads; ++h)
                if (hp.layers[l].shows(h, Pattern(k))) w.begin().key("layer").number(double(l)).key("head").number(double(h)).end();
        w.end_list();
    }
    w.end().key("strongest").begin();
    for (std::size_t k = 0; k < kPatterns; ++k) {
        const HeadPatterns::Head s = hp.strongest(Pattern(k));
        const double mean = hp.layers[s.layer].mean[s.head][k];
        w.key(pattern_name(Pattern(k))).begin().key("layer").number(double(s.layer)).key("head").number(double(s.head));
        w.key("mean").number(mean).key("ratio").number(mean / first.baseline[k]).end();
    }
    w.end().end();
}
template <> inline Type result_type<HeadPatterns>() {
    using namespace returns;
    // an object with one number per pattern (and the entropy's, where `entropy` is set)
    const auto per_pattern = [](bool entropy) {
        std::vector<Field> f;
        for (std::size_t k = 0; k < kPatterns; ++k) f.push_back(field(pattern_name(Pattern(k)), number()));
        if (entropy) f.push_back(field("entropy", number()));
        return object(std::move(f));
    };
    const Type at = object({field("layer", number()), field("head", number())});
    std::vector<Field> found, strongest;
    for (std::size_t k = 0; k < kPatterns; ++k) {
        found.push_back(field(pattern_name(Pattern(k)), array(at)));
        strongest.push_back(field(pattern_name(Pattern(k)), object({field("layer", number()), field("head", number()), field("mean", number()),
                                                                   field("ratio", number())})));
    }
    return object({field("step", number(), "the model's steps so far"), field("windows", number(), "windows read (1 for a text)"),
                   field("T", number(), "characters per window"), field("causal", boolean()),
                   field("text", string(), "the text measured, or '' for the validation windows"),
                   field("factor", number(), "a head shows a pattern at factor times the baseline or more"),
                   field("patterns", array(string()), "the patterns' names, in order"),
                   field("baseline", per_pattern(true), "a uniform head's mean on the same rows (entropy: the mean of ln n)"),
                   field("rows", per_pattern(true), "the rows that have the pattern's target"),
                   field("heads", array(object({field("layer", number()), field("head", number()), field("mean", per_pattern(false)),
                                                 field("ratio", per_pattern(false), "mean / baseline"), field("entropy", number(), "nats")}))),
                   field("found", object(std::move(found)), "the heads that show each pattern"),
                   field("strongest", object(std::move(strongest)), "the head with the largest mean of each pattern")});
}
inline void write(Writer& w, const GptGradcheck& g) {
    w.begin().key("passed").boolean(g.passed).key("maxAbsError").number(g.max_abs_error).key("params").number(double(g.params)).key("inputs");
    write_inputs(w, g.inputs);
    w.end();
}
template <> inline Type result_type<GptGradcheck>() {
    using namespace returns;
    return object({field("passed", boolean()), field("maxAbsError", number()), field("params", number()),
                   field("inputs", inputs_type(), "per parameter tensor, by its name")});
}
}  // namespace attn::wire
