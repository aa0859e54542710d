// The writers and declarations of the chapter's results (18.1 to 18.7, provenance and "Check my
// numbers"): results.hpp says what a writer and a declaration are.
#pragma once

#include "results.hpp"

namespace attn::wire {

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

}  // namespace attn::wire
