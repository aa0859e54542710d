// The boundary between the core and JavaScript, without Emscripten (it compiles natively too):
//   - the wire protocol's request tags and descriptor slots (exported to JS with the table);
//   - the arguments of a call, decoded into the core's types;
//   - one writer per result type, write(Writer&, const X&), used by the WASM bindings
//     (wasm/bindings/bindings.cpp, into the wire) and by the golden generator
//     (tests/native/golden.cpp, into JSON), so both describe a result the same way;
//   - the table of entry points (wasm/bindings/table.cpp): every function JS can call, declared
//     once with its arguments, options, documentation and how it runs. wasm/js/api.js builds the
//     JS API from it.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "attn/attention.hpp"
#include "attn/gpt.hpp"

namespace attn::wire {

// ---- the protocol -------------------------------------------------------------------------------
// How a request encodes each value (JS writes these numbers; see wasm/bindings/bindings.cpp).
#define ATTN_WIRE_TAGS(X) X(number) X(string) X(tensor) X(boolTensor) X(options) X(boolean) X(numbers) X(bad) X(absent)
enum class Tag {
#define ATTN_X(t) t,
    ATTN_WIRE_TAGS(ATTN_X)
#undef ATTN_X
};
// Where JS finds things after each call, in a fixed block of float64 (see bindings.cpp).
#define ATTN_WIRE_SLOTS(X) X(inAddress) X(bytesAddress) X(status) X(outAddress) X(outLength) X(jsonAddress) X(jsonLength) X(structure)
enum class Slot {
#define ATTN_X(s) s,
    ATTN_WIRE_SLOTS(ATTN_X)
#undef ATTN_X
};
constexpr std::size_t kSlots = 0
#define ATTN_X(s) +1
    ATTN_WIRE_SLOTS(ATTN_X)
#undef ATTN_X
    ;

// ---- arguments ----------------------------------------------------------------------------------
// The kinds of positional arguments. JS checks a value's JS type against its kind (generically,
// the same for every function); everything else is checked by the C++ API.
#define ATTN_ARG_KINDS(X) X(tensor) X(number) X(string) X(numbers) X(options) X(model)
enum class Kind {
#define ATTN_X(k) k,
    ATTN_ARG_KINDS(ATTN_X)
#undef ATTN_X
};
const char* kind_name(Kind k);

struct ArgSpec {
    const char* name;
    Kind kind;
    bool has_default = false;
    double fallback = 0;   // a number's default, used when JS passes undefined
};

using Arg = std::variant<double, std::string, Tensor, std::vector<double>, Options>;

struct Entry;

// The decoded arguments of one call (defaults filled in).
struct Args {
    const Entry& entry;
    std::vector<Arg> v;
    const Tensor& tensor(std::size_t i) const { return get<Tensor>(i); }
    double number(std::size_t i) const { return get<double>(i); }
    const std::string& text(std::size_t i) const { return get<std::string>(i); }
    const std::vector<double>& numbers(std::size_t i) const { return get<std::vector<double>>(i); }
    const Options& options(std::size_t i) const { return get<Options>(i); }
    CharTrainer& model(std::size_t i) const;   // from the registry; a disposed model is an Error
private:
    template <class T>
    const T& get(std::size_t i) const {
        if (i < v.size())
            if (auto p = std::get_if<T>(&v[i])) return *p;
        internal_error(i);
    }
    [[noreturn]] void internal_error(std::size_t i) const;   // the request does not match the table (a bug)
};

// ---- results ------------------------------------------------------------------------------------
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
    Writer& numbers(const std::vector<double>& v) {
        begin_list();
        for (double x : v) number(x);
        return end_list();
    }
};

inline void write(Writer& w, const Tensor& t) { w.tensor(t); }
inline void write(Writer& w, double v) { w.number(v); }
inline void write(Writer& w, const std::string& s) { w.string(s); }

// {shape, data, maskedRows}: a tensor whose rows with nothing allowed are listed
inline void write(Writer& w, const SoftmaxResult& r) {
    w.begin().key("shape").numbers(std::vector<double>(r.weights.shape().begin(), r.weights.shape().end()));
    w.key("data").values(r.weights.data(), r.weights.size()).key("maskedRows").begin_list();
    for (const auto& idx : r.masked_rows) w.numbers(std::vector<double>(idx.begin(), idx.end()));
    w.end_list().end();
}
inline void write(Writer& w, const SdpaResult& r) {
    w.begin().key("out").tensor(r.out).key("weights").tensor(r.weights).key("scores").tensor(r.scores).end();
}
inline void write(Writer& w, const SdpaGrads& g) { w.begin().key("dq").tensor(g.dq).key("dk").tensor(g.dk).key("dv").tensor(g.dv).end(); }
inline void write(Writer& w, const MhaResult& r) {
    w.begin().key("out").tensor(r.out).key("weights").tensor(r.weights).key("scores").tensor(r.scores);
    w.key("q").tensor(r.q).key("k").tensor(r.k).key("v").tensor(r.v).end();
}
inline void write(Writer& w, const MhaGrads& g) {
    w.begin().key("dx").tensor(g.dx).key("dwq").tensor(g.dwq).key("dwk").tensor(g.dwk).key("dwv").tensor(g.dwv);
    if (g.dmemory.dimension() > 0) w.key("dmemory").tensor(g.dmemory);   // cross-attention only (an empty xarray has size 1)
    w.end();
}
inline void write(Writer& w, const RowStats& s) { w.begin().key("entropy").tensor(s.entropy).key("maxWeight").tensor(s.max_weight).end(); }
inline void write(Writer& w, const DotVariance& d) {
    w.begin().key("dims").numbers(d.dims).key("unscaled").numbers(d.unscaled).key("scaled").numbers(d.scaled).end();
}
inline void write(Writer& w, const Sharpening& s) {
    w.begin().key("weights").tensor(s.weights).key("jacobian").tensor(s.jacobian).key("jacobianNorm").number(s.jacobian_norm);
    w.key("entropy").number(s.entropy).key("maxWeight").number(s.max_weight).end();
}
inline void write(Writer& w, const PermutationResult& p) {
    w.begin().key("maxDiff").number(p.max_diff).key("perm").numbers(std::vector<double>(p.perm.begin(), p.perm.end()));
    w.key("permutedInput").tensor(p.permuted_input).key("outOfPermuted").tensor(p.out_of_permuted).key("permutedOut").tensor(p.permuted_out).end();
}
// {maxAbsError, maxRatio, passed} per input, by name
inline void write_inputs(Writer& w, const std::vector<GradcheckInput>& inputs) {
    w.begin();
    for (const auto& i : inputs)
        w.key(i.name.c_str()).begin().key("maxAbsError").number(i.max_abs_error).key("maxRatio").number(i.max_ratio).key("passed").boolean(i.passed).end();
    w.end();
}
inline void write(Writer& w, const GradcheckResult& g) {
    w.begin().key("passed").boolean(g.passed).key("eps").number(g.eps).key("atol").number(g.atol).key("rtol").number(g.rtol).key("inputs");
    write_inputs(w, g.inputs);
    w.end();
}
inline void write(Writer& w, const FutureProbeResult& f) {
    w.begin().key("maxPrefixChange").number(f.max_prefix_change).key("maxFutureChange").number(f.max_future_change).key("change").tensor(f.change).end();
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
inline void write(Writer& w, const DropoutStats& s) {
    w.begin().key("sampleRowSums").tensor(s.sample_row_sums).key("meanRowSums").tensor(s.mean_row_sums).end();
}
// the character GPT
inline void write(Writer& w, const TrainProgress& p) { w.begin().key("loss").number(p.loss).key("step").number(double(p.step)).end(); }
inline void write(Writer& w, const Evaluation& e) {
    w.begin().key("train").number(e.train).key("val").number(e.val).key("trainSe").number(e.train_se).key("valSe").number(e.val_se).end();
}
inline void write(Writer& w, const FutureCheck& f) {
    w.begin().key("maxPrefixChange").number(f.max_prefix_change).key("maxFutureChange").number(f.max_future_change);
    w.key("perPosition").numbers(f.per_position).end();
}
inline void write(Writer& w, const std::vector<Tensor>& maps) {
    w.begin_list();
    for (const Tensor& t : maps) w.tensor(t);
    w.end_list();
}
inline void write(Writer& w, const GptBlockTrace& b) {
    w.begin().key("layer").number(double(b.layer)).key("text").string(b.text).key("input").tensor(b.input).key("ln1").tensor(b.ln1);
    w.key("q").tensor(b.q).key("k").tensor(b.k).key("v").tensor(b.v).key("scores").tensor(b.scores).key("weights").tensor(b.weights);
    w.key("heads").tensor(b.heads).key("proj").tensor(b.proj).key("residual").tensor(b.residual).key("ln2").tensor(b.ln2);
    w.key("fc").tensor(b.fc).key("gelu").tensor(b.gelu).key("fcproj").tensor(b.fcproj).key("out").tensor(b.out).end();
}
// one key per pattern (its name), the value value(k) of pattern k
template <class F>
void pattern_keys(Writer& w, F value) {
    for (std::size_t k = 0; k < kPatterns; ++k) w.key(pattern_name(Pattern(k))).number(value(k));
}
// {step, windows, T, causal, text, factor, patterns, baseline, rows, heads: [{layer, head, mean, ratio,
// entropy}], found: {pattern: [{layer, head}]}, strongest: {pattern: {layer, head, mean, ratio}}}:
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
inline void write(Writer& w, const GptGradcheck& g) {
    w.begin().key("passed").boolean(g.passed).key("maxAbsError").number(g.max_abs_error).key("params").number(double(g.params)).key("inputs");
    write_inputs(w, g.inputs);
    w.end();
}
// {code, message, params}: what JS throws (attn/errors.hpp)
void write(Writer& w, const Error& e);

// The WebAssembly instance's memory (bindings.cpp; natively all zero): for leak tests.
struct MemoryStats { double heap_in_use, memory_bytes, wire_bytes; };
MemoryStats memory_stats();
inline void write(Writer& w, const MemoryStats& m) {
    w.begin().key("heapInUse").number(m.heap_in_use).key("memoryBytes").number(m.memory_bytes).key("wireBytes").number(m.wire_bytes).end();
}

// ---- the table ----------------------------------------------------------------------------------
// How JS wraps a function: a plain function of the API, the model constructor (its result carries
// the new model's id), a method of the model (first argument), or the method that frees it.
#define ATTN_ROLES(X) X(function) X(create) X(method) X(release)
enum class Role {
#define ATTN_X(r) r,
    ATTN_ROLES(ATTN_X)
#undef ATTN_X
};

struct Entry {
    const char* name;                    // as JS calls it
    std::vector<ArgSpec> args;
    std::vector<const char*> options;    // the option names it reads (an unknown one is an Error)
    void (*run)(const Args&, Writer&);
    const char* doc;                     // one line
    const char* returns;                 // the result's fields
    Role role = Role::function;
};

const std::vector<Entry>& entries();
const Entry* find(const std::string& name);
// {tags, slots, kinds, functions: [{name, args: [{name, kind, default?}], options, doc, returns, role}],
//  errorCodes, errorParams}: everything JS needs to build the API, as JSON
std::string describe_json();

// Argument i's value when JS leaves it undefined: its default, empty options, or an Error.
Arg default_arg(const Entry& e, std::size_t i);
// Runs an entry with arguments given in the core's types (the golden generator): fills defaults.
void run(const Entry& e, std::vector<Arg> args, Writer& w);

}  // namespace attn::wire
