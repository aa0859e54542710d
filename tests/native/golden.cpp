// Writes seeded cases computed by the native build as JSON:
//   {generator, table, cases: [{name, fn, args, result, tol}]}
// Each case runs a row of the entry-point table (wasm/bindings/table.cpp) natively, with the same
// result writers as the WASM bindings, so `result` has exactly the form the JS API returns.
// tests/node/golden.test.mjs calls core[fn](...args) on the WASM build and compares to `tol`
// (relative to max(1, |value|)): randn bit for bit, the gradchecks to their noise, the rest to
// 1e-15. `table` is the table's own description, which the WASM build must export unchanged.
// Usage: attn_golden OUT.json
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "wire.hpp"

using namespace attn;
using wire::Arg;

namespace {

// A result (or an argument) as JSON: numbers with 17 digits, NaN as null and infinities as strings
// (JSON has neither; golden.test.mjs maps them back), tensors as {shape, data}.
class Json final : public wire::Writer {
public:
    std::string s;
    Writer& begin() override { sep(); s += '{'; first_ = true; return *this; }
    Writer& end() override { s += '}'; first_ = false; return *this; }
    Writer& begin_list() override { sep(); s += '['; first_ = true; return *this; }
    Writer& end_list() override { s += ']'; first_ = false; return *this; }
    Writer& key(const char* k) override { sep(); s += '"' + std::string(k) + "\":"; first_ = true; return *this; }
    Writer& number(double v) override {
        sep();
        if (std::isnan(v)) s += "null";
        else if (std::isinf(v)) s += v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
        else {
            char buf[40];
            std::snprintf(buf, sizeof buf, "%.17g", v);
            s += buf;
        }
        return *this;
    }
    Writer& boolean(bool b) override { sep(); s += b ? "true" : "false"; return *this; }
    Writer& string(const std::string& t) override { sep(); s += '"' + t + '"'; return *this; }   // plain ASCII here
    Writer& tensor(const Tensor& t) override {
        begin().key("shape").numbers(std::vector<double>(t.shape().begin(), t.shape().end())).key("data");
        return values(t.data(), t.size()).end();
    }
    Writer& values(const double* p, std::size_t n) override {
        begin_list();
        for (std::size_t i = 0; i < n; ++i) number(p[i]);
        return end_list();
    }
    template <class T>
    Json& add(const T& v) { wire::write(*this, v); return *this; }
private:
    bool first_ = true;
    void sep() { if (!first_) s += ','; first_ = false; }
};

// an argument as JS passes it
std::string arg_json(const Arg& a) {
    Json j;
    if (auto d = std::get_if<double>(&a)) j.number(*d);
    else if (auto s = std::get_if<std::string>(&a)) j.string(*s);
    else if (auto t = std::get_if<Tensor>(&a)) j.tensor(*t);
    else if (auto v = std::get_if<std::vector<double>>(&a)) j.numbers(*v);
    else {
        j.begin();
        for (const auto& [key, value] : std::get<Options>(a)) {
            j.key(key.c_str());
            if (auto b = std::get_if<bool>(&value)) j.boolean(*b);
            else if (auto d = std::get_if<double>(&value)) j.number(*d);
            else if (auto s = std::get_if<std::string>(&value)) j.string(*s);
            else if (auto t = std::get_if<Tensor>(&value)) j.tensor(*t);
            else j.tensor(xt::cast<double>(std::get<BoolTensor>(value)));   // a mask as 0/1 numbers
        }
        j.end();
    }
    return j.s;
}

std::vector<std::string> cases;

// Runs table row `fn` on `args` (defaults filled as for JS) and keeps the case.
void add(const std::string& name, const char* fn, std::vector<Arg> args, double tol = 1e-15) {
    const wire::Entry* e = wire::find(fn);
    if (!e) throw std::logic_error(std::string("golden: no table row ") + fn);
    std::string a = "[";
    for (std::size_t i = 0; i < args.size(); ++i) a += (i ? "," : "") + arg_json(args[i]);
    Json result;
    wire::run(*e, std::move(args), result);
    Json t;
    t.number(tol);
    cases.push_back("{\"name\":\"" + name + "\",\"fn\":\"" + fn + "\",\"args\":" + a + "],\"result\":" + result.s + ",\"tol\":" + t.s + "}");
}

Options mha(const Tensor& wq, const Tensor& wk, const Tensor& wv, double heads, Options more) {
    more["wq"] = wq;
    more["wk"] = wk;
    more["wv"] = wv;
    more["heads"] = heads;
    return more;
}

// randn, 18.1 and 18.2
void averages_and_softmax() {
    // randn: bit-identical
    for (auto [shape, seed] : std::vector<std::pair<Shape, double>>{{{3, 4, 5}, 7}, {{1000}, 123}, {{2, 2}, 9007199254740991.0}})
        add("randn " + shape_str(shape), "randn", {std::vector<double>(shape.begin(), shape.end()), seed}, 0);
    // 18.1
    const Tensor xa = randn({2, 5, 3}, 11);
    for (const char* m : {"loop", "matrix", "softmax"}) add(std::string("causalAverage ") + m, "causalAverage", {xa, Options{{"method", std::string(m)}}});
    add("averagingMatrix 5 sums", "averagingMatrix", {5.0, Options{{"normalize", false}}});
    add("maxAbsDiff", "maxAbsDiff", {xa, randn({2, 5, 3}, 12)});
    // 18.2
    const Tensor s4 = randn({2, 3, 4, 4}, 12);
    for (double dim : {-1.0, 1.0, 0.0})
        for (const char* order : {"before", "after"})
            add("softmax causal dim " + std::to_string(int(dim)) + " " + order, "softmax",
                {s4, Options{{"dim", dim}, {"mask", std::string("causal")}, {"maskOrder", std::string(order)}}});
    add("softmax boolean mask with a fully masked row", "softmax", {s4, Options{{"mask", BoolTensor{{1, 0, 1, 0}, {0, 0, 0, 0}, {1, 1, 1, 1}, {0, 1, 0, 0}}}}});
    add("sum dim 1", "sum", {s4, Options{{"dim", 1.0}}});
    add("matmul lower triangle x batch", "matmul", {averaging_matrix(5, false), xa});
    add("maskMatrix causal 3x5", "maskMatrix", {3.0, 5.0, Options{{"causal", true}}});
}

// 18.3 to 18.6
void attention() {
    // 18.3
    const Tensor q = randn({2, 3, 5, 4}, 13), k = randn({2, 3, 7, 4}, 14), v = randn({2, 3, 7, 3}, 15), g = randn({2, 3, 5, 3}, 16);
    for (bool causal : {true, false}) {
        const Options o{{"causal", causal}, {"scale", causal ? OptionValue(std::string("head")) : OptionValue(0.3)}};
        const std::string label = causal ? "causal" : "scale 0.3";
        add("sdpa cross-length " + label, "sdpa", {q, k, v, o});
        add("sdpaReference " + label, "sdpaReference", {q, k, v, o});
        add("sdpaBackward " + label, "sdpaBackward", {q, k, v, g, o});
    }
    add("linearWeightToMath", "linearWeightToMath", {randn({3, 5}, 17)});
    add("mathWeightToLinear", "mathWeightToLinear", {randn({5, 3}, 17)});
    // 18.4 / 18.6
    const Tensor x = randn({2, 6, 8}, 18), mem = randn({2, 4, 8}, 19), gx = randn({2, 6, 8}, 20);
    const Tensor wq = randn({8, 8}, 21), wk = randn({8, 8}, 22), wv = randn({8, 8}, 23);
    for (int variant = 0; variant < 3; ++variant) {
        Options o = mha(wq, wk, wv, 4, {{"causal", variant == 0}, {"scale", std::string(variant == 1 ? "model" : "head")}});
        if (variant == 2) o["memory"] = mem;
        const std::string label = variant == 0 ? "causal" : variant == 1 ? "scale model" : "cross";
        add("multiHeadAttention " + label, "multiHeadAttention", {x, o});
        Options out_only = o;   // out alone: the same bits as the out above
        out_only["results"] = std::string("out");
        add("multiHeadAttention " + label + " results out", "multiHeadAttention", {x, out_only});
        add("multiHeadAttentionBackward " + label, "multiHeadAttentionBackward", {x, gx, o});
    }
    SoftmaxOptions causal;
    causal.mask = MaskKind::Causal;
    const Tensor ww = softmax(randn({3, 5, 5}, 22), causal).weights;
    add("attentionStats", "attentionStats", {ww});
    add("dotProductVariance", "dotProductVariance", {std::vector<double>{1, 4, 16, 64}, Options{{"samples", 500.0}, {"seed", 3.0}}});
    add("softmaxSharpening x8", "softmaxSharpening", {Tensor{0.1, -0.2, 0.3, -0.2, 0.5}, 8.0});
    add("dropout training", "dropout", {ww, Options{{"p", 0.3}, {"training", true}, {"seed", 5.0}}});
    add("dropoutStats", "dropoutStats", {ww, Options{{"p", 0.3}, {"samples", 200.0}, {"seed", 6.0}}});
    // Check my numbers: the mask applied after the softmax, diagnosed
    SoftmaxOptions after = causal;
    after.order = MaskOrder::After;
    const Tensor sc = randn({2, 4, 4}, 24);
    add("diagnose softmax mask after", "diagnose", {std::string("softmax"), softmax(sc, after).weights, Options{{"scores", sc}}});
    add("diagnoseMistakes attention", "diagnoseMistakes", {std::string("attention")});
    // 18.5
    add("positions learned", "positions", {std::string("learned"), 10.0, 6.0, Options{{"tMax", 16.0}, {"seed", 23.0}}});
    add("positions sinusoidal", "positions", {std::string("sinusoidal"), 12.0, 8.0, Options{}});
    for (const char* pk : {"none", "learned", "sinusoidal"})
        add(std::string("permutationCheck ") + pk, "permutationCheck", {x, mha(wq, wk, wv, 2, {{"positions", std::string(pk)}, {"seed", 4.0}})});
}

// 18.7 and provenance
void checks_and_provenance() {
    // 18.7
    const Tensor xs = randn({1, 5, 4}, 24), w4q = randn({4, 4}, 25), w4k = randn({4, 4}, 26), w4v = randn({4, 4}, 27);
    for (bool masked : {true, false})
        add(std::string("futureProbe ") + (masked ? "masked" : "unmasked"), "futureProbe",
            {xs, mha(w4q, w4k, w4v, 2, {{"causal", masked}, {"t", 2.0}, {"seed", 1.0}})});
    // finite differences divide by 2e-6: exp's last bit (glibc vs musl) moves the errors by ~1e-10
    add("gradcheck sdpa", "gradcheck",
        {std::string("sdpa"), Options{{"q", randn({2, 3, 2}, 26)}, {"k", randn({2, 4, 2}, 27)}, {"v", randn({2, 4, 2}, 28)}, {"causal", true}, {"seed", 3.0}}},
        1e-6);
    // its errors (~1e-10) and ratios (~1e-5) are finite-difference noise that exp's last bit moves
    // by half their size: they must agree within 1e-4, `passed` and `params` (1848, so 1e-4 is
    // less than one) exactly
    add("gptGradcheck", "gptGradcheck", {5.0}, 1e-4);
    // 11.1 provenance: a score and an output of cross-attention with 3 heads, its terms in the core's order
    const Tensor xe = randn({1, 3, 6}, 30), me = randn({1, 4, 6}, 31);
    for (const char* quantity : {"scores", "weights", "out"})
        add(std::string("explain multiHeadAttention ") + quantity, "explain",
            {std::string("multiHeadAttention"), std::string(quantity),
             std::string(quantity) == "out" ? std::vector<double>{0, 2, 4} : std::vector<double>{0, 1, 2, 3},
             Options{{"x", xe}, {"memory", me}, {"wq", randn({6, 6}, 32)}, {"wk", randn({6, 6}, 33)}, {"wv", randn({6, 6}, 34)}, {"heads", 3.0}}});

}

// The character GPT: initial parameters bit for bit, losses and head patterns after 20 steps (tests/node/gpt.test.mjs).
void gpt() {
    const std::string text = fixtures::repo_file("lessons/data/train.txt");
    const Options o{{"C", 16.0}, {"heads", 2.0}, {"layers", 2.0}, {"tMax", 16.0}, {"seed", 11.0}, {"batch", 4.0}};
    CharTrainer tr = make_trainer(text, o);
    const std::vector<double> init = tr.model().params();
    std::vector<double> losses;
    for (int i = 0; i < 20; ++i) losses.push_back(tr.train_steps(1));
    Json r;
    r.begin().key("initialParams").numbers(init).key("losses").numbers(losses).key("val").number(tr.evaluate(true, 2).loss).key("headPatterns");
    write(r, head_patterns(tr, Options{{"windows", 3.0}}));
    r.end();
    cases.push_back("{\"name\":\"gpt\",\"fn\":\"gpt\",\"args\":[" + arg_json(o) + "],\"result\":" + r.s + "}");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: attn_golden OUT.json\n";
        return 2;
    }
    averages_and_softmax();
    attention();
    checks_and_provenance();
    gpt();
    std::ofstream out(argv[1]);
    out << "{\"generator\":\"attn_golden (native)\",\"table\":" << wire::describe_json() << ",\"cases\":[\n";
    for (std::size_t i = 0; i < cases.size(); ++i) out << (i ? ",\n" : "") << cases[i];
    out << "\n]}\n";
    std::cout << "wrote " << cases.size() << " golden cases to " << argv[1] << "\n";
    return out ? 0 : 1;
}
