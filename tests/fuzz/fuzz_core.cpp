// libFuzzer targets over the public C++ API (one binary per target, chosen by ATTN_FUZZ_TARGET).
// Random shapes, options and values, including NaN, +/-Inf, +/-1e308, denormals, -0 and empty or
// oversized axes, go into the API. Each call must either throw attn::Error or return a result
// with the documented properties; anything else (another exception, a crash, a sanitizer report,
// a property violated) is a bug. Build and run: scripts/fuzz.sh.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>

#include "attn/attention.hpp"
#include "attn/gpt.hpp"

using namespace attn;

namespace {

[[noreturn]] void violated(const char* what) {
    std::fprintf(stderr, "property violated: %s\n", what);
    std::abort();
}
#define EXPECT(cond) \
    do { if (!(cond)) violated(#cond); } while (0)

double value(FuzzedDataProvider& p) {
    switch (p.ConsumeIntegralInRange<int>(0, 15)) {
        case 0: return std::numeric_limits<double>::quiet_NaN();
        case 1: return std::numeric_limits<double>::infinity();
        case 2: return -std::numeric_limits<double>::infinity();
        case 3: return 1e308;
        case 4: return -1e308;
        case 5: return 5e-324;   // smallest denormal
        case 6: return -0.0;
        case 7: return std::numeric_limits<double>::max();
        case 8: return p.ConsumeFloatingPoint<double>();   // anything, any exponent
        default: return p.ConsumeFloatingPointInRange<double>(-8.0, 8.0);
    }
}

std::size_t dim(FuzzedDataProvider& p) {
    const int r = p.ConsumeIntegralInRange<int>(0, 31);
    if (r == 0) return 0;                                   // an empty axis
    if (r == 1) return p.ConsumeIntegralInRange<std::size_t>(1000, 2100);   // near the size limit
    return p.ConsumeIntegralInRange<std::size_t>(1, 6);
}

Tensor tensor(FuzzedDataProvider& p, const Shape& s) {
    std::size_t n = 1;
    for (auto d : s) n *= d;
    // too big to fill here: an empty tensor of the same rank instead (an error case for the API)
    Shape use = s;
    if (n > (std::size_t(1) << 16)) use.back() = 0;
    Tensor t = Tensor::from_shape(use);
    const bool special = p.ConsumeBool();
    for (double& v : t) v = special ? value(p) : p.ConsumeFloatingPointInRange<double>(-4.0, 4.0);
    return t;
}

Shape shape(FuzzedDataProvider& p, std::size_t lo, std::size_t hi) {
    Shape s(p.ConsumeIntegralInRange<std::size_t>(lo, hi));
    for (auto& d : s) d = dim(p);
    return s;
}

bool all_finite(const Tensor& t) {
    for (double v : t) if (!std::isfinite(v)) return false;
    return true;
}

// rows of the last axis of w: each sums to 1 and lies in [0, 1]
void rows_are_distributions(const Tensor& w) {
    const std::size_t n = w.shape().back();
    for (std::size_t r = 0; r < w.size() / n; ++r) {
        double s = 0;
        for (std::size_t j = 0; j < n; ++j) {
            const double v = w.data()[r * n + j];
            EXPECT(v >= 0.0 && v <= 1.0);
            s += v;
        }
        EXPECT(std::fabs(s - 1.0) <= 1e-9);
    }
}

Scale scale(FuzzedDataProvider& p, bool allow_model) {
    Scale s;
    switch (p.ConsumeIntegralInRange<int>(0, 3)) {
        case 0: s.kind = Scale::Kind::Head; break;
        case 1: s.kind = allow_model ? Scale::Kind::Model : Scale::Kind::None; break;
        case 2: s.kind = Scale::Kind::None; break;
        default: s.kind = Scale::Kind::Value; s.value = value(p); break;
    }
    return s;
}

void fuzz_softmax(FuzzedDataProvider& p) {
    const Tensor s = tensor(p, shape(p, 0, 5));
    SoftmaxOptions o;
    o.dim = p.ConsumeIntegralInRange<long>(-6, 5);
    o.mask = static_cast<MaskKind>(p.ConsumeIntegralInRange<int>(0, 2));
    o.order = p.ConsumeBool() ? MaskOrder::Before : MaskOrder::After;
    if (o.mask == MaskKind::Explicit) {
        Shape ms = p.ConsumeBool() && s.dimension() >= 2 ? Shape{s.shape()[s.dimension() - 2], s.shape().back()} : shape(p, 2, 2);
        o.mask_tensor = BoolTensor::from_shape(ms);
        for (auto& v : o.mask_tensor) v = p.ConsumeBool();
    }
    SoftmaxResult r;
    try { r = softmax(s, o); } catch (const Error&) { return; }
    EXPECT(r.weights.shape() == s.shape());
    const std::size_t rank = s.dimension(), d = std::size_t(o.dim < 0 ? o.dim + long(rank) : o.dim);
    std::size_t outer = 1, inner = 1;
    for (std::size_t a = 0; a < d; ++a) outer *= s.shape()[a];
    for (std::size_t a = d + 1; a < rank; ++a) inner *= s.shape()[a];
    const std::size_t n = s.shape()[d];
    std::size_t nan_rows = 0;
    for (std::size_t a = 0; a < outer; ++a)
        for (std::size_t b = 0; b < inner; ++b) {
            double sum = 0;
            bool nan = false;
            for (std::size_t j = 0; j < n; ++j) {
                const double v = r.weights.data()[(a * n + j) * inner + b];
                if (std::isnan(v)) { nan = true; continue; }
                EXPECT(v >= 0.0 && v <= 1.0);
                sum += v;
            }
            if (nan) { ++nan_rows; continue; }
            if (o.order == MaskOrder::Before) EXPECT(std::fabs(sum - 1.0) <= 1e-9);
            else EXPECT(sum <= 1.0 + 1e-9);
        }
    if (o.order == MaskOrder::Before) EXPECT(nan_rows == r.masked_rows.size());   // NaN exactly for the reported rows
}

void fuzz_sdpa(FuzzedDataProvider& p) {
    Shape lead = shape(p, 0, 2);
    auto with = [&](std::size_t a, std::size_t b) { Shape s = lead; s.push_back(a); s.push_back(b); return s; };
    const std::size_t Tq = dim(p), Tk = p.ConsumeBool() ? Tq : dim(p), d = dim(p), dv = dim(p);
    const Tensor q = tensor(p, with(Tq, d)), k = tensor(p, p.ConsumeIntegralInRange<int>(0, 15) ? with(Tk, d) : with(Tk, d + 1)),
                 v = tensor(p, with(Tk, dv));
    SdpaOptions o;
    o.causal = p.ConsumeBool();
    o.scale = scale(p, p.ConsumeIntegralInRange<int>(0, 7) == 0);
    SdpaResult r;
    try { r = sdpa(q, k, v, o); } catch (const Error&) { return; }
    const Shape os = with(Tq, dv), ws = with(Tq, Tk);
    EXPECT(r.out.shape() == Tensor::shape_type(os.begin(), os.end()));
    EXPECT(r.weights.shape() == Tensor::shape_type(ws.begin(), ws.end()));
    rows_are_distributions(r.weights);
    EXPECT(all_finite(r.out) && all_finite(r.scores));
    if (o.causal && Tk > 1) EXPECT(r.weights.data()[1] == 0.0);
    if (!p.ConsumeBool()) return;
    SdpaGrads g;
    try { g = sdpa_backward(q, k, v, tensor(p, with(Tq, dv)), o); } catch (const Error&) { return; }
    EXPECT(g.dq.shape() == q.shape() && g.dk.shape() == k.shape() && g.dv.shape() == v.shape());
    EXPECT(all_finite(g.dq) && all_finite(g.dk) && all_finite(g.dv));
}

void fuzz_mha(FuzzedDataProvider& p) {
    const std::size_t B = dim(p), T = dim(p), C = dim(p), D = p.ConsumeBool() ? C : dim(p);
    const Tensor x = tensor(p, {B, T, C});
    MhaOptions o;
    o.wq = tensor(p, {C, D});
    o.wk = tensor(p, p.ConsumeIntegralInRange<int>(0, 15) ? Shape{C, D} : Shape{C + 1, D});
    o.wv = tensor(p, {C, D});
    o.heads = p.ConsumeIntegralInRange<std::size_t>(0, 8);
    o.causal = p.ConsumeBool();
    o.scale = scale(p, true);
    if (p.ConsumeBool()) { o.has_memory = true; o.memory = tensor(p, {B, dim(p), C}); }
    MhaResult r;
    try { r = multi_head_attention(x, o); } catch (const Error&) { return; }
    const std::size_t Tk = o.has_memory ? o.memory.shape()[1] : T;
    EXPECT(r.out.shape() == Tensor::shape_type({B, T, D}));
    EXPECT(r.weights.shape() == Tensor::shape_type({B, o.heads, T, Tk}));
    rows_are_distributions(r.weights);
    EXPECT(all_finite(r.out));
    MhaGrads g;
    try { g = multi_head_attention_backward(x, tensor(p, {B, T, D}), o); } catch (const Error&) { return; }
    EXPECT(g.dx.shape() == x.shape() && g.dwq.shape() == o.wq.shape() && g.dwk.shape() == o.wk.shape());
    EXPECT(all_finite(g.dx) && all_finite(g.dwq) && all_finite(g.dwk) && all_finite(g.dwv));
    if (o.has_memory) EXPECT(g.dmemory.shape() == o.memory.shape() && all_finite(g.dmemory));
}

void fuzz_positions(FuzzedDataProvider& p) {
    const std::size_t T = p.ConsumeIntegralInRange<std::size_t>(0, 300), C = p.ConsumeIntegralInRange<std::size_t>(0, 300);
    PositionOptions o;
    o.t_max = p.ConsumeIntegralInRange<std::size_t>(0, 300);
    o.seed = p.ConsumeIntegral<std::uint64_t>();
    const PositionKind kind = p.ConsumeBool() ? PositionKind::Learned : PositionKind::Sinusoidal;
    Tensor r;
    try { r = positions(kind, T, C, o); } catch (const Error&) {
        EXPECT(T == 0 || C == 0 || (kind == PositionKind::Learned && (T > o.t_max || o.t_max == 0)) || T * C > kMaxElements);
        return;
    }
    EXPECT(r.shape() == Tensor::shape_type({T, C}));
    EXPECT(all_finite(r));
    if (kind == PositionKind::Learned) EXPECT(T <= o.t_max);
    else for (double v : r) EXPECT(v >= -1.0 && v <= 1.0);
}

// Options as JavaScript sends them: keys and values of any type.
void fuzz_options(FuzzedDataProvider& p) {
    static const char* keys[] = {"dim", "mask", "maskOrder", "causal", "scale", "heads", "wq", "wk", "wv", "memory",
                                 "method", "normalize", "t", "seed", "p", "training", "tMax", "positions", "samples", "x", "scores", "bogus"};
    Options o;
    const int n = p.ConsumeIntegralInRange<int>(0, 8);
    for (int i = 0; i < n; ++i) {
        const std::string key = keys[p.ConsumeIntegralInRange<int>(0, 21)];
        switch (p.ConsumeIntegralInRange<int>(0, 4)) {
            case 0: o[key] = p.ConsumeBool(); break;
            case 1: o[key] = value(p); break;
            case 2: o[key] = p.ConsumeRandomLengthString(12); break;
            case 3: o[key] = tensor(p, shape(p, 1, 3)); break;
            default: { BoolTensor b = BoolTensor::from_shape({dim(p), dim(p)}); for (auto& v : b) v = p.ConsumeBool(); o[key] = b; }
        }
    }
    const Tensor x = tensor(p, shape(p, 1, 4));
    try {
        switch (p.ConsumeIntegralInRange<int>(0, 9)) {
            case 0: {   // along the last axis and with no masked rows, rows are distributions
                const SoftmaxResult r = softmax(x, o);
                if (r.masked_rows.empty() && !o.count("dim") && !o.count("maskOrder")) rows_are_distributions(r.weights);
                break;
            }
            case 1: EXPECT(causal_average(x, o).shape() == x.shape()); break;
            case 2: multi_head_attention(x, o); break;
            case 3: future_probe(x, o); break;
            case 4: permutation_check(x, o); break;
            case 5: dropout(x, o); break;
            case 6: gradcheck(p.ConsumeBool() ? "sdpa" : "mha", o); break;
            case 7: positions(p.ConsumeBool() ? "learned" : "sinusoidal", value(p), value(p), o); break;
            case 8: explain(p.ConsumeBool() ? "multiHeadAttention" : "softmax", p.ConsumeBool() ? "out" : "weights", {0, 0, 0}, o); break;
            default: sum_along(x, o); break;
        }
    } catch (const Error& e) {
        EXPECT(e.code() != ErrorCode::internal);   // every option is read by its declaration: a bad one is the caller's error
    }
}

// The character GPT: any bytes as text (invalid UTF-8, control characters, huge or tiny
// vocabularies), small random configurations, then training, sampling and inspection.
void fuzz_gpt(FuzzedDataProvider& p) {
    Options o{{"C", double(p.ConsumeIntegralInRange<int>(0, 12))}, {"heads", double(p.ConsumeIntegralInRange<int>(0, 4))},
              {"layers", double(p.ConsumeIntegralInRange<int>(0, 2))}, {"tMax", double(p.ConsumeIntegralInRange<int>(0, 8))},
              {"batch", double(p.ConsumeIntegralInRange<int>(0, 3))}, {"seed", double(p.ConsumeIntegral<std::uint16_t>())},
              {"causal", p.ConsumeBool()}, {"lr", p.ConsumeBool() ? 3e-3 : value(p)}};
    if (p.ConsumeBool()) o["T"] = double(p.ConsumeIntegralInRange<int>(0, 9));
    const std::string prompt = p.ConsumeRandomLengthString(12), probe = p.ConsumeRandomLengthString(12);
    const std::size_t t = p.ConsumeIntegralInRange<std::size_t>(0, 10);
    const double temperature = p.ConsumeBool() ? 1.0 : value(p);
    std::string text = p.ConsumeRemainingBytesAsString();
    if (text.size() < 200 && !text.empty()) { std::string r; while (r.size() < 400) r += text; text = r; }   // often long enough
    std::unique_ptr<CharTrainer> tr;
    try { tr = std::make_unique<CharTrainer>(make_trainer(text, o)); } catch (const Error&) { return; }
    const double V = double(tr->data().vocab());
    EXPECT(V >= 2 && V <= double(CharData::kMaxVocab));
    try {
        const double loss = tr->train_steps(2);
        EXPECT(std::isfinite(loss) && loss >= 0.0);
    } catch (const Error&) {}   // diverged parameters are reported, not returned
    try { tr->sample(prompt, 8, temperature, 1); } catch (const Error&) {}
    try {
        const std::vector<Tensor> maps = tr->attention_maps(probe);
        for (const Tensor& m : maps) rows_are_distributions(m);
    } catch (const Error&) {}
    try {
        const FutureCheck f = tr->future_check(probe, t, 3);
        if (tr->model().config().causal) EXPECT(f.max_prefix_change == 0.0);
    } catch (const Error&) {}
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider p(data, size);
    ATTN_FUZZ_TARGET(p);
    return 0;
}
