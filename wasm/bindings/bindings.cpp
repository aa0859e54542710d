// The only file that knows about Emscripten.
//
// The boundary is a small wire protocol, so a call costs a handful of crossings whatever its
// arguments (per-value Embind marshalling cost more than the math on small inputs):
//   1. JS asks for room (reserve), writes the request into two reused regions of the WASM heap:
//      numbers and tensor data as float64 (`in`), strings as UTF-8 bytes (`bytes`);
//   2. JS calls call(name); this file decodes the request into the core's own types (Tensor,
//      Options, ...) and calls the public C++ API, which checks everything;
//   3. the result comes back as a JSON string describing its structure, in which every tensor is
//      {"$":[offset,length],"s":[shape]} and every number {"#":index} into one float64 buffer
//      (`out`) that JS slices; an error comes back as status 1 and {code, message, params} in the
//      same form (attn/errors.hpp).
// C++ errors never unwind through JS frames (they are caught here), and no Embind class or value
// handle crosses the boundary, so nothing needs .delete() and nothing leaks.
#include <emscripten/bind.h>
#include <malloc.h>

#include <charconv>
#include <cmath>
#include <exception>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "attn/attention.hpp"
#include "attn/gpt.hpp"

using namespace attn;

namespace {

// ---- the wire ------------------------------------------------------------------------------
struct Wire {
    std::vector<double> in, out;
    std::vector<std::uint8_t> bytes;
    std::string json, last_json;   // last_json: the previous successful call's structure
} wire;

// Request tags (wasm/js/api.js writes the same numbers). kBad: JS found a value of the wrong type
// and sends its path, the expected type and the type it got, for the error to be raised here.
enum Tag { kNumber = 0, kString = 1, kTensor = 2, kBoolTensor = 3, kOptions = 4, kBool = 5, kNumbers = 6, kBad = 7 };

using Arg = std::variant<double, std::string, Tensor, BoolTensor, Options, bool, std::vector<double>>;

[[noreturn]] void internal(std::string_view fn, const std::string& detail) {
    throw Error(ErrorCode::internal, {{"fn", fn}, {"detail", detail}});
}

class Reader {
public:
    Reader(std::string_view fn, std::size_t header) : fn_(fn), data_(header) {}
    double next() {
        if (pos_ >= wire.in.size()) internal(fn_, "the request ended early");
        return wire.in[pos_++];
    }
    std::size_t index() { return std::size_t(next()); }
    std::string text() {
        const std::size_t off = index(), len = index();
        if (off + len > wire.bytes.size()) internal(fn_, "a string is outside the request");
        return std::string(reinterpret_cast<const char*>(wire.bytes.data() + off), len);
    }
    // dims and data of a tensor; the data follows the header region, in request order
    template <class T>
    T tensor(bool boolean) {
        const std::string name = text();
        const std::size_t rank = index();
        if (rank > 64) throw Error(ErrorCode::shape_axes, {{"fn", fn_}, {"arg", name}, {"rank", rank}, {"maxRank", kMaxRank}});
        std::vector<double> dims(rank);
        for (double& d : dims) d = next();
        const std::size_t length = index();
        const Shape s = checked_shape(fn_, name, dims, length);
        T t = T::from_shape(s);
        if (boolean) {
            const std::size_t off = index();
            for (std::size_t i = 0; i < length; ++i) t.data()[i] = wire.bytes[off + i];
        } else {
            std::copy_n(wire.in.begin() + long(data_), length, t.data());
            data_ += length;
        }
        return t;
    }
    Arg value(int tag) {
        switch (tag) {
            case kNumber: return next();
            case kString: return text();
            case kTensor: return tensor<Tensor>(false);
            case kBoolTensor: return tensor<BoolTensor>(true);
            case kBool: return next() != 0.0;
            case kNumbers: {
                std::vector<double> v(index());
                for (double& x : v) x = next();
                return v;
            }
            case kOptions: {
                Options o;
                const std::size_t n = index();
                for (std::size_t i = 0; i < n; ++i) {
                    const std::string key = text();
                    const int t = int(next());
                    Arg v = value(t);
                    if (auto d = std::get_if<double>(&v)) o[key] = *d;
                    else if (auto s = std::get_if<std::string>(&v)) o[key] = *s;
                    else if (auto ten = std::get_if<Tensor>(&v)) o[key] = std::move(*ten);
                    else if (auto bt = std::get_if<BoolTensor>(&v)) o[key] = std::move(*bt);
                    else if (auto b = std::get_if<bool>(&v)) o[key] = *b;
                    else internal(fn_, "option '" + key + "' has an unsupported value");
                }
                return o;
            }
            case kBad: {
                const std::string arg = text(), expected = text(), got = text();
                throw Error(ErrorCode::wrong_type, {{"fn", fn_}, {"arg", arg}, {"expectedType", expected}, {"gotType", got}});
            }
            default: internal(fn_, "unknown tag " + std::to_string(tag));
        }
    }
private:
    std::string_view fn_;
    std::size_t pos_ = 0, data_;
};

// Appends a whole number to the JSON without a temporary string.
void put(std::size_t v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    wire.json.append(buf, r.ptr);
}

// Builds the result: JSON for the structure, numbers and tensor data in wire.out.
class Result {
public:
    Result() { wire.out.clear(); wire.json.clear(); }
    Result& begin() { sep(); wire.json += '{'; first_ = true; return *this; }
    Result& end() { wire.json += '}'; first_ = false; return *this; }
    Result& begin_list() { sep(); wire.json += '['; first_ = true; return *this; }
    Result& end_list() { wire.json += ']'; first_ = false; return *this; }
    Result& key(const char* k) { sep(); wire.json += '"'; wire.json += k; wire.json += "\":"; first_ = true; return *this; }
    Result& number(double v) {
        sep();
        wire.json += "{\"#\":";
        put(wire.out.size());
        wire.json += '}';
        wire.out.push_back(v);
        return *this;
    }
    Result& boolean(bool b) { sep(); wire.json += b ? "true" : "false"; return *this; }
    Result& string(const std::string& s) {
        sep();
        wire.json += '"';
        for (unsigned char c : s) {
            if (c == '"' || c == '\\') { wire.json += '\\'; wire.json += char(c); }
            else if (c < 0x20) { char buf[8]; std::snprintf(buf, sizeof buf, "\\u%04x", c); wire.json += buf; }
            else wire.json += char(c);
        }
        wire.json += '"';
        return *this;
    }
    Result& tensor(const Tensor& t) {
        sep();
        wire.json += "{\"$\":[";
        put(wire.out.size());
        wire.json += ',';
        put(t.size());
        wire.json += "],\"s\":[";
        for (std::size_t i = 0; i < t.dimension(); ++i) {
            if (i) wire.json += ',';
            put(t.shape()[i]);
        }
        wire.json += "]}";
        wire.out.insert(wire.out.end(), t.data(), t.data() + t.size());
        return *this;
    }
    Result& numbers(const std::vector<double>& v) {
        begin_list();
        for (double x : v) number(x);
        return end_list();
    }
    // the values alone, as a Float64Array (no shape)
    Result& values(const double* p, std::size_t n) {
        sep();
        wire.json += "{\"$\":[";
        put(wire.out.size());
        wire.json += ',';
        put(n);
        wire.json += "]}";
        wire.out.insert(wire.out.end(), p, p + n);
        return *this;
    }
private:
    bool first_ = true;
    void sep() { if (!first_) wire.json += ','; first_ = false; }
};

// ---- arguments ------------------------------------------------------------------------------
struct Args {
    std::vector<Arg> v;
    template <class T>
    const T& at(std::size_t i, const char* what) const {
        if (i >= v.size()) internal("", std::string("missing argument ") + what);
        if (auto p = std::get_if<T>(&v[i])) return *p;
        internal("", std::string("argument ") + what + " has the wrong type");
    }
    const Tensor& tensor(std::size_t i) const { return at<Tensor>(i, "tensor"); }
    const Options& options(std::size_t i) const { static const Options none; return i < v.size() ? at<Options>(i, "options") : none; }
    double number(std::size_t i) const { return at<double>(i, "number"); }
    const std::string& text(std::size_t i) const { return at<std::string>(i, "string"); }
};

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

// ---- the character GPT registry ---------------------------------------------------------------
// Models live here, keyed by a number; JS holds the number (wasm/js/api.js frees it on dispose).
std::map<int, std::unique_ptr<CharTrainer>> models;
int next_model = 1;

CharTrainer& model(const char* fn, double id) {
    auto it = models.find(int(id));
    if (it == models.end()) throw Error(ErrorCode::disposed, {{"fn", fn}});
    return *it->second;
}

std::uint64_t whole(const char* fn, const char* arg, double v, double lo, double hi) {
    if (!(v >= lo && v <= hi) || v != std::floor(v))
        throw Error(ErrorCode::integer_range, {{"fn", fn}, {"arg", arg}, {"value", v}, {"min", lo}, {"max", hi}});
    return std::uint64_t(v);
}

// ---- the API ----------------------------------------------------------------------------------
using Handler = std::function<void(const Args&, Result&)>;

void tensors(Result& r, std::initializer_list<std::pair<const char*, const Tensor*>> fields) {
    r.begin();
    for (const auto& [k, t] : fields) r.key(k).tensor(*t);
    r.end();
}

const std::map<std::string, Handler>& handlers() {
    static const std::map<std::string, Handler> h = {
        {"randn", [](const Args& a, Result& r) {
             const std::vector<double>& dims = a.at<std::vector<double>>(0, "shape");
             double total = 1;
             for (double d : dims) total *= d;
             const Shape s = checked_shape("randn", "shape", dims, total >= 0 && total <= double(kMaxElements) ? std::size_t(total) : 0);
             r.tensor(randn(s, whole("randn", "seed", a.number(1), 0, 9007199254740991.0), a.number(2)));
         }},
        {"causalAverage", [](const Args& a, Result& r) { r.tensor(causal_average(a.tensor(0), a.options(1))); }},
        {"averagingMatrix", [](const Args& a, Result& r) { r.tensor(averaging_matrix(a.number(0), a.options(1))); }},
        {"maxAbsDiff", [](const Args& a, Result& r) { r.number(max_abs_diff(a.tensor(0), a.tensor(1))); }},
        {"sum", [](const Args& a, Result& r) { r.tensor(sum_along(a.tensor(0), a.options(1))); }},
        {"matmul", [](const Args& a, Result& r) { r.tensor(matmul(a.tensor(0), a.tensor(1))); }},
        {"maskMatrix", [](const Args& a, Result& r) { r.tensor(mask_matrix(a.number(0), a.number(1), a.options(2))); }},
        {"softmax", [](const Args& a, Result& r) {
             const SoftmaxResult s = softmax(a.tensor(0), a.options(1));
             r.begin().key("shape").numbers(std::vector<double>(s.weights.shape().begin(), s.weights.shape().end()));
             r.key("data").values(s.weights.data(), s.weights.size()).key("maskedRows").begin_list();
             for (const auto& idx : s.masked_rows) r.numbers(std::vector<double>(idx.begin(), idx.end()));
             r.end_list().end();
         }},
        {"sdpa", [](const Args& a, Result& r) {
             const SdpaResult s = sdpa(a.tensor(0), a.tensor(1), a.tensor(2), a.options(3));
             tensors(r, {{"out", &s.out}, {"weights", &s.weights}, {"scores", &s.scores}});
         }},
        {"sdpaReference", [](const Args& a, Result& r) {
             const SdpaResult s = sdpa_reference(a.tensor(0), a.tensor(1), a.tensor(2), a.options(3));
             tensors(r, {{"out", &s.out}, {"weights", &s.weights}, {"scores", &s.scores}});
         }},
        {"sdpaBackward", [](const Args& a, Result& r) {
             const SdpaGrads g = sdpa_backward(a.tensor(0), a.tensor(1), a.tensor(2), a.tensor(3), a.options(4));
             tensors(r, {{"dq", &g.dq}, {"dk", &g.dk}, {"dv", &g.dv}});
         }},
        {"linearWeightToMath", [](const Args& a, Result& r) { r.tensor(linear_weight_to_math(a.tensor(0))); }},
        {"mathWeightToLinear", [](const Args& a, Result& r) { r.tensor(math_weight_to_linear(a.tensor(0))); }},
        {"multiHeadAttention", [](const Args& a, Result& r) {
             const MhaResult m = multi_head_attention(a.tensor(0), a.options(1));
             tensors(r, {{"out", &m.out}, {"weights", &m.weights}, {"scores", &m.scores}, {"q", &m.q}, {"k", &m.k}, {"v", &m.v}});
         }},
        {"multiHeadAttentionBackward", [](const Args& a, Result& r) {
             const MhaGrads g = multi_head_attention_backward(a.tensor(0), a.tensor(1), a.options(2));
             r.begin().key("dx").tensor(g.dx).key("dwq").tensor(g.dwq).key("dwk").tensor(g.dwk).key("dwv").tensor(g.dwv);
             if (g.dmemory.dimension() > 0) r.key("dmemory").tensor(g.dmemory);
             r.end();
         }},
        {"attentionStats", [](const Args& a, Result& r) {
             const RowStats s = attention_stats(a.tensor(0));
             tensors(r, {{"entropy", &s.entropy}, {"maxWeight", &s.max_weight}});
         }},
        {"dotProductVariance", [](const Args& a, Result& r) {
             const DotVariance d = dot_product_variance(a.at<std::vector<double>>(0, "dims"), a.options(1));
             r.begin().key("dims").numbers(d.dims).key("unscaled").numbers(d.unscaled).key("scaled").numbers(d.scaled).end();
         }},
        {"softmaxSharpening", [](const Args& a, Result& r) {
             const Sharpening s = softmax_sharpening(a.tensor(0), a.number(1));
             r.begin().key("weights").tensor(s.weights).key("jacobian").tensor(s.jacobian).key("jacobianNorm").number(s.jacobian_norm)
                 .key("entropy").number(s.entropy).key("maxWeight").number(s.max_weight).end();
         }},
        {"positions", [](const Args& a, Result& r) { r.tensor(positions(a.text(0), a.number(1), a.number(2), a.options(3))); }},
        {"permutationCheck", [](const Args& a, Result& r) {
             const PermutationResult p = permutation_check(a.tensor(0), a.options(1));
             r.begin().key("maxDiff").number(p.max_diff).key("perm").numbers(std::vector<double>(p.perm.begin(), p.perm.end()))
                 .key("permutedInput").tensor(p.permuted_input).key("outOfPermuted").tensor(p.out_of_permuted)
                 .key("permutedOut").tensor(p.permuted_out).end();
         }},
        {"gradcheck", [](const Args& a, Result& r) {
             const GradcheckResult g = gradcheck(a.text(0), a.options(1));
             r.begin().key("passed").boolean(g.passed).key("eps").number(g.eps).key("atol").number(g.atol).key("rtol").number(g.rtol).key("inputs").begin();
             for (const auto& i : g.inputs)
                 r.key(i.name.c_str()).begin().key("maxAbsError").number(i.max_abs_error).key("maxRatio").number(i.max_ratio).key("passed").boolean(i.passed).end();
             r.end().end();
         }},
        {"futureProbe", [](const Args& a, Result& r) {
             const FutureProbeResult f = future_probe(a.tensor(0), a.options(1));
             r.begin().key("maxPrefixChange").number(f.max_prefix_change).key("maxFutureChange").number(f.max_future_change)
                 .key("change").tensor(f.change).end();
         }},
        {"dropout", [](const Args& a, Result& r) { r.tensor(dropout(a.tensor(0), a.options(1))); }},
        {"dropoutStats", [](const Args& a, Result& r) {
             const DropoutStats s = dropout_stats(a.tensor(0), a.options(1));
             tensors(r, {{"sampleRowSums", &s.sample_row_sums}, {"meanRowSums", &s.mean_row_sums}});
         }},
        {"memoryStats", [](const Args&, Result& r) {
             r.begin().key("heapInUse").number(double(mallinfo().uordblks))
                 .key("memoryBytes").number(double(__builtin_wasm_memory_size(0)) * 65536.0)
                 .key("wireBytes").number(double((wire.in.capacity() + wire.out.capacity()) * 8 + wire.bytes.capacity() + wire.json.capacity())).end();
         }},
        // the character GPT
        {"createModel", [](const Args& a, Result& r) {
             auto tr = std::make_unique<CharTrainer>(make_trainer(a.text(0), a.options(1)));
             const GptConfig& c = tr->model().config();
             std::vector<int> all(tr->data().vocab());
             for (std::size_t i = 0; i < all.size(); ++i) all[i] = int(i);
             r.begin().key("id").number(next_model).key("vocab").number(double(c.vocab)).key("C").number(double(c.C))
                 .key("heads").number(double(c.heads)).key("layers").number(double(c.layers)).key("tMax").number(double(c.t_max))
                 .key("seed").number(double(c.seed)).key("causal").boolean(c.causal).key("batch").number(double(tr->options().batch))
                 .key("T").number(double(tr->options().t)).key("lr").number(tr->options().lr)
                 .key("params").number(double(tr->model().params().size())).key("unigramEntropy").number(tr->data().unigram_entropy())
                 .key("trainChars").number(double(tr->data().train().size())).key("valChars").number(double(tr->data().val().size()))
                 .key("chars").string(tr->data().decode(all)).end();
             models[next_model++] = std::move(tr);
         }},
        {"trainSteps", [](const Args& a, Result& r) {
             CharTrainer& tr = model("trainSteps", a.number(0));
             const double loss = tr.train_steps(whole("trainSteps", "n", a.number(1), 1, 100000));
             r.begin().key("loss").number(loss).key("step").number(double(tr.model().steps())).end();
         }},
        {"evaluate", [](const Args& a, Result& r) {
             CharTrainer& tr = model("evaluate", a.number(0));
             const std::size_t n = whole("evaluate", "batches", a.number(1), 1, 1000);
             const double train = tr.evaluate(false, n), val = tr.evaluate(true, n);
             r.begin().key("train").number(train).key("val").number(val).end();
         }},
        {"sample", [](const Args& a, Result& r) {
             CharTrainer& tr = model("sample", a.number(0));
             const std::size_t length = whole("sample", "opts.length", a.number(2), 0, 2000);
             const std::size_t seed = whole("sample", "opts.seed", a.number(4), 0, 9007199254740991.0);
             r.string(tr.sample(a.text(1), length, a.number(3), seed));
         }},
        {"attention", [](const Args& a, Result& r) {
             r.begin_list();
             for (const Tensor& t : model("attention", a.number(0)).attention_maps(a.text(1))) r.tensor(t);
             r.end_list();
         }},
        {"futureCheck", [](const Args& a, Result& r) {
             CharTrainer& tr = model("futureCheck", a.number(0));
             const FutureCheck f = tr.future_check(a.text(1), whole("futureCheck", "opts.t", a.number(2), 0, 512),
                                                   whole("futureCheck", "opts.seed", a.number(3), 0, 9007199254740991.0));
             r.begin().key("maxPrefixChange").number(f.max_prefix_change).key("maxFutureChange").number(f.max_future_change)
                 .key("perPosition").numbers(f.per_position).end();
         }},
        {"parameters", [](const Args& a, Result& r) {
             const std::vector<double>& p = model("parameters", a.number(0)).model().params();
             r.values(p.data(), p.size());
         }},
        {"dispose", [](const Args& a, Result& r) { models.erase(int(a.number(0))); r.begin().end(); }},
        {"gptGradcheck", [](const Args& a, Result& r) {
             const GptGradcheck g = gpt_gradcheck(whole("gptGradcheck", "seed", a.number(0), 0, 9007199254740991.0));
             r.begin().key("passed").boolean(g.passed).key("maxAbsError").number(g.max_abs_error).key("params").number(double(g.params)).end();
         }},
    };
    return h;
}

// ---- entry points -------------------------------------------------------------------------------
// Where things are, for JS to read after each call without another crossing: a fixed block of
// float64 at a stable address (descriptor()):
//   [0] in address  [1] bytes address            (written by reserve)
//   [2] status      [3] out address  [4] out length  [5] json address  [6] json length   (by call)
//   [7] 1 when the result's structure is the same as the previous call's (JS can skip reading it)
double desc[8];

std::uintptr_t addr(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

double descriptor() { return double(addr(desc)); }

// The error codes and parameters (attn/errors.hpp) as JSON: {codes: {code: [param, ...]},
// params: {param: kind}}; JS reads this once.
std::string error_table() {
    std::string s = "{\"codes\":{";
    for (const auto& c : error_codes()) {
        s += std::string(s.back() == '{' ? "" : ",") + "\"" + c.name + "\":[";
        for (std::size_t i = 0; i < c.params.size(); ++i) s += std::string(i ? "," : "") + "\"" + c.params[i] + "\"";
        s += "]";
    }
    s += "},\"params\":{";
    for (const auto& p : error_params()) s += std::string(s.back() == '{' ? "" : ",") + "\"" + p.name + "\":\"" + kind_name(p.kind) + "\"";
    return s + "}}";
}

// The functions, in the order call() numbers them ("a,b,c"): JS reads this once.
std::string function_names() {
    std::string s;
    for (const auto& kv : handlers()) s += (s.empty() ? "" : ",") + kv.first;
    return s;
}

// {code, message, params} of an error, in the result's form (numbers through `out`, so NaN and
// Infinity survive), for JS to throw.
void write_error(const Error& e) {
    Result r;
    r.begin().key("code").string(e.code_name()).key("message").string(e.what()).key("params").begin();
    for (const ErrorParam& p : e.params()) {
        r.key(p.name);
        if (auto d = std::get_if<double>(&p.value)) r.number(*d);
        else if (auto s = std::get_if<std::string>(&p.value)) r.string(*s);
        else if (auto v = std::get_if<std::vector<double>>(&p.value)) r.numbers(*v);
        else {
            r.begin_list();
            for (const std::string& x : std::get<std::vector<std::string>>(p.value)) r.string(x);
            r.end_list();
        }
    }
    r.end().end();
}

// Writes the error for any exception; status 1.
int fail(std::string_view fn, std::exception_ptr ex) {
    try {
        try {
            std::rethrow_exception(ex);
        } catch (const Error& e) {
            write_error(e);
        } catch (const std::bad_alloc&) {
            write_error(Error(ErrorCode::out_of_memory, {{"fn", fn}}));
        } catch (const std::exception& e) {
            write_error(Error(ErrorCode::internal, {{"fn", fn}, {"detail", e.what()}}));
        }
    } catch (...) {   // no memory even for the message
        wire.out.clear();
        wire.json = "{}";
    }
    return 1;
}

// Where the result (or the error) is, for JS.
void publish(int status) {
    const bool same = status == 0 && wire.json == wire.last_json;
    if (status == 0 && !same) wire.last_json = wire.json;
    desc[7] = same ? 1.0 : 0.0;
    desc[2] = status;
    desc[3] = double(addr(wire.out.data()));
    desc[4] = double(wire.out.size());
    desc[5] = double(addr(wire.json.data()));
    desc[6] = double(wire.json.size());
}

std::string_view function_name(double fn) {
    return fn >= 0 && fn < double(handlers().size()) ? std::string_view(std::next(handlers().begin(), long(fn))->first) : "";
}

// Room for a request to function `fn`: `numbers` float64 values and `bytes` string bytes (the
// addresses move when the vectors grow, so they are written to the descriptor each time).
// 0: done; 1: no memory for it, and the error is in the wire as after call().
int reserve(double fn, double numbers, double bytes) {
    // a large result from the last call has been copied out by now
    if (wire.out.capacity() > (std::size_t(1) << 20)) std::vector<double>().swap(wire.out);
    try {
        if (!(numbers >= 0 && bytes >= 0 && numbers <= 2e8 && bytes <= 2e9)) throw std::bad_alloc();
        wire.in.resize(std::size_t(numbers));
        wire.bytes.resize(std::size_t(bytes));
    } catch (const std::exception&) {
        std::vector<double>().swap(wire.in);   // give back what a failed growth may hold
        std::vector<std::uint8_t>().swap(wire.bytes);
        publish(fail(function_name(fn), std::make_exception_ptr(std::bad_alloc())));
        return 1;
    }
    desc[0] = double(addr(wire.in.data()));
    desc[1] = double(addr(wire.bytes.data()));
    return 0;
}

// Decode the request (its first `header` numbers are the argument descriptions, tensor data follows)
// and run function number `fn`. Status 0: the result is in the wire; 1: an error, the message is the json.
int call(double fn, double header) {
    int status = 1;
    try {
        if (!(fn >= 0 && fn < double(handlers().size()))) internal("", "unknown function " + num(fn));
        auto it = std::next(handlers().begin(), long(fn));
        Reader in{it->first, std::size_t(header)};
        Args args;
        const std::size_t n = in.index();
        for (std::size_t i = 0; i < n; ++i) args.v.push_back(in.value(int(in.next())));
        Result r;
        it->second(args, r);
        status = 0;
    } catch (...) {
        status = fail(function_name(fn), std::current_exception());
    }
    // Keep small buffers for the next call; give big ones back (JS copies the result out first,
    // so only the request can go now: a very large call should not hold memory for the tab's life).
    if (wire.in.capacity() > (std::size_t(1) << 20)) std::vector<double>().swap(wire.in);
    if (wire.bytes.capacity() > (std::size_t(8) << 20)) std::vector<std::uint8_t>().swap(wire.bytes);
    publish(status);
    return status;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention_lab) {
    emscripten::function("descriptor", &descriptor);
    emscripten::function("functionNames", &function_names);
    emscripten::function("reserve", &reserve);
    emscripten::function("call", &call);
    emscripten::function("errorTable", &error_table);
}
