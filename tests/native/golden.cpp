// Writes seeded cases computed by the native build as JSON: {cases: [{name, fn, args, result}]}.
// tests/node/golden.test.mjs calls the same JS API function with the same args on the WASM build
// and compares: randn bit for bit, everything else to 1e-15 (relative to max(1, |value|)).
// Usage: attn_golden OUT.json
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "attn/attention.hpp"
#include "attn/gpt.hpp"

using namespace attn;

namespace {

std::string num(double v) {
    if (std::isnan(v)) return "null";   // JSON has no NaN; the reader maps null back to NaN
    if (std::isinf(v)) return v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

template <class T>
std::string tensor(const T& t) {
    std::string s = "{\"shape\":[";
    for (std::size_t i = 0; i < t.dimension(); ++i) s += (i ? "," : "") + std::to_string(t.shape()[i]);
    s += "],\"data\":[";
    for (std::size_t i = 0; i < t.size(); ++i) s += (i ? "," : "") + num(double(t.data()[i]));
    return s + "]}";
}

std::string list(const std::vector<double>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + num(v[i]);
    return s + "]";
}

// {"k": v, ...} from pairs whose values are already JSON
std::string obj(const std::vector<std::pair<std::string, std::string>>& kv) {
    std::string s = "{";
    for (std::size_t i = 0; i < kv.size(); ++i) s += (i ? "," : "") + ("\"" + kv[i].first + "\":") + kv[i].second;
    return s + "}";
}

std::string str(const std::string& s) { return "\"" + s + "\""; }
std::string boolean(bool b) { return b ? "true" : "false"; }

std::vector<std::string> cases;
void add(const std::string& name, const std::string& fn, const std::vector<std::string>& args, const std::string& result) {
    std::string a = "[";
    for (std::size_t i = 0; i < args.size(); ++i) a += (i ? "," : "") + args[i];
    a += "]";
    cases.push_back(obj({{"name", str(name)}, {"fn", str(fn)}, {"args", a}, {"result", result}}));
}

std::string softmax_json(const SoftmaxResult& r) {
    std::string rows = "[";
    for (std::size_t i = 0; i < r.masked_rows.size(); ++i) {
        std::vector<double> idx(r.masked_rows[i].begin(), r.masked_rows[i].end());
        rows += (i ? "," : "") + list(idx);
    }
    rows += "]";
    std::string t = tensor(r.weights);
    return t.substr(0, t.size() - 1) + ",\"maskedRows\":" + rows + "}";
}

struct Mha { Tensor wq, wk, wv; };
Mha weights(std::size_t C, std::size_t D, std::uint64_t seed) {
    return {randn({C, D}, seed), randn({C, D}, seed + 1), randn({C, D}, seed + 2)};
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: attn_golden OUT.json\n";
        return 2;
    }
    // randn: bit-identical
    for (auto [shape, seed] : std::vector<std::pair<Shape, std::uint64_t>>{{{3, 4, 5}, 7}, {{1000}, 123}, {{2, 2}, 9007199254740991ull}}) {
        std::vector<double> dims(shape.begin(), shape.end());
        add("randn " + shape_str(shape), "randn", {list(dims), num(double(seed))}, tensor(randn(shape, seed)));
    }
    // 18.1
    const Tensor xa = randn({2, 5, 3}, 11);
    for (const char* m : {"loop", "matrix", "softmax"}) {
        Options o{{"method", std::string(m)}};
        add(std::string("causalAverage ") + m, "causalAverage", {tensor(xa), obj({{"method", str(m)}})}, tensor(causal_average(xa, o)));
    }
    add("averagingMatrix 5 sums", "averagingMatrix", {"5", obj({{"normalize", "false"}})}, tensor(averaging_matrix(5, false)));
    // 18.2
    const Tensor s4 = randn({2, 3, 4, 4}, 12);
    for (double dim : {-1.0, 1.0, 0.0}) {
        for (const char* order : {"before", "after"}) {
            Options o{{"dim", dim}, {"mask", std::string("causal")}, {"maskOrder", std::string(order)}};
            add("softmax causal dim " + num(dim) + " " + order, "softmax",
                {tensor(s4), obj({{"dim", num(dim)}, {"mask", str("causal")}, {"maskOrder", str(order)}})}, softmax_json(softmax(s4, o)));
        }
    }
    {
        const BoolTensor mask{{1, 0, 1, 0}, {0, 0, 0, 0}, {1, 1, 1, 1}, {0, 1, 0, 0}};
        Options o{{"mask", mask}};
        add("softmax boolean mask with a fully masked row", "softmax", {tensor(s4), obj({{"mask", tensor(mask)}})}, softmax_json(softmax(s4, o)));
    }
    {
        Options d1{{"dim", 1.0}};
        add("sum dim 1", "sum", {tensor(s4), obj({{"dim", "1"}})}, tensor(sum_along(s4, d1)));
        const Tensor a = averaging_matrix(5, false);
        add("matmul lower triangle x batch", "matmul", {tensor(a), tensor(xa)}, tensor(matmul(a, xa)));
        add("maskMatrix causal 3x5", "maskMatrix", {"3", "5", obj({{"causal", "true"}})}, tensor(mask_matrix(3, 5, true)));
    }
    // 18.3
    const Tensor q = randn({2, 3, 5, 4}, 13), k = randn({2, 3, 7, 4}, 14), v = randn({2, 3, 7, 3}, 15);
    for (bool causal : {true, false}) {
        Options o{{"causal", causal}, {"scale", causal ? OptionValue(std::string("head")) : OptionValue(0.3)}};
        const SdpaResult r = sdpa(q, k, v, o);
        const std::string os = obj({{"causal", boolean(causal)}, {"scale", causal ? str("head") : "0.3"}});
        add(std::string("sdpa cross-length ") + (causal ? "causal" : "scale 0.3"), "sdpa", {tensor(q), tensor(k), tensor(v), os},
            obj({{"out", tensor(r.out)}, {"weights", tensor(r.weights)}, {"scores", tensor(r.scores)}}));
        const SdpaResult pr = sdpa_reference(q, k, v, o);
        add(std::string("sdpaReference ") + (causal ? "causal" : "scale 0.3"), "sdpaReference", {tensor(q), tensor(k), tensor(v), os},
            obj({{"out", tensor(pr.out)}, {"weights", tensor(pr.weights)}}));
        const Tensor g = randn({2, 3, 5, 3}, 16);
        const SdpaGrads b = sdpa_backward(q, k, v, g, o);
        add(std::string("sdpaBackward ") + (causal ? "causal" : "scale 0.3"), "sdpaBackward", {tensor(q), tensor(k), tensor(v), tensor(g), os},
            obj({{"dq", tensor(b.dq)}, {"dk", tensor(b.dk)}, {"dv", tensor(b.dv)}}));
    }
    add("linearWeightToMath", "linearWeightToMath", {tensor(randn({3, 5}, 17))}, tensor(linear_weight_to_math(randn({3, 5}, 17))));
    // 18.4 / 18.6
    const Tensor x = randn({2, 6, 8}, 18), mem = randn({2, 4, 8}, 19), gx = randn({2, 6, 8}, 20);
    const Mha w = weights(8, 8, 21);
    for (int variant = 0; variant < 3; ++variant) {
        const char* scale = variant == 1 ? "model" : "head";
        Options o{{"wq", w.wq}, {"wk", w.wk}, {"wv", w.wv}, {"heads", 4.0}, {"causal", variant == 0}, {"scale", std::string(scale)}};
        std::vector<std::pair<std::string, std::string>> oj{{"wq", tensor(w.wq)}, {"wk", tensor(w.wk)}, {"wv", tensor(w.wv)},
                                                           {"heads", "4"}, {"causal", boolean(variant == 0)}, {"scale", str(scale)}};
        if (variant == 2) { o["memory"] = mem; oj.push_back({"memory", tensor(mem)}); }
        const std::string label = variant == 0 ? "causal" : variant == 1 ? "scale model" : "cross";
        const MhaResult r = multi_head_attention(x, o);
        add("multiHeadAttention " + label, "multiHeadAttention", {tensor(x), obj(oj)},
            obj({{"out", tensor(r.out)}, {"weights", tensor(r.weights)}, {"scores", tensor(r.scores)},
                 {"q", tensor(r.q)}, {"k", tensor(r.k)}, {"v", tensor(r.v)}}));
        const MhaGrads g = multi_head_attention_backward(x, gx, o);
        std::vector<std::pair<std::string, std::string>> gj{{"dx", tensor(g.dx)}, {"dwq", tensor(g.dwq)}, {"dwk", tensor(g.dwk)}, {"dwv", tensor(g.dwv)}};
        if (variant == 2) gj.push_back({"dmemory", tensor(g.dmemory)});
        add("multiHeadAttentionBackward " + label, "multiHeadAttentionBackward", {tensor(x), tensor(gx), obj(oj)}, obj(gj));
    }
    {
        SoftmaxOptions so;
        so.mask = MaskKind::Causal;
        const Tensor ww = softmax(randn({3, 5, 5}, 22), so).weights;
        const RowStats st = attention_stats(ww);
        add("attentionStats", "attentionStats", {tensor(ww)}, obj({{"entropy", tensor(st.entropy)}, {"maxWeight", tensor(st.max_weight)}}));
        const DotVariance dv = dot_product_variance({1, 4, 16, 64}, 500, 3);
        add("dotProductVariance", "dotProductVariance", {list({1, 4, 16, 64}), obj({{"samples", "500"}, {"seed", "3"}})},
            obj({{"dims", list(dv.dims)}, {"unscaled", list(dv.unscaled)}, {"scaled", list(dv.scaled)}}));
        const Tensor logits{0.1, -0.2, 0.3, -0.2, 0.5};
        const Sharpening sh = softmax_sharpening(logits, 8.0);
        add("softmaxSharpening x8", "softmaxSharpening", {tensor(logits), "8"},
            obj({{"weights", tensor(sh.weights)}, {"jacobian", tensor(sh.jacobian)}, {"jacobianNorm", num(sh.jacobian_norm)},
                 {"entropy", num(sh.entropy)}, {"maxWeight", num(sh.max_weight)}}));
        const Tensor dr = dropout(ww, 0.3, true, 5);
        add("dropout training", "dropout", {tensor(ww), obj({{"p", "0.3"}, {"training", "true"}, {"seed", "5"}})}, tensor(dr));
        const DropoutStats ds = dropout_stats(ww, 0.3, 200, 6);
        add("dropoutStats", "dropoutStats", {tensor(ww), obj({{"p", "0.3"}, {"samples", "200"}, {"seed", "6"}})},
            obj({{"sampleRowSums", tensor(ds.sample_row_sums)}, {"meanRowSums", tensor(ds.mean_row_sums)}}));
    }
    // 18.5
    {
        Options lo{{"tMax", 16.0}, {"seed", 23.0}};
        add("positions learned", "positions", {str("learned"), "10", "6", obj({{"tMax", "16"}, {"seed", "23"}})},
            tensor(positions("learned", 10, 6, lo)));
        add("positions sinusoidal", "positions", {str("sinusoidal"), "12", "8", "{}"}, tensor(positions("sinusoidal", 12, 8, Options{})));
        for (const char* pk : {"none", "learned", "sinusoidal"}) {
            Options o{{"wq", w.wq}, {"wk", w.wk}, {"wv", w.wv}, {"heads", 2.0}, {"positions", std::string(pk)}, {"seed", 4.0}};
            const PermutationResult pr = permutation_check(x, o);
            std::vector<double> perm(pr.perm.begin(), pr.perm.end());
            add(std::string("permutationCheck ") + pk, "permutationCheck",
                {tensor(x), obj({{"wq", tensor(w.wq)}, {"wk", tensor(w.wk)}, {"wv", tensor(w.wv)}, {"heads", "2"}, {"positions", str(pk)}, {"seed", "4"}})},
                obj({{"maxDiff", num(pr.max_diff)}, {"perm", list(perm)}}));
        }
    }
    // 18.7
    {
        const Tensor xs = randn({1, 5, 4}, 24);
        const Mha ws = weights(4, 4, 25);
        for (bool causal : {true, false}) {
            Options o{{"wq", ws.wq}, {"wk", ws.wk}, {"wv", ws.wv}, {"heads", 2.0}, {"causal", causal}, {"t", 2.0}, {"seed", 1.0}};
            const FutureProbeResult fp = future_probe(xs, o);
            add(std::string("futureProbe ") + (causal ? "masked" : "unmasked"), "futureProbe",
                {tensor(xs), obj({{"wq", tensor(ws.wq)}, {"wk", tensor(ws.wk)}, {"wv", tensor(ws.wv)}, {"heads", "2"},
                                  {"causal", boolean(causal)}, {"t", "2"}, {"seed", "1"}})},
                obj({{"maxPrefixChange", num(fp.max_prefix_change)}, {"maxFutureChange", num(fp.max_future_change)}, {"change", tensor(fp.change)}}));
        }
        const Tensor gq = randn({2, 3, 2}, 26), gk = randn({2, 4, 2}, 27), gv = randn({2, 4, 2}, 28);
        Options o{{"q", gq}, {"k", gk}, {"v", gv}, {"causal", true}, {"seed", 3.0}};
        const GradcheckResult gr = gradcheck("sdpa", o);
        std::vector<std::pair<std::string, std::string>> ins;
        for (const auto& i : gr.inputs) ins.push_back({i.name, obj({{"passed", boolean(i.passed)}})});
        add("gradcheck sdpa", "gradcheck", {str("sdpa"), obj({{"q", tensor(gq)}, {"k", tensor(gk)}, {"v", tensor(gv)}, {"causal", "true"}, {"seed", "3"}})},
            obj({{"passed", boolean(gr.passed)}, {"eps", num(gr.eps)}, {"atol", num(gr.atol)}, {"rtol", num(gr.rtol)}, {"inputs", obj(ins)}}));
    }

    // The character GPT: initial parameters bit for bit, losses after 20 steps (tests/node/gpt.test.mjs).
    {
        std::ifstream f(ATTN_TRAIN_TEXT);
        std::stringstream text;
        text << f.rdbuf();
        Options o{{"C", 16.0}, {"heads", 2.0}, {"layers", 2.0}, {"tMax", 16.0}, {"seed", 11.0}, {"batch", 4.0}};
        CharTrainer tr = make_trainer(text.str(), o);
        const std::vector<double> init = tr.model().params();
        std::vector<double> losses;
        for (int i = 0; i < 20; ++i) losses.push_back(tr.train_steps(1));
        const double val = tr.evaluate(true, 2);
        std::string gj = obj({{"C", "16"}, {"heads", "2"}, {"layers", "2"}, {"tMax", "16"}, {"seed", "11"}, {"batch", "4"}});
        cases.push_back(obj({{"name", str("gpt")}, {"fn", str("gpt")}, {"args", "[" + gj + "]"},
                             {"result", obj({{"initialParams", list(init)}, {"losses", list(losses)}, {"val", num(val)}})}}));
    }

    // the error table as the native build declares it: the WASM build must export the same
    std::vector<std::pair<std::string, std::string>> codes;
    for (const auto& c : error_codes()) {
        std::string names = "[";
        for (std::size_t i = 0; i < c.params.size(); ++i) names += (i ? "," : "") + str(c.params[i]);
        codes.push_back({c.name, names + "]"});
    }
    std::vector<std::pair<std::string, std::string>> params;
    for (const auto& p : error_params()) params.push_back({p.name, str(kind_name(p.kind))});

    std::ofstream out(argv[1]);
    out << "{\"generator\":\"attn_golden (native)\",\"errorCodes\":" << obj(codes) << ",\"errorParams\":" << obj(params) << ",\"cases\":[\n";
    for (std::size_t i = 0; i < cases.size(); ++i) out << (i ? ",\n" : "") << cases[i];
    out << "\n]}\n";
    std::cout << "wrote " << cases.size() << " golden cases to " << argv[1] << "\n";
    return out ? 0 : 1;
}
