// 18.3 / 18.4 / 18.6 multi-head attention: projections, the nanoGPT head split, causal
// self-attention or cross-attention over a memory, and the analytic backward pass.
#include <algorithm>
#include <cmath>

#include "internal.hpp"

namespace attn {

using detail::fail;

namespace {

struct MhaDims { std::size_t B, T, C, D, NH, hs, Tk; };

Shape shape_of(const Tensor& t) { return Shape(t.shape().begin(), t.shape().end()); }

MhaDims check_mha(const Tensor& x, const MhaOptions& o, const std::string& fn) {
    detail::require_rank({fn, "x"}, x, 3, 3, "(B, T, C)");
    detail::require_finite({fn, "x"}, x);
    MhaDims D;
    D.B = x.shape()[0];
    D.T = x.shape()[1];
    D.C = x.shape()[2];
    const char* names[3] = {"wq", "wk", "wv"};
    const Tensor* ws[3] = {&o.wq, &o.wk, &o.wv};
    for (int i = 0; i < 3; ++i) {
        const Shape s = shape_of(*ws[i]);
        if (s.size() != 2 || s[0] != D.C || s[1] == 0)
            fail(fn + ": " + names[i] + " must have shape (C, D) with C = " + std::to_string(D.C) +
                 " (the last axis of x " + shape_str(shape_of(x)) + "), got " + shape_str(s));
    }
    D.D = o.wq.shape()[1];
    for (int i = 1; i < 3; ++i)
        if (ws[i]->shape()[1] != D.D)
            fail(fn + ": wq, wk and wv must have the same shape (C, D), got wq " + shape_str(shape_of(o.wq)) +
                 ", wk " + shape_str(shape_of(o.wk)) + ", wv " + shape_str(shape_of(o.wv)));
    for (int i = 0; i < 3; ++i) detail::require_finite({fn, names[i]}, *ws[i]);
    if (o.heads < 1 || D.D % o.heads != 0)
        fail(fn + ": heads = " + std::to_string(o.heads) + " does not divide the projected width D = " +
             std::to_string(D.D) + " (wq " + shape_str(shape_of(o.wq)) + ")");
    D.NH = o.heads;
    D.hs = D.D / D.NH;
    D.Tk = D.T;
    if (o.has_memory) {
        const Shape ms = shape_of(o.memory);
        if (ms.size() != 3 || ms[0] != D.B || ms[2] != D.C || ms[1] == 0)
            fail(fn + ": memory must have shape (B, Tin, C) = (" + std::to_string(D.B) + ", Tin, " +
                 std::to_string(D.C) + ") to match x " + shape_str(shape_of(x)) + ", got " + shape_str(ms));
        detail::require_finite({fn, "memory"}, o.memory);
        D.Tk = ms[1];
    }
    if (D.B * D.NH * D.T * D.Tk > kMaxElements)
        detail::size_error(fn + ": weights (B, NH, T, Tk) = " + shape_str({D.B, D.NH, D.T, D.Tk}), D.B * D.NH * D.T * D.Tk);
    const std::size_t longest = std::max(D.T, D.Tk);
    if (D.B * longest * D.D > kMaxElements)
        detail::size_error(fn + ": projections (B, T, D) = " + shape_str({D.B, longest, D.D}), D.B * longest * D.D);
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

struct Forward { MhaResult res; double scale; detail::RowLayout lq, lkv; };

Forward forward(const Tensor& x, const MhaOptions& o, const MhaDims& D) {
    Forward f;
    const Tensor& src = o.has_memory ? o.memory : x;   // cross-attention: K, V from the memory
    f.res.q = project(x, o.wq);     // (B, T, C) x (C, D) -> (B, T, D)
    f.res.k = project(src, o.wk);   // (B, Tk, D)
    f.res.v = project(src, o.wv);   // (B, Tk, D)
    detail::require_no_overflow("multiHeadAttention: the projections q = x wq", f.res.q);
    detail::require_no_overflow("multiHeadAttention: the projections k = src wk", f.res.k);
    detail::require_no_overflow("multiHeadAttention: the projections v = src wv", f.res.v);
    // head h of (B, T, NH * hs) is the column block h*hs .. (h+1)*hs-1: the kernel reads it in place
    f.lq = {D.NH, D.T * D.D, D.hs, D.D};
    f.lkv = {D.NH, D.Tk * D.D, D.hs, D.D};
    f.scale = o.scale.factor(D.hs, D.C);
    f.res.scores = Tensor::from_shape({D.B, D.NH, D.T, D.Tk});
    f.res.weights = Tensor::from_shape({D.B, D.NH, D.T, D.Tk});
    f.res.out = Tensor::from_shape({D.B, D.T, D.D});   // (B, T, NH * hs): heads written in place
    detail::sdpa_forward_kernel(f.res.q.data(), f.res.k.data(), f.res.v.data(), D.B * D.NH, D.T, D.Tk, D.hs, D.hs, f.scale,
                                o.causal, f.res.scores.data(), f.res.weights.data(), f.res.out.data(), f.lq, f.lkv, f.lkv, f.lq);
    detail::require_no_overflow("multiHeadAttention: the scores q.k * scale", f.res.scores);
    detail::require_no_overflow("multiHeadAttention: the outputs", f.res.out);
    return f;
}

}  // namespace

MhaResult multi_head_attention(const Tensor& x, const MhaOptions& opts) {
    const MhaDims D = check_mha(x, opts, "multiHeadAttention");
    return forward(x, opts, D).res;
}

MhaResult multi_head_attention(const Tensor& x, const Options& opts) {
    detail::OptionReader r(opts, "multiHeadAttention");
    const MhaOptions o = detail::read_mha_options(r);
    r.finish();
    return multi_head_attention(x, o);
}

MhaGrads multi_head_attention_backward(const Tensor& x, const Tensor& grad_out, const MhaOptions& o) {
    const std::string fn = "multiHeadAttentionBackward";
    const MhaDims D = check_mha(x, o, fn);
    const Shape want{D.B, D.T, D.D};
    if (shape_of(grad_out) != want)
        fail(fn + ": gradOut must have the shape of the output (B, T, D) = " + shape_str(want) + ", got " +
             shape_str(shape_of(grad_out)));
    detail::require_finite({fn, "gradOut"}, grad_out);
    const Forward f = forward(x, o, D);
    const Tensor& src = o.has_memory ? o.memory : x;
    // backward of the per-head attention, heads addressed in place as in the forward
    Tensor dq = xt::zeros<double>(f.res.q.shape()), dk = xt::zeros<double>(f.res.k.shape()), dv = xt::zeros<double>(f.res.v.shape());
    detail::sdpa_backward_kernel(f.res.q.data(), f.res.k.data(), f.res.v.data(), f.res.weights.data(), grad_out.data(),
                                 D.B * D.NH, D.T, D.Tk, D.hs, D.hs, f.scale, o.causal, dq.data(), dk.data(), dv.data(),
                                 f.lq, f.lkv, f.lkv, f.lq);
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
    for (const Tensor* t : {&g.dx, &g.dwq, &g.dwk, &g.dwv}) detail::require_no_overflow({fn, "the gradients"}, *t);
    if (o.has_memory) detail::require_no_overflow({fn, "the gradients"}, g.dmemory);
    return g;
}

MhaGrads multi_head_attention_backward(const Tensor& x, const Tensor& grad_out, const Options& opts) {
    detail::OptionReader r(opts, "multiHeadAttentionBackward");
    const MhaOptions o = detail::read_mha_options(r);
    r.finish();
    return multi_head_attention_backward(x, grad_out, o);
}

}  // namespace attn
