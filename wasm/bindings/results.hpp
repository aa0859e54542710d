// Results across the boundary: one writer per result type, write(Writer&, const X&), and beside
// it the result's declaration, result_type<X>(): what JS receives, field by field. The table
// (table.cpp) takes each row's declaration from the C++ type its call returns; core.describe()
// shows it as `returns` (docs/api.md, "describe"); tests/native/test_table.cpp checks every row's
// written result against it and tests/node/table.test.mjs every JS result.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "attn/attention.hpp"
#include "attn/diagnose.hpp"
#include "attn/gpt.hpp"

namespace attn::wire {

// ---- declarations -------------------------------------------------------------------------------
// What a result is, as JS receives it:
//   tensor        {shape: number[], data: Float64Array}     (Writer::tensor)
//   float64Array  a Float64Array alone                       (Writer::values)
//   number, boolean, string
//   literal       the string `value` (what tells the alternatives of a oneOf apart)
//   array         an array of `of[0]`
//   record        an object whose keys are names given by the call, each value an `of[0]`
//   object        an object with exactly `fields` (an optional field may be absent)
//   oneOf         exactly one of the objects `of`
//   model         a GptModel whose `config` is an object with exactly `fields` (its methods are
//                 the table's rows of role method)
//   nothing       undefined (the core writes an empty object)
#define ATTN_RESULT_KINDS(X) X(tensor) X(float64Array) X(number) X(boolean) X(string) X(literal) X(array) X(record) X(object) X(oneOf) X(model) X(nothing)
enum class ResultKind {
#define ATTN_X(k) k,
    ATTN_RESULT_KINDS(ATTN_X)
#undef ATTN_X
};
const char* result_kind_name(ResultKind k);

struct Field;
struct Type {
    ResultKind kind;
    std::vector<Field> fields;   // object, model
    std::vector<Type> of;        // array, record: the element; oneOf: the alternatives
    const char* value = "";      // literal
};
struct Field {
    const char* name;
    Type type;
    bool optional = false;   // present in some results only
    const char* doc = "";    // one line, where the name does not say it all
    bool by_js = false;      // added by wasm/js/api.js, not written by the core
    // an optional field present unless the call's option `option` has the value `value`, and then
    // absent ({"omittedBy": {option, value}}: the TypeScript declarations give each case its type)
    const char* omitted_option = "";
    const char* omitted_value = "";
};

// Builders for the declarations below and the table's.
namespace returns {
inline Type of_kind(ResultKind k) { return Type{k, {}, {}, ""}; }
inline Type tensor() { return of_kind(ResultKind::tensor); }
inline Type float64_array() { return of_kind(ResultKind::float64Array); }
inline Type number() { return of_kind(ResultKind::number); }
inline Type boolean() { return of_kind(ResultKind::boolean); }
inline Type string() { return of_kind(ResultKind::string); }
inline Type nothing() { return of_kind(ResultKind::nothing); }
inline Type numbers() { return Type{ResultKind::array, {}, {number()}, ""}; }
inline Type literal(const char* v) { return Type{ResultKind::literal, {}, {}, v}; }
inline Type array(Type of) { return Type{ResultKind::array, {}, {std::move(of)}, ""}; }
inline Type record(Type of) { return Type{ResultKind::record, {}, {std::move(of)}, ""}; }
inline Type object(std::vector<Field> fields) { return Type{ResultKind::object, std::move(fields), {}, ""}; }
inline Type one_of(std::vector<Type> alternatives) { return Type{ResultKind::oneOf, {}, std::move(alternatives), ""}; }
inline Type model(std::vector<Field> config) { return Type{ResultKind::model, std::move(config), {}, ""}; }
inline Field field(const char* name, Type t, const char* doc = "") { return Field{name, std::move(t), false, doc, false}; }
inline Field optional(const char* name, Type t, const char* doc = "") { return Field{name, std::move(t), true, doc, false}; }
// present unless the option `option` is `value` (results: 'out')
inline Field omitted_by(const char* name, Type t, const char* option, const char* value, const char* doc = "") {
    return Field{name, std::move(t), true, doc, false, option, value};
}
// an object of tensors
inline Type tensors(std::initializer_list<const char*> names) {
    std::vector<Field> f;
    for (const char* n : names) f.push_back(field(n, tensor()));
    return object(std::move(f));
}
}  // namespace returns

// The declaration of what write(w, X) writes: specialized beside each writer below.
template <class T>
Type result_type();

// ---- writers ------------------------------------------------------------------------------------
// A result is written as nested objects and lists of numbers, booleans, strings and tensors.
class Writer {
public:
    virtual ~Writer() = default;
    virtual Writer& begin() = 0;        // {
    virtual Writer& end() = 0;          // }
    virtual Writer& begin_list() = 0;   // [
    virtual Writer& end_list() = 0;     // ]
    virtual Writer& key(const char* k) = 0;
    virtual Writer& number(double v) = 0;
    virtual Writer& boolean(bool b) = 0;
    virtual Writer& string(const std::string& s) = 0;
    virtual Writer& tensor(const Tensor& t) = 0;                     // {shape, data: Float64Array}
    virtual Writer& values(const double* p, std::size_t n) = 0;      // a Float64Array alone
    // A hint: about n more float64 values follow (the wire grows its buffer once, not per tensor).
    virtual void reserve(std::size_t /*n*/) {}
    Writer& numbers(const std::vector<double>& v) {
        begin_list();
        for (double x : v) number(x);
        return end_list();
    }
};

inline void write(Writer& w, const Tensor& t) { w.tensor(t); }
template <> inline Type result_type<Tensor>() { return returns::tensor(); }
inline void write(Writer& w, double v) { w.number(v); }
template <> inline Type result_type<double>() { return returns::number(); }
inline void write(Writer& w, const std::string& s) { w.string(s); }
template <> inline Type result_type<std::string>() { return returns::string(); }

// {shape, data, maskedRows}: a tensor whose rows with nothing allowed are listed
inline void write(Writer& w, const SoftmaxResult& r) {
    w.begin().key("shape").numbers(std::vector<double>(r.weights.shape().begin(), r.weights.shape().end()));
    w.key("data").values(r.weights.data(), r.weights.size()).key("maskedRows").begin_list();
    for (const auto& idx : r.masked_rows) w.numbers(std::vector<double>(idx.begin(), idx.end()));
    w.end_list().end();
}
template <> inline Type result_type<SoftmaxResult>() {
    using namespace returns;
    return object({field("shape", numbers()), field("data", float64_array()),
                   field("maskedRows", array(numbers()), "the index over the non-dim axes of each row with nothing allowed")});
}
inline void write(Writer& w, const SdpaResult& r) {
    w.reserve(r.out.size() + r.weights.size() + r.scores.size());
    w.begin().key("out").tensor(r.out).key("weights").tensor(r.weights).key("scores").tensor(r.scores).end();
}
template <> inline Type result_type<SdpaResult>() { return returns::tensors({"out", "weights", "scores"}); }
inline void write(Writer& w, const SdpaGrads& g) { w.begin().key("dq").tensor(g.dq).key("dk").tensor(g.dk).key("dv").tensor(g.dv).end(); }
template <> inline Type result_type<SdpaGrads>() { return returns::tensors({"dq", "dk", "dv"}); }
// out, and the others unless the call asked for out alone (results: 'out' leaves them empty, rank 0)
inline void write(Writer& w, const MhaResult& r) {
    w.reserve(r.out.size() + r.weights.size() + r.scores.size() + r.q.size() + r.k.size() + r.v.size());
    w.begin().key("out").tensor(r.out);
    for (const auto& [name, t] : {std::pair{"weights", &r.weights}, std::pair{"scores", &r.scores}, std::pair{"q", &r.q},
                                  std::pair{"k", &r.k}, std::pair{"v", &r.v}})
        if (t->dimension() > 0) w.key(name).tensor(*t);
    w.end();
}
template <> inline Type result_type<MhaResult>() {
    using namespace returns;
    std::vector<Field> f{field("out", tensor())};
    for (const char* n : {"weights", "scores", "q", "k", "v"}) f.push_back(omitted_by(n, tensor(), "results", "out", "left out with results: 'out'"));
    return object(std::move(f));
}
inline void write(Writer& w, const MhaGrads& g) {
    w.begin().key("dx").tensor(g.dx).key("dwq").tensor(g.dwq).key("dwk").tensor(g.dwk).key("dwv").tensor(g.dwv);
    if (g.dmemory.dimension() > 0) w.key("dmemory").tensor(g.dmemory);   // cross-attention only (an empty xarray has size 1)
    w.end();
}
template <> inline Type result_type<MhaGrads>() {
    using namespace returns;
    return object({field("dx", tensor()), field("dwq", tensor()), field("dwk", tensor()), field("dwv", tensor()),
                   optional("dmemory", tensor(), "cross-attention only")});
}
inline void write(Writer& w, const RowStats& s) { w.begin().key("entropy").tensor(s.entropy).key("maxWeight").tensor(s.max_weight).end(); }
template <> inline Type result_type<RowStats>() { return returns::tensors({"entropy", "maxWeight"}); }
inline void write(Writer& w, const DotVariance& d) {
    w.begin().key("dims").numbers(d.dims).key("unscaled").numbers(d.unscaled).key("scaled").numbers(d.scaled).end();
}
template <> inline Type result_type<DotVariance>() {
    using namespace returns;
    return object({field("dims", numbers()), field("unscaled", numbers(), "Var(q.k) per width"), field("scaled", numbers(), "Var(q.k / sqrt(d))")});
}
inline void write(Writer& w, const Sharpening& s) {
    w.begin().key("weights").tensor(s.weights).key("jacobian").tensor(s.jacobian).key("jacobianNorm").number(s.jacobian_norm);
    w.key("entropy").number(s.entropy).key("maxWeight").number(s.max_weight).end();
}
template <> inline Type result_type<Sharpening>() {
    using namespace returns;
    return object({field("weights", tensor()), field("jacobian", tensor()), field("jacobianNorm", number()), field("entropy", number()),
                   field("maxWeight", number())});
}
inline void write(Writer& w, const PermutationResult& p) {
    w.begin().key("maxDiff").number(p.max_diff).key("perm").numbers(std::vector<double>(p.perm.begin(), p.perm.end()));
    w.key("permutedInput").tensor(p.permuted_input).key("outOfPermuted").tensor(p.out_of_permuted).key("permutedOut").tensor(p.permuted_out).end();
}
template <> inline Type result_type<PermutationResult>() {
    using namespace returns;
    return object({field("maxDiff", number()), field("perm", numbers(), "row t of P x is row perm[t] of x"), field("permutedInput", tensor()),
                   field("outOfPermuted", tensor()), field("permutedOut", tensor())});
}
// {maxAbsError, maxRatio, passed} per input, by name
inline void write_inputs(Writer& w, const std::vector<GradcheckInput>& inputs) {
    w.begin();
    for (const auto& i : inputs)
        w.key(i.name.c_str()).begin().key("maxAbsError").number(i.max_abs_error).key("maxRatio").number(i.max_ratio).key("passed").boolean(i.passed).end();
    w.end();
}
inline Type inputs_type() {
    using namespace returns;
    return record(object({field("maxAbsError", number()), field("maxRatio", number()), field("passed", boolean())}));
}
inline void write(Writer& w, const GradcheckResult& g) {
    w.begin().key("passed").boolean(g.passed).key("eps").number(g.eps).key("atol").number(g.atol).key("rtol").number(g.rtol).key("inputs");
    write_inputs(w, g.inputs);
    w.end();
}
template <> inline Type result_type<GradcheckResult>() {
    using namespace returns;
    return object({field("passed", boolean()), field("eps", number()), field("atol", number()), field("rtol", number()),
                   field("inputs", inputs_type(), "per input, by its name")});
}
inline void write(Writer& w, const FutureProbeResult& f) {
    w.begin().key("maxPrefixChange").number(f.max_prefix_change).key("maxFutureChange").number(f.max_future_change).key("change").tensor(f.change).end();
}
template <> inline Type result_type<FutureProbeResult>() {
    using namespace returns;
    return object({field("maxPrefixChange", number()), field("maxFutureChange", number()), field("change", tensor())});
}
// Provenance (docs/api.md, "Provenance"): a sum's terms or a softmax row's exps, and the cell's value.
inline void write(Writer& w, const Explanation& e) {
    w.begin().key("value").number(e.value);
    using K = Explanation::Kind;
    if (e.kind == K::Sum) {
        w.key("kind").string("sum").key("left").numbers(e.left).key("right").numbers(e.right).key("terms").numbers(e.terms)
            .key("source").numbers(std::vector<double>(e.source.begin(), e.source.end())).key("pairwise").boolean(e.pairwise)
            .key("sum").number(e.sum).key("scale").number(e.scale).key("divisor").number(e.divisor);
        if (!e.grad_weight.empty())
            w.key("gradWeight").numbers(e.grad_weight).key("gradDweight").numbers(e.grad_dweight).key("gradRowdot").numbers(e.grad_rowdot)
                .key("gradScale").number(e.grad_scale);
        if (e.has_numeric)
            w.key("numeric").begin().key("plus").number(e.loss_plus).key("minus").number(e.loss_minus).key("eps").number(e.eps)
                .key("value").number(e.numeric).end();
    } else if (e.kind == K::Sinusoid) {
        w.key("kind").string("sinusoid").key("position").number(e.position).key("pair").number(e.pair).key("width").number(e.width)
            .key("power").number(e.power).key("angle").number(e.angle).key("cosine").boolean(e.cosine);
    } else if (e.kind == K::Copy) {
        w.key("kind").string("copy").key("left").numbers(e.left).key("from").numbers(std::vector<double>(e.from.begin(), e.from.end()));
    } else if (e.kind == K::AbsDiff) {
        w.key("kind").string("absdiff").key("left").numbers(e.left);
    } else if (e.kind == K::Dropout) {
        w.key("kind").string("dropout").key("left").numbers(e.left).key("p").number(e.p).key("training").boolean(e.training);
        if (e.training) w.key("draw").number(e.draw).key("kept").boolean(e.kept).key("scale").number(e.scale);
    } else {
        w.key("kind").string("softmax").key("scores").numbers(e.scores).key("exps").numbers(e.exps).key("masked").begin_list();
        for (auto m : e.masked) w.boolean(m != 0);
        w.end_list().key("max").number(e.max).key("denominator").number(e.denominator).key("target").number(double(e.target))
            .key("maskAfter").boolean(e.mask_after);
    }
    w.end();
}
template <> inline Type result_type<Explanation>() {
    using namespace returns;
    auto kind = [](const char* k, std::vector<Field> fields) {
        fields.insert(fields.begin(), {field("kind", literal(k)), field("value", number(), "the cell, bit for bit")});
        return object(std::move(fields));
    };
    return one_of({
        kind("sum", {field("left", numbers()), field("right", numbers()), field("terms", numbers()), field("source", numbers()),
                     field("pairwise", boolean()), field("sum", number()), field("scale", number()), field("divisor", number()),
                     optional("gradWeight", numbers(), "gradcheck's dQ and dK: A per term"),
                     optional("gradDweight", numbers(), "gradcheck's dQ and dK: dA per term"),
                     optional("gradRowdot", numbers(), "gradcheck's dQ and dK: the row's sum of A dA per term"),
                     optional("gradScale", number(), "gradcheck's dQ and dK: the scale"),
                     optional("numeric", object({field("plus", number()), field("minus", number()), field("eps", number()), field("value", number())}),
                              "gradcheck: the central difference of the same entry")}),
        kind("sinusoid", {field("position", number()), field("pair", number()), field("width", number()), field("power", number()),
                          field("angle", number()), field("cosine", boolean())}),
        kind("copy", {field("left", numbers()), field("from", numbers())}),
        kind("absdiff", {field("left", numbers())}),
        kind("dropout", {field("left", numbers()), field("p", number()), field("training", boolean()),
                         optional("draw", number(), "in training"), optional("kept", boolean(), "in training"),
                         optional("scale", number(), "in training")}),
        kind("softmax", {field("scores", numbers()), field("exps", numbers()), field("masked", array(boolean())), field("max", number()),
                         field("denominator", number()), field("target", number()), field("maskAfter", boolean())}),
    });
}
inline void write(Writer& w, const DropoutStats& s) {
    w.begin().key("sampleRowSums").tensor(s.sample_row_sums).key("meanRowSums").tensor(s.mean_row_sums).end();
}
template <> inline Type result_type<DropoutStats>() { return returns::tensors({"sampleRowSums", "meanRowSums"}); }
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
// a list of names
inline void write(Writer& w, const std::vector<std::string>& names) {
    w.begin_list();
    for (const auto& n : names) w.string(n);
    w.end_list();
}
template <> inline Type result_type<std::vector<std::string>>() { return returns::array(returns::string()); }

// "Check my numbers" (attn/diagnose.hpp)
inline void write(Writer& w, const Diagnosis& d) {
    auto index = [](const std::vector<std::size_t>& v) { return std::vector<double>(v.begin(), v.end()); };
    w.begin().key("verdict").string(d.verdict).key("level").string(match_level_name(d.level));
    w.key("mistakes");
    write(w, d.mistakes);
    w.key("sameAsCorrect");
    write(w, d.same_as_correct);
    w.key("expected").tensor(d.expected).key("shape").numbers(index(d.shape)).key("shapeNote").string(d.shape_note);
    if (d.verdict != "shape") {
        w.key("diff").tensor(d.diff).key("maxDiff").number(d.max_diff);
        if (!d.first_wrong.empty()) w.key("firstWrong").numbers(index(d.first_wrong));
    }
    w.key("candidates").begin_list();
    for (const auto& c : d.candidates)
        w.begin().key("id").string(c.id).key("level").string(match_level_name(c.level)).key("maxDiff").number(c.max_diff)
            .key("distinct").boolean(c.distinct).end();
    w.end_list().end();
}
template <> inline Type result_type<Diagnosis>() {
    using namespace returns;
    const Type level = one_of({literal("none"), literal("float64"), literal("float32"), literal("printed")});
    return object({
        field("verdict", one_of({literal("correct"), literal("mistake"), literal("unknown"), literal("shape")})),
        field("level", level, "how close the student's tensor is to the right result"),
        field("mistakes", array(string()), "the known mistakes it matches"),
        field("sameAsCorrect", array(string()), "mistakes these inputs cannot tell from the right result"),
        field("expected", tensor(), "the core's result"),
        field("shape", numbers(), "the student's shape"),
        field("shapeNote", one_of({literal(""), literal("transposed"), literal("leading_ones")})),
        optional("diff", tensor(), "student - expected, in the expected shape"),
        optional("maxDiff", number()),
        optional("firstWrong", numbers(), "the first cell outside float32 and printed precision"),
        field("candidates", array(object({field("id", string()), field("level", level), field("maxDiff", number()), field("distinct", boolean())}))),
    });
}

// {code, message, params}: what JS throws (attn/errors.hpp)
void write(Writer& w, const Error& e);

// The WebAssembly instance's memory (bindings.cpp; natively all zero): for leak tests.
struct MemoryStats { double heap_in_use, memory_bytes, wire_bytes; };
MemoryStats memory_stats();
inline void write(Writer& w, const MemoryStats& m) {
    w.begin().key("heapInUse").number(m.heap_in_use).key("memoryBytes").number(m.memory_bytes).key("wireBytes").number(m.wire_bytes).end();
}
template <> inline Type result_type<MemoryStats>() {
    using namespace returns;
    Field handles = field("emvalHandles", number(), "Embind's live handles: 0 while no handle crosses the boundary");
    handles.by_js = true;
    return object({field("heapInUse", number()), field("memoryBytes", number()), field("wireBytes", number()), handles});
}

}  // namespace attn::wire
