// The only file that knows about Emscripten. It converts JS values to the core's types and
// back, and turns C++ exceptions into {__error: message} results.
//
// Why not throw a JS Error from here: a JS exception unwinding through WASM frames skips C++
// destructors, so every live std::string or tensor would leak. Instead each function catches,
// lets its C++ objects die, and returns the message; wasm/js/index.js throws the Error.
// No Embind class crosses the boundary: arguments and results are plain JS objects and typed
// arrays (copied), so JS never holds a handle that needs .delete().
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cstdio>

#include <string>
#include <vector>

#include "attn/attention.hpp"
#include "attn/gpt.hpp"

#include <map>
#include <memory>

using emscripten::val;
using namespace attn;

namespace {

// ---- JS -> C++ -----------------------------------------------------------------------------
// The JS layer has already made every tensor {shape: number[], data: Float64Array | Uint8Array}.
Shape read_shape(const std::string& name, const val& t, std::size_t length) {
    const std::vector<double> dims = emscripten::convertJSArrayToNumberVector<double>(t["shape"]);
    return checked_shape(name, dims, length);
}

Tensor to_tensor(const std::string& name, const val& t) {
    const val data = t["data"];
    const std::size_t n = data["length"].as<std::size_t>();
    const Shape s = read_shape(name, t, n);
    Tensor out = Tensor::from_shape(s);
    val(emscripten::typed_memory_view(n, out.data())).call<void>("set", data);
    return out;
}

BoolTensor to_bool_tensor(const std::string& name, const val& t) {
    const val data = t["data"];
    const std::size_t n = data["length"].as<std::size_t>();
    const Shape s = read_shape(name, t, n);
    BoolTensor out = BoolTensor::from_shape(s);
    val(emscripten::typed_memory_view(n, out.data())).call<void>("set", data);
    return out;
}

Options to_options(const val& obj) {
    Options opts;
    if (obj.isUndefined() || obj.isNull()) return opts;
    const val keys = val::global("Object").call<val>("keys", obj);
    const std::size_t n = keys["length"].as<std::size_t>();
    const val uint8 = val::global("Uint8Array");
    for (std::size_t i = 0; i < n; ++i) {
        const std::string key = keys[i].as<std::string>();
        const val v = obj[key];
        const std::string type = v.typeOf().as<std::string>();
        if (type == "undefined") continue;
        if (type == "boolean") opts[key] = v.as<bool>();
        else if (type == "number") opts[key] = v.as<double>();
        else if (type == "string") opts[key] = v.as<std::string>();
        else if (v["data"].instanceof(uint8)) opts[key] = to_bool_tensor("option '" + key + "'", v);
        else opts[key] = to_tensor("option '" + key + "'", v);
    }
    return opts;
}

// ---- C++ -> JS -----------------------------------------------------------------------------
val from_tensor(const Tensor& t) {
    val o = val::object();
    val shape = val::array();
    for (std::size_t i = 0; i < t.dimension(); ++i) shape.call<void>("push", double(t.shape()[i]));
    o.set("shape", shape);
    // slice() copies out of WASM memory: a view would die when memory grows (TOOLCHAIN.md item 5)
    o.set("data", val(emscripten::typed_memory_view(t.size(), t.data())).call<val>("slice"));
    return o;
}

val from_vector(const std::vector<double>& v) {
    val a = val::array();
    for (double x : v) a.call<void>("push", x);
    return a;
}

std::string detail_num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

template <class F>
val guarded(F&& f) {
    std::string message;
    try {
        return f();
    } catch (const Error& e) {
        message = e.what();
    } catch (const std::bad_alloc&) {
        message = "out of memory: the inputs are too large for this browser tab";
    } catch (const std::exception& e) {
        message = std::string("internal error: ") + e.what();
    }
    val out = val::object();
    out.set("__error", message);
    return out;
}

// ---- the API ---------------------------------------------------------------------------------
val js_randn(val shape, double seed, double stddev) {
    return guarded([&] {
        const std::vector<double> dims = emscripten::convertJSArrayToNumberVector<double>(shape);
        double total = 1;
        for (double d : dims) total *= d;
        const Shape s = checked_shape("randn: shape", dims, total >= 0 && total <= double(kMaxElements) ? std::size_t(total) : 0);
        if (!(seed >= 0 && seed <= 9007199254740991.0) || seed != double(std::uint64_t(seed)))
            throw Error("randn: seed must be a whole number from 0 to 2^53 - 1");
        return from_tensor(randn(s, std::uint64_t(seed), stddev));
    });
}

val js_causal_average(val x, val opts) {
    return guarded([&] { return from_tensor(causal_average(to_tensor("causalAverage: x", x), to_options(opts))); });
}

val js_averaging_matrix(double T, val opts) {
    return guarded([&] { return from_tensor(averaging_matrix(T, to_options(opts))); });
}

val js_max_abs_diff(val a, val b) {
    return guarded([&] {
        return val(max_abs_diff(to_tensor("maxAbsDiff: a", a), to_tensor("maxAbsDiff: b", b)));
    });
}

val js_sum(val x, val opts) {
    return guarded([&] { return from_tensor(sum_along(to_tensor("sum: x", x), to_options(opts))); });
}

val js_matmul(val a, val b) {
    return guarded([&] { return from_tensor(matmul(to_tensor("matmul: a", a), to_tensor("matmul: b", b))); });
}

val js_mask_matrix(double Tq, double Tk, val opts) {
    return guarded([&] { return from_tensor(mask_matrix(Tq, Tk, to_options(opts))); });
}

val js_sdpa_reference(val q, val k, val v, val opts) {
    return guarded([&] {
        const SdpaResult r = sdpa_reference(to_tensor("sdpaReference: q", q), to_tensor("sdpaReference: k", k),
                                             to_tensor("sdpaReference: v", v), to_options(opts));
        val o = val::object();
        o.set("out", from_tensor(r.out));
        o.set("weights", from_tensor(r.weights));
        o.set("scores", from_tensor(r.scores));
        return o;
    });
}

val js_softmax(val scores, val opts) {
    return guarded([&] {
        const SoftmaxResult r = softmax(to_tensor("softmax: scores", scores), to_options(opts));
        val o = from_tensor(r.weights);
        val rows = val::array();
        for (const auto& idx : r.masked_rows) {
            val a = val::array();
            for (std::size_t i : idx) a.call<void>("push", double(i));
            rows.call<void>("push", a);
        }
        o.set("maskedRows", rows);
        return o;
    });
}

val js_sdpa(val q, val k, val v, val opts) {
    return guarded([&] {
        const SdpaResult r = sdpa(to_tensor("sdpa: q", q), to_tensor("sdpa: k", k), to_tensor("sdpa: v", v), to_options(opts));
        val o = val::object();
        o.set("out", from_tensor(r.out));
        o.set("weights", from_tensor(r.weights));
        o.set("scores", from_tensor(r.scores));
        return o;
    });
}

val js_sdpa_backward(val q, val k, val v, val g, val opts) {
    return guarded([&] {
        const SdpaGrads r = sdpa_backward(to_tensor("sdpaBackward: q", q), to_tensor("sdpaBackward: k", k),
                                          to_tensor("sdpaBackward: v", v), to_tensor("sdpaBackward: gradOut", g),
                                          to_options(opts));
        val o = val::object();
        o.set("dq", from_tensor(r.dq));
        o.set("dk", from_tensor(r.dk));
        o.set("dv", from_tensor(r.dv));
        return o;
    });
}

val js_linear_weight_to_math(val w) {
    return guarded([&] { return from_tensor(linear_weight_to_math(to_tensor("linearWeightToMath: w", w))); });
}

val js_math_weight_to_linear(val w) {
    return guarded([&] { return from_tensor(math_weight_to_linear(to_tensor("mathWeightToLinear: w", w))); });
}

val js_mha(val x, val opts) {
    return guarded([&] {
        const MhaResult r = multi_head_attention(to_tensor("multiHeadAttention: x", x), to_options(opts));
        val o = val::object();
        o.set("out", from_tensor(r.out));
        o.set("weights", from_tensor(r.weights));
        o.set("scores", from_tensor(r.scores));
        o.set("q", from_tensor(r.q));
        o.set("k", from_tensor(r.k));
        o.set("v", from_tensor(r.v));
        return o;
    });
}

val js_mha_backward(val x, val g, val opts) {
    return guarded([&] {
        const MhaGrads r = multi_head_attention_backward(to_tensor("multiHeadAttentionBackward: x", x),
                                                         to_tensor("multiHeadAttentionBackward: gradOut", g),
                                                         to_options(opts));
        val o = val::object();
        o.set("dx", from_tensor(r.dx));
        o.set("dwq", from_tensor(r.dwq));
        o.set("dwk", from_tensor(r.dwk));
        o.set("dwv", from_tensor(r.dwv));
        if (r.dmemory.size() > 0) o.set("dmemory", from_tensor(r.dmemory));
        return o;
    });
}

val js_attention_stats(val w) {
    return guarded([&] {
        const RowStats r = attention_stats(to_tensor("attentionStats: weights", w));
        val o = val::object();
        o.set("entropy", from_tensor(r.entropy));
        o.set("maxWeight", from_tensor(r.max_weight));
        return o;
    });
}

val js_dot_product_variance(val dims, double samples, double seed) {
    return guarded([&] {
        const DotVariance r = dot_product_variance(emscripten::convertJSArrayToNumberVector<double>(dims), samples, seed);
        val o = val::object();
        o.set("dims", from_vector(r.dims));
        o.set("unscaled", from_vector(r.unscaled));
        o.set("scaled", from_vector(r.scaled));
        return o;
    });
}

val js_softmax_sharpening(val logits, double factor) {
    return guarded([&] {
        const Sharpening r = softmax_sharpening(to_tensor("softmaxSharpening: logits", logits), factor);
        val o = val::object();
        o.set("weights", from_tensor(r.weights));
        o.set("jacobian", from_tensor(r.jacobian));
        o.set("jacobianNorm", r.jacobian_norm);
        o.set("entropy", r.entropy);
        o.set("maxWeight", r.max_weight);
        return o;
    });
}

val js_positions(std::string kind, double T, double C, val opts) {
    return guarded([&] { return from_tensor(positions(kind, T, C, to_options(opts))); });
}

val js_permutation_check(val x, val opts) {
    return guarded([&] {
        const PermutationResult r = permutation_check(to_tensor("permutationCheck: x", x), to_options(opts));
        val o = val::object();
        o.set("maxDiff", r.max_diff);
        std::vector<double> perm(r.perm.begin(), r.perm.end());
        o.set("perm", from_vector(perm));
        o.set("permutedInput", from_tensor(r.permuted_input));
        o.set("outOfPermuted", from_tensor(r.out_of_permuted));
        o.set("permutedOut", from_tensor(r.permuted_out));
        return o;
    });
}

val js_gradcheck(std::string kind, val opts) {
    return guarded([&] {
        const GradcheckResult r = gradcheck(kind, to_options(opts));
        val o = val::object();
        o.set("passed", r.passed);
        o.set("eps", r.eps);
        o.set("atol", r.atol);
        o.set("rtol", r.rtol);
        val inputs = val::object();
        for (const auto& i : r.inputs) {
            val e = val::object();
            e.set("maxAbsError", i.max_abs_error);
            e.set("maxRatio", i.max_ratio);
            e.set("passed", i.passed);
            inputs.set(i.name, e);
        }
        o.set("inputs", inputs);
        return o;
    });
}

val js_future_probe(val x, val opts) {
    return guarded([&] {
        const FutureProbeResult r = future_probe(to_tensor("futureProbe: x", x), to_options(opts));
        val o = val::object();
        o.set("maxPrefixChange", r.max_prefix_change);
        o.set("maxFutureChange", r.max_future_change);
        o.set("change", from_tensor(r.change));
        return o;
    });
}

val js_dropout(val x, val opts) {
    return guarded([&] { return from_tensor(dropout(to_tensor("dropout: x", x), to_options(opts))); });
}

val js_dropout_stats(val w, val opts) {
    return guarded([&] {
        const DropoutStats r = dropout_stats(to_tensor("dropoutStats: weights", w), to_options(opts));
        val o = val::object();
        o.set("sampleRowSums", from_tensor(r.sample_row_sums));
        o.set("meanRowSums", from_tensor(r.mean_row_sums));
        return o;
    });
}

// ---- the character GPT ------------------------------------------------------------------------
// Models live here, keyed by a number; JS holds the number (wasm/js/index.js frees it on dispose).
std::map<int, std::unique_ptr<CharTrainer>> models;
int next_model = 1;

CharTrainer& model(double id) {
    auto it = models.find(int(id));
    if (it == models.end()) throw Error("model " + detail_num(id) + " does not exist (disposed?)");
    return *it->second;
}

val js_gpt_create(std::string text, val opts) {
    return guarded([&] {
        auto tr = std::make_unique<CharTrainer>(make_trainer(text, to_options(opts)));
        const GptConfig& c = tr->model().config();
        val o = val::object();
        o.set("id", next_model);
        o.set("vocab", double(c.vocab));
        o.set("C", double(c.C));
        o.set("heads", double(c.heads));
        o.set("layers", double(c.layers));
        o.set("tMax", double(c.t_max));
        o.set("seed", double(c.seed));
        o.set("causal", c.causal);
        o.set("batch", double(tr->options().batch));
        o.set("T", double(tr->options().t));
        o.set("lr", tr->options().lr);
        o.set("params", double(tr->model().params().size()));
        o.set("unigramEntropy", tr->data().unigram_entropy());
        o.set("trainChars", double(tr->data().train().size()));
        o.set("valChars", double(tr->data().val().size()));
        std::vector<int> all(tr->data().vocab());
        for (std::size_t i = 0; i < all.size(); ++i) all[i] = int(i);
        o.set("chars", tr->data().decode(all));
        models[next_model++] = std::move(tr);
        return o;
    });
}

val js_gpt_train(double id, double n) {
    return guarded([&] {
        CharTrainer& tr = model(id);
        val o = val::object();
        o.set("loss", tr.train_steps(std::size_t(std::max(0.0, n))));
        o.set("step", double(tr.model().steps()));
        return o;
    });
}

val js_gpt_evaluate(double id, double batches) {
    return guarded([&] {
        CharTrainer& tr = model(id);
        val o = val::object();
        o.set("train", tr.evaluate(false, std::size_t(std::max(0.0, batches))));
        o.set("val", tr.evaluate(true, std::size_t(std::max(0.0, batches))));
        return o;
    });
}

val js_gpt_sample(double id, std::string prompt, double length, double temperature, double seed) {
    return guarded([&] {
        if (!(length >= 0 && length <= 2000)) throw Error("sample: length must be from 0 to 2000, got " + detail_num(length));
        if (!(seed >= 0 && seed <= 9007199254740991.0)) throw Error("sample: seed must be a whole number >= 0");
        return val(model(id).sample(prompt, std::size_t(length), temperature, std::uint64_t(seed)));
    });
}

val js_gpt_attention(double id, std::string text) {
    return guarded([&] {
        val maps = val::array();
        for (const Tensor& t : model(id).attention_maps(text)) maps.call<void>("push", from_tensor(t));
        return maps;
    });
}

val js_gpt_future(double id, std::string text, double t, double seed) {
    return guarded([&] {
        if (!(t >= 0 && t <= 512) || t != double(std::size_t(t))) throw Error("futureCheck: t must be a whole number >= 0, got " + detail_num(t));
        const FutureCheck f = model(id).future_check(text, std::size_t(t), std::uint64_t(std::max(0.0, seed)));
        val o = val::object();
        o.set("maxPrefixChange", f.max_prefix_change);
        o.set("maxFutureChange", f.max_future_change);
        o.set("perPosition", from_vector(f.per_position));
        return o;
    });
}

val js_gpt_params(double id) {
    return guarded([&] {
        std::vector<double>& p = model(id).model().params();
        return val(emscripten::typed_memory_view(p.size(), p.data())).call<val>("slice");
    });
}

val js_gpt_free(double id) {
    return guarded([&] {
        models.erase(int(id));
        return val::object();
    });
}

val js_gpt_gradcheck(double seed) {
    return guarded([&] {
        const GptGradcheck g = gpt_gradcheck(std::uint64_t(std::max(0.0, seed)));
        val o = val::object();
        o.set("passed", g.passed);
        o.set("maxAbsError", g.max_abs_error);
        o.set("params", double(g.params));
        return o;
    });
}

// Diagnostics for the memory tests: bytes malloc has handed out and not taken back, and the
// size of the WASM memory.
val js_memory_stats() {
    val o = val::object();
    o.set("heapInUse", double(mallinfo().uordblks));
    o.set("memoryBytes", double(__builtin_wasm_memory_size(0)) * 65536.0);
    return o;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention_lab) {
    emscripten::function("randn", &js_randn);
    emscripten::function("causalAverage", &js_causal_average);
    emscripten::function("averagingMatrix", &js_averaging_matrix);
    emscripten::function("maxAbsDiff", &js_max_abs_diff);
    emscripten::function("sum", &js_sum);
    emscripten::function("matmul", &js_matmul);
    emscripten::function("maskMatrix", &js_mask_matrix);
    emscripten::function("sdpaReference", &js_sdpa_reference);
    emscripten::function("softmax", &js_softmax);
    emscripten::function("sdpa", &js_sdpa);
    emscripten::function("sdpaBackward", &js_sdpa_backward);
    emscripten::function("linearWeightToMath", &js_linear_weight_to_math);
    emscripten::function("mathWeightToLinear", &js_math_weight_to_linear);
    emscripten::function("multiHeadAttention", &js_mha);
    emscripten::function("multiHeadAttentionBackward", &js_mha_backward);
    emscripten::function("attentionStats", &js_attention_stats);
    emscripten::function("dotProductVariance", &js_dot_product_variance);
    emscripten::function("softmaxSharpening", &js_softmax_sharpening);
    emscripten::function("positions", &js_positions);
    emscripten::function("permutationCheck", &js_permutation_check);
    emscripten::function("gradcheck", &js_gradcheck);
    emscripten::function("futureProbe", &js_future_probe);
    emscripten::function("dropout", &js_dropout);
    emscripten::function("dropoutStats", &js_dropout_stats);
    emscripten::function("memoryStats", &js_memory_stats);
    emscripten::function("gptCreate", &js_gpt_create);
    emscripten::function("gptTrain", &js_gpt_train);
    emscripten::function("gptEvaluate", &js_gpt_evaluate);
    emscripten::function("gptSample", &js_gpt_sample);
    emscripten::function("gptAttention", &js_gpt_attention);
    emscripten::function("gptFutureCheck", &js_gpt_future);
    emscripten::function("gptParams", &js_gpt_params);
    emscripten::function("gptFree", &js_gpt_free);
    emscripten::function("gptGradcheck", &js_gpt_gradcheck);
}
