// Provenance: one cell of a result, explained with the core's own terms in the core's own order
// (the page's "where does this number come from" panel). Each explanation repeats, for a single
// cell, exactly the arithmetic of the kernel that produced it (sdpa_forward_kernel's pairwise dot
// product and sequential softmax and output sums, gemm_acc's sequential projection sum, the
// averages of 18.1, the masked softmax of 18.2, the position table and the permuted sums of 18.5,
// sdpa_backward_kernel's gradient sums and gradcheck's central difference, the future probe and
// dropout of 18.7), and is checked against the cell bit for bit.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "internal.hpp"

namespace attn {

namespace {

constexpr const char* kFn = "explain";
const double kNegInf = -std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

const Tensor& required(detail::OptionReader& r, const char* key, const char* layout) {
    const Tensor* t = r.tensor(key);
    if (!t) throw Error(ErrorCode::missing, {{"fn", kFn}, {"arg", std::string("opts.") + key}, {"expectedType", "tensor"}, {"layout", layout}});
    return *t;
}

// `at` as indices into a tensor of `shape`: as many as its axes, each a whole number in range.
std::vector<std::size_t> checked_at(const std::vector<double>& at, const Shape& shape) {
    if (at.size() != shape.size())
        throw Error(ErrorCode::length_range, {{"fn", kFn}, {"arg", "at"}, {"length", at.size()}, {"min", shape.size()}, {"max", shape.size()}});
    std::vector<std::size_t> ix(at.size());
    for (std::size_t a = 0; a < at.size(); ++a)
        ix[a] = detail::to_index({kFn, "at[" + std::to_string(a) + "]"}, at[a], 0, shape[a] - 1);
    return ix;
}

std::size_t flat(const Shape& shape, const std::vector<std::size_t>& ix) {
    std::size_t f = 0;
    for (std::size_t a = 0; a < shape.size(); ++a) f = f * shape[a] + ix[a];
    return f;
}

void one_of(const std::string& quantity, std::initializer_list<const char*> choices) {
    for (const char* c : choices)
        if (quantity == c) return;
    throw Error(ErrorCode::not_one_of, {{"fn", kFn}, {"arg", "quantity"}, {"choice", quantity},
                                        {"choices", std::vector<std::string>(choices.begin(), choices.end())}});
}

// A dot product of n terms a[c * sa] * b[c * sb] as the kernels add them: sequential from 0.0
// (gemm_acc, the output sum) or pairwise (dot2).
Explanation dot(const double* a, std::size_t sa, const double* b, std::size_t sb, std::size_t n, bool pairwise, double scale) {
    Explanation e;
    e.pairwise = pairwise;
    e.scale = scale;
    double s0 = 0.0, s1 = 0.0;
    for (std::size_t c = 0; c < n; ++c) {
        const double x = a[c * sa], y = b[c * sb], p = x * y;
        e.left.push_back(x);
        e.right.push_back(y);
        e.terms.push_back(p);
        e.source.push_back(c);
        if (pairwise && c % 2 == 1) s1 += p;
        else s0 += p;
    }
    e.sum = pairwise ? s0 + s1 : s0;
    e.value = scale == 1.0 ? e.sum : e.sum * scale;
    return e;
}

// The causal softmax of sdpa_forward_kernel for one row of scaled scores: the first `visible`
// entries allowed, the rest masked.
Explanation causal_row_softmax(const double* srow, std::size_t Tk, std::size_t visible, std::size_t j) {
    Explanation e;
    e.kind = Explanation::Kind::Softmax;
    e.target = j;
    double mx = srow[0];
    for (std::size_t c = 1; c < visible; ++c) mx = std::max(mx, srow[c]);
    double sum = 0.0;
    for (std::size_t c = 0; c < Tk; ++c) {
        const double w = c < visible ? std::exp(srow[c] - mx) : 0.0;
        e.scores.push_back(srow[c]);
        e.masked.push_back(c < visible ? 0 : 1);
        e.exps.push_back(w);
        sum += w;
    }
    e.max = mx;
    e.denominator = sum;
    e.value = e.exps[j] / sum;
    return e;
}

// The output sum of sdpa_forward_kernel: y = sum over the visible j of a[j] * v[j, c], from 0.0.
Explanation output_sum(const double* wrow, const double* vcol, std::size_t vstride, std::size_t visible) {
    return dot(wrow, 1, vcol, vstride, visible, false, 1.0);
}

// What a cell of a (Tq, Tk) attention computation is made of, given the projected q, k, v rows of
// group n (laid out as in sdpa_forward_kernel), the scores and weights (N, Tq, Tk).
struct Attention {
    const double *q, *k, *v, *scores, *weights;
    detail::RowLayout lq, lk, lv;
    std::size_t Tq, Tk, d;
    double scale;
    bool causal;
    std::size_t visible(std::size_t t) const { return causal ? std::min(t + 1, Tk) : Tk; }
    Explanation score(std::size_t n, std::size_t t, std::size_t j) const {
        return dot(q + lq.base(n) + t * lq.row, 1, k + lk.base(n) + j * lk.row, 1, d, true, scale);
    }
    Explanation weight(std::size_t n, std::size_t t, std::size_t j) const {
        return causal_row_softmax(scores + (n * Tq + t) * Tk, Tk, visible(t), j);
    }
    Explanation out(std::size_t n, std::size_t t, std::size_t c) const {
        return output_sum(weights + (n * Tq + t) * Tk, v + lv.base(n) + c, lv.row, visible(t));
    }
};

// The explanation's value must be the cell itself, bit for bit (NaN for NaN).
Explanation checked(Explanation e, double cell, const std::string& what) {
    if (std::memcmp(&e.value, &cell, sizeof(double)) == 0 || (std::isnan(e.value) && std::isnan(cell))) return e;
    throw Error(ErrorCode::internal, {{"fn", kFn}, {"detail", "the explanation of " + what + " differs from the cell"}});
}

// A cell of multi_head_attention(x, o) (also the attention outputs of 18.5's permutation check)
Explanation mha_cell(const Tensor& x, const MhaOptions& o, const std::string& quantity, const std::vector<double>& at,
                     const std::string& what) {
    const MhaResult res = multi_head_attention(x, o);   // every check, and the cells to match
    const Tensor& src = o.has_memory ? o.memory : x;
    const std::size_t T = x.shape()[1], C = x.shape()[2], D = o.wq.shape()[1], NH = o.heads, hs = D / NH,
                      Tk = src.shape()[1];
    if (quantity == "q" || quantity == "k" || quantity == "v") {
        // (B, T, C) x (C, D): gemm_acc adds x[b, t, c] * w[c, i] over c in order, from 0.0
        const Tensor& out = quantity == "q" ? res.q : quantity == "k" ? res.k : res.v;
        const Tensor& in = quantity == "q" ? x : src;
        const Tensor& w = quantity == "q" ? o.wq : quantity == "k" ? o.wk : o.wv;
        const Shape s = detail::shape_of(out);
        const auto ix = checked_at(at, s);   // [b, t, i]
        return checked(dot(in.data() + (ix[0] * s[1] + ix[1]) * C, 1, w.data() + ix[2], D, C, false, 1.0),
                       out.data()[flat(s, ix)], what);
    }
    // head h of (B, T, NH * hs) is the column block h*hs .. (h+1)*hs-1, as in mha.cpp's forward
    const Attention a{res.q.data(), res.k.data(), res.v.data(), res.scores.data(), res.weights.data(),
                      {NH, T * D, hs, D}, {NH, Tk * D, hs, D}, {NH, Tk * D, hs, D}, T, Tk, hs, o.scale.factor(hs, C), o.causal};
    if (quantity == "out") {
        const Shape s = detail::shape_of(res.out);
        const auto ix = checked_at(at, s);   // [b, t, i]: head i / hs, its column i % hs
        return checked(a.out(ix[0] * NH + ix[2] / hs, ix[1], ix[2] % hs), res.out.data()[flat(s, ix)], what);
    }
    const Shape s = detail::shape_of(res.scores);   // (B, NH, T, Tk)
    const auto ix = checked_at(at, s);
    const std::size_t n = ix[0] * NH + ix[1];
    if (quantity == "scores") return checked(a.score(n, ix[2], ix[3]), res.scores.data()[flat(s, ix)], what);
    return checked(a.weight(n, ix[2], ix[3]), res.weights.data()[flat(s, ix)], what);
}

Explanation explain_mha(const std::string& quantity, const std::vector<double>& at, detail::OptionReader& r) {
    one_of(quantity, {"q", "k", "v", "scores", "weights", "out"});
    const Tensor& x = required(r, "x", "(B, T, C)");
    const MhaOptions o = detail::read_mha_options(r);
    r.finish();
    return mha_cell(x, o, quantity, at, "multiHeadAttention " + quantity);
}

Explanation explain_sdpa(const std::string& quantity, const std::vector<double>& at, detail::OptionReader& r) {
    one_of(quantity, {"scores", "weights", "out"});
    const Tensor& q = required(r, "q", "(..., Tq, d)");
    const Tensor& k = required(r, "k", "(..., Tk, d)");
    const Tensor& v = required(r, "v", "(..., Tk, dv)");
    const SdpaOptions o = detail::read_sdpa_options(r);
    r.finish();
    const SdpaResult res = sdpa(q, k, v, o);
    const std::size_t rank = q.dimension(), Tq = q.shape()[rank - 2], d = q.shape()[rank - 1], Tk = k.shape()[rank - 2],
                      dv = v.shape()[rank - 1];
    const Attention a{q.data(), k.data(), v.data(), res.scores.data(), res.weights.data(),
                      detail::dense(Tq, d), detail::dense(Tk, d), detail::dense(Tk, dv), Tq, Tk, d, o.scale.factor(d, d), o.causal};
    const Tensor& cell = quantity == "scores" ? res.scores : quantity == "weights" ? res.weights : res.out;
    const Shape s = detail::shape_of(cell);
    const auto ix = checked_at(at, s);
    const std::size_t n = flat(Shape(s.begin(), s.end() - 2), std::vector<std::size_t>(ix.begin(), ix.end() - 2));
    const std::size_t t = ix[rank - 2], j = ix[rank - 1];
    const Explanation e = quantity == "scores" ? a.score(n, t, j) : quantity == "weights" ? a.weight(n, t, j) : a.out(n, t, j);
    return checked(e, cell.data()[flat(s, ix)], "sdpa " + quantity);
}

Explanation explain_average(const std::string& quantity, const std::vector<double>& at, detail::OptionReader& r) {
    one_of(quantity, {"out"});
    const Tensor& x = required(r, "x", "(T, C) | (B, T, C)");
    const std::string m = r.string("method", "matrix", {"loop", "matrix", "softmax"});
    r.finish();
    const AverageMethod method = m == "loop" ? AverageMethod::Loop : m == "matrix" ? AverageMethod::Matrix : AverageMethod::Softmax;
    const Tensor y = causal_average(x, method);
    const Shape s = detail::shape_of(y);
    const auto ix = checked_at(at, s);
    const bool batched = s.size() == 3;
    const std::size_t T = s[batched ? 1 : 0], C = s.back(), b = batched ? ix[0] : 0, t = ix[batched ? 1 : 0], c = ix.back();
    const double* col = x.data() + b * T * C + c;   // x[b, :, c], stride C
    Explanation e;
    if (method == AverageMethod::Loop) {
        // out[t] = (x[0] + ... + x[t]) / (t + 1), added in order
        for (std::size_t j = 0; j <= t; ++j) {
            e.left.push_back(col[j * C]);
            e.terms.push_back(col[j * C]);
            e.source.push_back(j);
            e.sum += col[j * C];
        }
        e.divisor = double(t + 1);
        e.value = e.sum / e.divisor;
    } else {
        // out[t] = sum over every j of A[t, j] x[j] (zeros included), A from the matrix or the softmax
        Tensor A;
        if (method == AverageMethod::Matrix) A = averaging_matrix(T, true);
        else {
            SoftmaxOptions so;
            so.mask = MaskKind::Causal;
            A = softmax(xt::zeros<double>(Shape{T, T}), so).weights;
        }
        e = dot(A.data() + t * T, 1, col, C, T, false, 1.0);
    }
    return checked(e, y.data()[flat(s, ix)], "causalAverage out");
}

Explanation explain_matmul(const std::string& quantity, const std::vector<double>& at, detail::OptionReader& r) {
    one_of(quantity, {"out"});
    const Tensor& a = required(r, "a", "(..., n, k)");
    const Tensor& b = required(r, "b", "(..., k, m)");
    r.finish();
    const Tensor out = matmul(a, b);   // every check
    const Shape s = detail::shape_of(out);
    const auto ix = checked_at(at, s);
    const std::size_t rank = s.size(), n = s[rank - 2], m = s[rank - 1], k = a.shape()[a.dimension() - 1];
    const std::size_t g = flat(Shape(s.begin(), s.end() - 2), std::vector<std::size_t>(ix.begin(), ix.end() - 2));
    // gemm_acc: out[i, j] = sum over c of a[i, c] b[c, j], in order from 0.0; a 2-D operand is shared by every group
    const double* arow = a.data() + (a.dimension() == 2 ? 0 : g * n * k) + ix[rank - 2] * k;
    const double* bcol = b.data() + (b.dimension() == 2 ? 0 : g * k * m) + ix[rank - 1];
    return checked(dot(arow, 1, bcol, m, k, false, 1.0), out.data()[flat(s, ix)], "matmul out");
}

Explanation explain_softmax(const std::string& quantity, const std::vector<double>& at, detail::OptionReader& r) {
    one_of(quantity, {"weights"});
    const Tensor& scores = required(r, "scores", "");
    const SoftmaxOptions so = detail::read_softmax_options(r);
    r.finish();
    const SoftmaxResult res = softmax(scores, so);   // every check
    const Shape shape = detail::shape_of(scores);
    const auto ix = checked_at(at, shape);
    const std::size_t rank = shape.size(), dim = std::size_t(so.dim < 0 ? so.dim + long(rank) : so.dim);
    const std::size_t rows = rank >= 2 ? shape[rank - 2] : 1, cols = shape[rank - 1];
    std::size_t inner = 1;
    for (std::size_t a = dim + 1; a < rank; ++a) inner *= shape[a];
    const std::size_t n = shape[dim], f0 = flat(shape, ix), target = ix[dim], base = f0 - target * inner;
    const double* s = scores.data();
    auto allowed = [&](std::size_t f) {   // as softmax() decides it
        if (s[f] == kNegInf) return false;
        if (so.mask == MaskKind::None) return true;
        const std::size_t i = (f / cols) % rows, j = f % cols;
        return so.mask == MaskKind::Causal ? j <= i : so.mask_tensor(i, j) != 0;
    };
    Explanation e;
    e.kind = Explanation::Kind::Softmax;
    e.target = target;
    e.mask_after = so.order == MaskOrder::After;
    bool any = false;
    double mx = kNegInf;
    for (std::size_t j = 0; j < n; ++j) {
        const std::size_t f = base + j * inner;
        e.scores.push_back(s[f]);
        e.masked.push_back(allowed(f) ? 0 : 1);
        // before: the max over the allowed entries; after: over every finite score
        if (e.mask_after ? s[f] != kNegInf : allowed(f)) { any = true; mx = std::max(mx, s[f]); }
    }
    if (!any) {   // nothing to normalize: the row is NaN
        e.exps.assign(n, kNaN);
        e.max = e.denominator = e.value = kNaN;
        return checked(e, res.weights.data()[f0], "softmax weights");
    }
    double sum = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
        const bool in = e.mask_after ? e.scores[j] != kNegInf : !e.masked[j];
        e.exps.push_back(in ? std::exp(e.scores[j] - mx) : 0.0);
        sum += e.exps[j];
    }
    e.max = mx;
    e.denominator = sum;
    e.value = e.mask_after && e.masked[target] ? 0.0 : e.exps[target] / sum;
    return checked(e, res.weights.data()[f0], "softmax weights");
}

// ---- 18.5 ------------------------------------------------------------------------------------
Explanation explain_positions(const std::string& quantity, const std::vector<double>& at, detail::OptionReader& r) {
    one_of(quantity, {"out"});
    const std::string kind = r.string("kind", "sinusoidal", {"learned", "sinusoidal"});
    const double T = r.number("T", 0), C = r.number("C", 0);
    PositionOptions po;
    po.t_max = r.index("tMax", 64, 1, kMaxElements);
    po.seed = r.seed("seed");
    r.finish();
    const Tensor pe = positions(kind == "learned" ? PositionKind::Learned : PositionKind::Sinusoidal,   // every check
                                detail::to_index({kFn, "opts.T"}, T, 1, kMaxElements), detail::to_index({kFn, "opts.C"}, C, 1, kMaxElements), po);
    const Shape s = detail::shape_of(pe);
    const auto ix = checked_at(at, s);   // [t, c]
    Explanation e;
    if (kind == "learned") {
        // row t of the seeded (tMax, C) table: a draw, no arithmetic (training would change it)
        const Tensor table = randn({po.t_max, s[1]}, po.seed);
        e.kind = Explanation::Kind::Copy;
        e.from = ix;
        e.left = {table(ix[0], ix[1])};
        e.value = e.left[0];
    } else {
        // as positions() computes it: 2i = c - c % 2, angle = t / 10000^(2i / C), sin or cos
        e.kind = Explanation::Kind::Sinusoid;
        e.position = double(ix[0]);
        e.pair = double(ix[1] - ix[1] % 2);
        e.width = double(s[1]);
        e.power = std::pow(10000.0, e.pair / e.width);
        e.angle = e.position / e.power;
        e.cosine = ix[1] % 2 == 1;
        e.value = e.cosine ? std::cos(e.angle) : std::sin(e.angle);
    }
    return checked(e, pe.data()[flat(s, ix)], "positions out");
}

Explanation explain_permutation(const std::string& quantity, const std::vector<double>& at, detail::OptionReader& r) {
    one_of(quantity, {"permutedInput", "out", "outOfPermuted", "permutedOut"});
    const Tensor& x = required(r, "x", "(B, T, C)");
    const PermutationOptions po = detail::read_permutation_options(r);   // as permutationCheck reads them
    r.finish();
    const PermutationResult res = permutation_check(x, po);   // every check, the permutation and the cells
    const std::size_t T = x.shape()[1], C = x.shape()[2];
    Tensor pos = xt::zeros<double>(Shape{T, C});
    if (po.use_positions) pos = positions(po.position_kind, T, C, po.pos);
    const std::string what = "permutationCheck " + quantity;
    Tensor xin = x;   // x + pos as permutationCheck adds it, the input of attn(x + pos)
    for (std::size_t b = 0; b < x.shape()[0]; ++b)
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t c = 0; c < C; ++c) xin(b, t, c) = x(b, t, c) + pos(t, c);
    if (quantity == "permutedInput") {
        const Shape s = detail::shape_of(res.permuted_input);
        const auto ix = checked_at(at, s);   // [b, t, c]: x[b, perm[t], c] + pos[t, c]
        Explanation e;
        e.left = {x(ix[0], res.perm[ix[1]], ix[2]), pos(ix[1], ix[2])};
        e.terms = e.left;
        e.source = {res.perm[ix[1]], ix[1]};
        e.sum = e.value = e.left[0] + e.left[1];
        return checked(e, res.permuted_input.data()[flat(s, ix)], what);
    }
    if (quantity == "permutedOut") {
        const Shape s = detail::shape_of(res.permuted_out);
        const auto ix = checked_at(at, s);   // [b, t, e]: row perm[t] of attn(x + pos)
        const Tensor y = multi_head_attention(xin, po.mha).out;
        Explanation e;
        e.kind = Explanation::Kind::Copy;
        e.from = {ix[0], res.perm[ix[1]], ix[2]};
        e.left = {y(ix[0], res.perm[ix[1]], ix[2])};
        e.value = e.left[0];
        return checked(e, res.permuted_out.data()[flat(s, ix)], what);
    }
    if (quantity == "outOfPermuted") return mha_cell(res.permuted_input, po.mha, "out", at, what);
    return mha_cell(xin, po.mha, "out", at, what);   // out: attn(x + pos)
}

// ---- 18.7 ------------------------------------------------------------------------------------
Explanation explain_gradcheck(const std::string& quantity, const std::vector<double>& at, detail::OptionReader& r) {
    one_of(quantity, {"dq", "dk", "dv"});
    const Tensor& q = required(r, "q", "(..., Tq, d)");
    const Tensor& k = required(r, "k", "(..., Tk, d)");
    const Tensor& v = required(r, "v", "(..., Tk, dv)");
    SdpaOptions so;   // as gradcheck('sdpa') reads them
    so.causal = r.boolean("causal", false);
    so.scale = r.scale("scale", {"head", "none"});
    const auto seed = r.seed("seed");
    r.finish();
    const SdpaResult fwd = sdpa(q, k, v, so);   // every check
    const Tensor G = randn(detail::shape_of(fwd.out), seed);   // dL/dout, as gradcheck draws it
    const SdpaGrads g = sdpa_backward(q, k, v, G, so);
    const std::size_t rank = q.dimension(), Tq = q.shape()[rank - 2], d = q.shape()[rank - 1], Tk = k.shape()[rank - 2],
                      dv = v.shape()[rank - 1];
    const std::size_t input = quantity == "dq" ? 0 : quantity == "dk" ? 1 : 2;
    const Tensor& cell = input == 0 ? g.dq : input == 1 ? g.dk : g.dv;
    const Shape s = detail::shape_of(cell);
    const auto ix = checked_at(at, s);
    const std::size_t n = flat(Shape(s.begin(), s.end() - 2), std::vector<std::size_t>(ix.begin(), ix.end() - 2));
    const std::size_t row = ix[rank - 2], col = ix[rank - 1];
    const double scale = so.scale.factor(d, d);
    const double *qn = q.data() + n * Tq * d, *kn = k.data() + n * Tk * d, *vn = v.data() + n * Tk * dv,
                 *gn = G.data() + n * Tq * dv, *wn = fwd.weights.data() + n * Tq * Tk;
    auto visible = [&](std::size_t t) { return so.causal ? std::min(t + 1, Tk) : Tk; };
    // sdpa_backward_kernel for query row t: dA[t, j] = dot2(dY[t], V[j]) and rowdot = sum of dA * A, in order
    auto dA = [&](std::size_t t, std::size_t j) { return detail::dot2(gn + t * dv, vn + j * dv, dv); };
    auto rowdot = [&](std::size_t t) {
        double dot = 0.0;
        for (std::size_t j = 0; j < visible(t); ++j) dot += dA(t, j) * wn[t * Tk + j];
        return dot;
    };
    Explanation e;
    e.grad_scale = scale;
    double sum = 0.0;   // added as the kernel adds into the zeroed gradient
    auto term = [&](std::size_t src, double a, double da, double dot, double other) {
        const double ds = a * (da - dot) * scale;
        e.grad_weight.push_back(a);
        e.grad_dweight.push_back(da);
        e.grad_rowdot.push_back(dot);
        e.left.push_back(ds);
        e.right.push_back(other);
        e.terms.push_back(ds * other);
        e.source.push_back(src);
        if (ds != 0.0) sum += ds * other;   // the kernel skips dS = 0
    };
    if (input == 0) {   // dQ[t, c] = sum over visible j of dS[t, j] K[j, c]
        const double dot = rowdot(row);
        for (std::size_t j = 0; j < visible(row); ++j) term(j, wn[row * Tk + j], dA(row, j), dot, kn[j * d + col]);
    } else if (input == 1) {   // dK[j, c] = sum over the queries t that see j of dS[t, j] Q[t, c], t in order
        for (std::size_t t = 0; t < Tq; ++t)
            if (row < visible(t)) term(t, wn[t * Tk + row], dA(t, row), rowdot(t), qn[t * d + col]);
    } else {   // dV[j, c] = sum over the queries t that see j of A[t, j] dY[t, c], t in order
        for (std::size_t t = 0; t < Tq; ++t)
            if (row < visible(t)) {
                const double p = wn[t * Tk + row] * gn[t * dv + col];
                e.left.push_back(wn[t * Tk + row]);
                e.right.push_back(gn[t * dv + col]);
                e.terms.push_back(p);
                e.source.push_back(t);
                sum += p;
            }
    }
    e.sum = e.value = sum;
    // gradcheck's numerical derivative of the same entry (the same function gradcheck calls)
    std::vector<Tensor> inputs{q, k, v};
    const detail::CentralDifference cd = detail::central_difference(
        inputs, input, flat(s, ix), 1e-6, [&](const std::vector<Tensor>& in) { return detail::sdpa_loss(in, G, so); });
    e.has_numeric = true;
    e.loss_plus = cd.plus;
    e.loss_minus = cd.minus;
    e.eps = 1e-6;
    e.numeric = cd.numeric;
    return checked(e, cell.data()[flat(s, ix)], "gradcheck " + quantity);
}

Explanation explain_probe(const std::string& quantity, const std::vector<double>& at, detail::OptionReader& r) {
    one_of(quantity, {"change"});
    const Tensor& x = required(r, "x", "(B, T, C)");
    const MhaOptions mo = detail::read_mha_options(r);
    if (!r.has("t")) throw Error(ErrorCode::missing, {{"fn", kFn}, {"arg", "opts.t"}, {"expectedType", "number"}, {"layout", ""}});
    const std::size_t t = r.index("t", 0, 0, kMaxElements);
    const auto seed = r.seed("seed");
    r.finish();
    const FutureProbeResult res = future_probe(x, mo, t, seed);   // every check
    const Shape s = detail::shape_of(res.change);
    const auto ix = checked_at(at, s);
    const std::size_t f = flat(s, ix);
    Explanation e;
    e.kind = Explanation::Kind::AbsDiff;
    e.left = {multi_head_attention(detail::changed_future(x, t, seed), mo).out.data()[f], multi_head_attention(x, mo).out.data()[f]};
    e.value = std::fabs(e.left[0] - e.left[1]);
    return checked(e, res.change.data()[f], "futureProbe change");
}

Explanation explain_dropout(const std::string& quantity, const std::vector<double>& at, detail::OptionReader& r) {
    one_of(quantity, {"out"});
    const Tensor& x = required(r, "x", "");
    const double p = r.number("p", 0.1);
    const bool training = r.boolean("training", true);
    const auto seed = r.seed("seed");
    r.finish();
    const Tensor y = dropout(x, p, training, seed);   // every check
    const Shape s = detail::shape_of(y);
    const auto ix = checked_at(at, s);
    const std::size_t f = flat(s, ix);
    Explanation e;
    e.kind = Explanation::Kind::Dropout;
    e.left = {x.data()[f]};
    e.p = p;
    e.training = training && p != 0.0;
    if (!e.training) {
        e.value = e.left[0];   // the identity
    } else {
        // dropout draws one uniform per entry, in order: entry f's is the (f + 1)-th
        detail::Rng rng(seed);
        for (std::size_t i = 0; i <= f; ++i) e.draw = rng.uniform();
        e.scale = 1.0 / (1.0 - p);
        e.kept = !(e.draw < p);
        e.value = e.kept ? e.left[0] * e.scale : 0.0;
    }
    return checked(e, y.data()[f], "dropout out");
}

}  // namespace

Explanation explain(const std::string& fn, const std::string& quantity, const std::vector<double>& at, const Options& opts) {
    detail::OptionReader r(opts, kFn);
    if (fn == "multiHeadAttention") return explain_mha(quantity, at, r);
    if (fn == "sdpa") return explain_sdpa(quantity, at, r);
    if (fn == "causalAverage") return explain_average(quantity, at, r);
    if (fn == "softmax") return explain_softmax(quantity, at, r);
    if (fn == "matmul") return explain_matmul(quantity, at, r);
    if (fn == "positions") return explain_positions(quantity, at, r);
    if (fn == "permutationCheck") return explain_permutation(quantity, at, r);
    if (fn == "gradcheck") return explain_gradcheck(quantity, at, r);
    if (fn == "futureProbe") return explain_probe(quantity, at, r);
    if (fn == "dropout") return explain_dropout(quantity, at, r);
    throw Error(ErrorCode::not_one_of, {{"fn", kFn}, {"arg", "fn"}, {"choice", fn},
                                        {"choices", std::vector<std::string>{"multiHeadAttention", "sdpa", "causalAverage", "softmax", "matmul",
                                                                             "positions", "permutationCheck", "gradcheck", "futureProbe", "dropout"}}});
}

}  // namespace attn
