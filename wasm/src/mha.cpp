// 18.3 / 18.4 / 18.6 multi-head attention: projections, the nanoGPT head split, causal
// self-attention or cross-attention over a memory, and the analytic backward pass.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "internal.hpp"
#include "kernels.hpp"

namespace attn {

namespace {

using detail::shape_of;

struct MhaDims { std::size_t B, T, C, D, NH, hs, Tk; };

MhaDims check_mha(const Tensor& x, const MhaOptions& o, std::string_view fn) {
    detail::require_rank({fn, "x"}, x, 3, 3, "(B, T, C)");
    detail::require_finite({fn, "x"}, x);
    MhaDims D;
    D.B = x.shape()[0];
    D.T = x.shape()[1];
    D.C = x.shape()[2];
    const char* names[3] = {"opts.wq", "opts.wk", "opts.wv"};
    const Tensor* ws[3] = {&o.wq, &o.wk, &o.wv};
    for (int i = 0; i < 3; ++i) {
        detail::require_rank({fn, names[i]}, *ws[i], 2, 2, "(C, D)");
        if (ws[i]->shape()[0] != D.C)
            throw Error(ErrorCode::axis_mismatch, {{"fn", fn}, {"arg", names[i]}, {"layout", "(C, D)"}, {"axis", "C"}, {"size", D.C},
                                                   {"shape", shape_of(*ws[i])}, {"other", "x"}, {"otherAxis", -1}, {"otherShape", shape_of(x)}});
    }
    D.D = o.wq.shape()[1];
    for (int i = 1; i < 3; ++i)
        if (ws[i]->shape()[1] != D.D)
            throw Error(ErrorCode::axis_mismatch, {{"fn", fn}, {"arg", names[i]}, {"layout", "(C, D)"}, {"axis", "D"}, {"size", D.D},
                                                   {"shape", shape_of(*ws[i])}, {"other", "opts.wq"}, {"otherAxis", -1},
                                                   {"otherShape", shape_of(o.wq)}});
    for (int i = 0; i < 3; ++i) detail::require_finite({fn, names[i]}, *ws[i]);
    if (o.heads < 1 || D.D % o.heads != 0)
        throw Error(ErrorCode::heads_not_dividing, {{"fn", fn}, {"heads", o.heads}, {"axis", "D"}, {"width", D.D}});
    D.NH = o.heads;
    D.hs = D.D / D.NH;
    D.Tk = D.T;
    if (o.has_memory) {
        detail::require_rank({fn, "opts.memory"}, o.memory, 3, 3, "(B, Tin, C)");
        const Shape ms = shape_of(o.memory);
        for (const auto& [axis, at, want] : {std::tuple{"B", 0, D.B}, std::tuple{"C", 2, D.C}})
            if (ms[std::size_t(at)] != want)
                throw Error(ErrorCode::axis_mismatch, {{"fn", fn}, {"arg", "opts.memory"}, {"layout", "(B, Tin, C)"}, {"axis", axis},
                                                       {"size", want}, {"shape", ms}, {"other", "x"}, {"otherAxis", at == 0 ? 0 : -1},
                                                       {"otherShape", shape_of(x)}});
        detail::require_finite({fn, "opts.memory"}, o.memory);
        D.Tk = ms[1];
    }
    if (D.B * D.NH * D.T * D.Tk > kMaxElements) detail::too_large({fn, "weights"}, "(B, NH, T, Tk)", {D.B, D.NH, D.T, D.Tk});
    const std::size_t longest = std::max(D.T, D.Tk);
    if (D.B * longest * D.D > kMaxElements) detail::too_large({fn, "projections"}, "(B, T, D)", {D.B, longest, D.D});
    return D;
}

// (B, T, C) x (C, D) -> (B, T, D)
Tensor project(const Tensor& x, const Tensor& w) {
    const std::size_t B = x.shape()[0], T = x.shape()[1], C = x.shape()[2], D = w.shape()[1];
    Tensor y = xt::zeros<double>(Shape{B, T, D});
    detail::gemm_acc(y.data(), x.data(), w.data(), B * T, C, D);
    return y;
}

// sum_b x[b]^T g[b]: (B, T, C), (B, T, D) -> (C, D)
Tensor weight_grad(const Tensor& x, const Tensor& g) {
    const std::size_t BT = x.shape()[0] * x.shape()[1], C = x.shape()[2], D = g.shape()[2];
    Tensor dw = xt::zeros<double>(Shape{C, D});
    detail::gemm_tn_acc(dw.data(), x.data(), g.data(), BT, C, D);
    return dw;
}

// dx += g w^T: (B, T, D), (C, D) -> (B, T, C)
void input_grad(const Tensor& g, const Tensor& w, Tensor& dx) {
    detail::gemm_nt_acc(dx.data(), g.data(), w.data(), g.shape()[0] * g.shape()[1], g.shape()[2], w.shape()[0]);
}

// q, k, v and where each head's rows are in them: what both forwards (every result, out alone) start from
struct Projected { Tensor q, k, v; double scale; detail::RowLayout lq, lkv; };

// x (B, T, C) -> q (B, T, D), k and v (B, Tk, D); fn: the public function (named in the overflow errors)
Projected project_heads(const Tensor& x, const MhaOptions& o, const MhaDims& D, const char* fn) {
    Projected p;
    const Tensor& src = o.has_memory ? o.memory : x;   // cross-attention: K, V from the memory
    p.q = project(x, o.wq);     // (B, T, C) x (C, D) -> (B, T, D)
    p.k = project(src, o.wk);   // (B, Tk, D)
    p.v = project(src, o.wv);   // (B, Tk, D)
    detail::require_no_overflow(fn, "projections", "q = x wq", p.q);
    detail::require_no_overflow(fn, "projections", "k = src wk", p.k);
    detail::require_no_overflow(fn, "projections", "v = src wv", p.v);
    // head h of (B, T, NH * hs) is the column block h*hs .. (h+1)*hs-1: the kernel reads it in place
    p.lq = {D.NH, D.T * D.D, D.hs, D.D};
    p.lkv = {D.NH, D.Tk * D.D, D.hs, D.D};
    p.scale = o.scale.factor(D.hs, D.C);
    return p;
}

// A kernel that kept no scores said a visible one overflowed: the scores again, the masked ones 0
// (no error there), and the first that is not finite named
[[noreturn]] void name_score_overflow(const Projected& p, const MhaOptions& o, const MhaDims& D, const char* fn) {
    Tensor scores = Tensor::from_shape({D.B, D.NH, D.T, D.Tk});
    detail::visible_scores(p.q.data(), p.k.data(), D.B * D.NH, D.T, D.Tk, D.hs, p.scale, o.causal, scores.data(), p.lq, p.lkv);
    detail::score_overflow(fn, scores);
}

// x (B, T, C) -> every result: out (B, T, D), scores and weights (B, NH, T, Tk), q, k, v
MhaResult forward(const Tensor& x, const MhaOptions& o, const MhaDims& D, const char* fn) {
    Projected p = project_heads(x, o, D, fn);
    MhaResult r;
    r.q = std::move(p.q);
    r.k = std::move(p.k);
    r.v = std::move(p.v);
    r.scores = Tensor::from_shape({D.B, D.NH, D.T, D.Tk});
    r.weights = Tensor::from_shape({D.B, D.NH, D.T, D.Tk});
    r.out = Tensor::from_shape({D.B, D.T, D.D});   // (B, T, NH * hs): heads written in place
    detail::sdpa_forward_kernel(r.q.data(), r.k.data(), r.v.data(), D.B * D.NH, D.T, D.Tk, D.hs, D.hs, p.scale, o.causal,
                                r.scores.data(), r.weights.data(), r.out.data(), p.lq, p.lkv, p.lkv, p.lq);
    detail::require_no_overflow(fn, "scores", "q.k * scale", r.scores);
    detail::require_no_overflow(fn, "outputs", "", r.out);
    return r;
}

// x (B, T, C) -> out (B, T, D) alone, the same bits: one row of weights (Tk) reused for every
// (b, h, t), so nothing (B, NH, T, Tk) is allocated, written or read back, and the masked scores
// are not computed
Tensor forward_out(const Tensor& x, const MhaOptions& o, const MhaDims& D, const char* fn) {
    const Projected p = project_heads(x, o, D, fn);
    Tensor out = Tensor::from_shape({D.B, D.T, D.D});
    std::vector<double> row(D.Tk);
    if (!detail::sdpa_forward_kernel(p.q.data(), p.k.data(), p.v.data(), D.B * D.NH, D.T, D.Tk, D.hs, D.hs, p.scale, o.causal,
                                     nullptr, row.data(), out.data(), p.lq, p.lkv, p.lkv, p.lq, /*weights_row=*/true))
        name_score_overflow(p, o, D, fn);
    detail::require_no_overflow(fn, "outputs", "", out);
    return out;
}

}  // namespace

MhaResult multi_head_attention(const Tensor& x, const MhaOptions& opts) {
    const MhaDims D = check_mha(x, opts, "multiHeadAttention");
    return forward(x, opts, D, "multiHeadAttention");
}

Tensor multi_head_attention_out(const Tensor& x, const MhaOptions& opts) {
    const MhaDims D = check_mha(x, opts, "multiHeadAttention");
    return forward_out(x, opts, D, "multiHeadAttention");
}

// ---- options ---------------------------------------------------------------------------------
namespace {
constexpr OptionSpec kWq{"wq", OptionKind::tensor,
                         "the query projection (C, D), math layout: head h owns the columns h*hs .. (h+1)*hs - 1", {}, true};
constexpr OptionSpec kWk{"wk", OptionKind::tensor, "the key projection (C, D), math layout", {}, true};
constexpr OptionSpec kWv{"wv", OptionKind::tensor, "the value projection (C, D), math layout", {}, true};
constexpr OptionSpec kHeads{"heads", OptionKind::integer, "the number of heads NH, dividing D into heads of hs = D / NH (default 1)"};
constexpr OptionSpec kCausal{"causal", OptionKind::boolean, "true: query t sees keys 0..t only (top-left aligned); false (the default): every key"};
constexpr const char* kScales[] = {"head", "model", "none"};
constexpr OptionSpec kScale{"scale", OptionKind::number_or_choice,
                            "what q.k is multiplied by: 'head' (the default, 1/sqrt(hs)), 'model' (1/sqrt(C)), 'none' (1) or a number", kScales};
constexpr OptionSpec kMemory{"memory", OptionKind::tensor,
                             "(B, Tin, C): keys and values come from here (cross-attention); left out: self-attention"};
constexpr const char* kResultsValues[] = {"all", "out"};
constexpr OptionSpec kResults{"results", OptionKind::choice,
                              "'all' (the default): out, weights, scores, q, k and v; 'out': out alone, the same bits, without "
                              "making the (B, NH, T, Tk) scores and weights (faster; the masked scores are not computed)",
                              kResultsValues};
}  // namespace

const OptionSet& mha_option_set() {
    static const OptionSet set{&kWq, &kWk, &kWv, &kHeads, &kCausal, &kScale, &kMemory};
    return set;
}

const OptionSet& multi_head_attention_option_set() {
    static const OptionSet set = detail::joined(mha_option_set(), {&kResults});
    return set;
}

MhaOptions detail::read_mha_options(OptionReader& r) {
    MhaOptions o;
    o.wq = *r.tensor(kWq, "(C, D)");
    o.wk = *r.tensor(kWk, "(C, D)");
    o.wv = *r.tensor(kWv, "(C, D)");
    o.heads = r.index(kHeads, 1, 1, 1 << 20);
    o.causal = r.boolean(kCausal, false);
    o.scale = r.scale(kScale);
    if (const Tensor* m = r.tensor(kMemory)) { o.has_memory = true; o.memory = *m; }
    return o;
}

MhaResult multi_head_attention(const Tensor& x, const Options& opts) {
    struct Read { MhaOptions mha; bool out_only; };
    const Read r = detail::read_options(opts, "multiHeadAttention", multi_head_attention_option_set(), [](detail::OptionReader& in) {
        MhaOptions mha = detail::read_mha_options(in);
        return Read{std::move(mha), in.choice(kResults, "all") == "out"};
    });
    if (!r.out_only) return multi_head_attention(x, r.mha);
    MhaResult res;   // out alone: the other tensors stay empty (rank 0), and the writer leaves them out
    res.out = multi_head_attention_out(x, r.mha);
    return res;
}

MhaGrads multi_head_attention_backward(const Tensor& x, const Tensor& grad_out, const MhaOptions& o) {
    const char* fn = "multiHeadAttentionBackward";
    const MhaDims D = check_mha(x, o, fn);
    const Shape want{D.B, D.T, D.D};
    if (shape_of(grad_out) != want)
        throw Error(ErrorCode::shape_mismatch, {{"fn", fn}, {"arg", "gradOut"}, {"layout", "(B, T, D)"}, {"expectedShape", want},
                                                {"shape", shape_of(grad_out)}});
    detail::require_finite({fn, "gradOut"}, grad_out);
    // the forward keeps what the backward needs: q, k, v and the weights; no scores (the masked
    // ones not computed) and no output
    const Projected f = project_heads(x, o, D, fn);
    Tensor weights = Tensor::from_shape({D.B, D.NH, D.T, D.Tk});
    if (!detail::sdpa_forward_kernel(f.q.data(), f.k.data(), f.v.data(), D.B * D.NH, D.T, D.Tk, D.hs, D.hs, f.scale, o.causal,
                                     nullptr, weights.data(), nullptr, f.lq, f.lkv, f.lkv, f.lq))
        name_score_overflow(f, o, D, fn);
    const Tensor& src = o.has_memory ? o.memory : x;
    // backward of the per-head attention, heads addressed in place as in the forward
    Tensor dq = xt::zeros<double>(f.q.shape()), dk = xt::zeros<double>(f.k.shape()), dv = xt::zeros<double>(f.v.shape());
    detail::sdpa_backward_kernel(f.q.data(), f.k.data(), f.v.data(), weights.data(), grad_out.data(), D.B * D.NH, D.T, D.Tk, D.hs,
                                 D.hs, f.scale, o.causal, dq.data(), dk.data(), dv.data(), f.lq, f.lkv, f.lkv, f.lq);
    // backward of q = x wq, k = src wk, v = src wv
    MhaGrads g;
    g.dwq = weight_grad(x, dq);
    g.dwk = weight_grad(src, dk);
    g.dwv = weight_grad(src, dv);
    g.dx = xt::zeros<double>(x.shape());
    input_grad(dq, o.wq, g.dx);
    Tensor& dsrc = o.has_memory ? (g.dmemory = xt::zeros<double>(o.memory.shape())) : g.dx;
    input_grad(dk, o.wk, dsrc);
    input_grad(dv, o.wv, dsrc);
    for (const auto& [name, t] : {std::pair{"dx", &g.dx}, std::pair{"dwq", &g.dwq}, std::pair{"dwk", &g.dwk}, std::pair{"dwv", &g.dwv}})
        detail::require_no_overflow(fn, "gradients", name, *t);
    if (o.has_memory) detail::require_no_overflow(fn, "gradients", "dmemory", g.dmemory);
    return g;
}

MhaGrads multi_head_attention_backward(const Tensor& x, const Tensor& grad_out, const Options& opts) {
    return multi_head_attention_backward(x, grad_out,
                                         detail::read_options(opts, "multiHeadAttentionBackward", mha_option_set(), detail::read_mha_options));
}

}  // namespace attn
