// The raw kernels behind the public functions (no checks: callers check first): dot products and
// matrix products in a fixed order of additions, and the attention forward and backward passes.
// A header of their own, apart from internal.hpp, so that a change to them (or a mutant planted in
// them, scripts/mutants.mjs) recompiles only the translation units that call them.
#pragma once

#include <cstddef>

namespace attn::detail {

// Two doubles side by side, in one SIMD register (SSE2 natively, simd128 in WebAssembly): GCC's
// and Clang's vector extension. Each lane's arithmetic is the scalar IEEE operation, so a sum kept
// in lanes has the same bits as the two scalar sums it replaces. Written out because Clang does
// not vectorize the kernels' short inner loops for WebAssembly as GCC does natively
// (docs/toolchain.md, item 10).
typedef double pair2 __attribute__((vector_size(16)));
inline pair2 load_pair(const double* p) {
    pair2 v;
    __builtin_memcpy(&v, p, sizeof v);   // an unaligned load (movupd, v128.load)
    return v;
}
inline void store_pair(double* p, pair2 v) { __builtin_memcpy(p, &v, sizeof v); }

// Dot product with two interleaved partial sums (even and odd indices), added at the end: the
// same order in every build, so native and WebAssembly agree bit for bit (docs/toolchain.md,
// item 10), and two independent chains in one SIMD register.
inline double dot2(const double* a, const double* b, std::size_t n) {
    std::size_t c = 0;
    pair2 s = {0.0, 0.0};   // {s0, s1}: s0 += a[c] b[c], s1 += a[c + 1] b[c + 1]
    for (; c + 1 < n; c += 2) s += load_pair(a + c) * load_pair(b + c);
    double s0 = s[0];
    const double s1 = s[1];
    if (c < n) s0 += a[c] * b[c];
    return s0 + s1;
}
// out[r] = dot2(a, b + r * stride, n) * scale for r = 0..3: four dot products against one `a`, each
// summed exactly as dot2 sums it (the same bits), in eight independent chains (four registers of
// two) that share the loads of `a` (one chain at a time waits on each addition: the attention
// scores' hot loop).
inline void dot2x4(const double* a, const double* b, std::size_t stride, std::size_t n, double scale, double* out) {
    const double *b0 = b, *b1 = b + stride, *b2 = b + 2 * stride, *b3 = b + 3 * stride;
    std::size_t c = 0;
    pair2 s0 = {0.0, 0.0}, s1 = s0, s2 = s0, s3 = s0;   // sr = {er, or}: the even and odd sums of row r
    for (; c + 1 < n; c += 2) {
        const pair2 x = load_pair(a + c);
        s0 += x * load_pair(b0 + c);
        s1 += x * load_pair(b1 + c);
        s2 += x * load_pair(b2 + c);
        s3 += x * load_pair(b3 + c);
    }
    double e0 = s0[0], e1 = s1[0], e2 = s2[0], e3 = s3[0];
    const double o0 = s0[1], o1 = s1[1], o2 = s2[1], o3 = s3[1];
    if (c < n) { e0 += a[c] * b0[c]; e1 += a[c] * b1[c]; e2 += a[c] * b2[c]; e3 += a[c] * b3[c]; }
    out[0] = (e0 + o0) * scale;
    out[1] = (e1 + o1) * scale;
    out[2] = (e2 + o2) * scale;
    out[3] = (e3 + o3) * scale;
}

// o[c] += a x[c] for c < n, two columns per SIMD register (each lane the scalar operation: the same
// bits). Written out for the reason axpy4 is: the backward's and the weight gradients' row updates.
inline void axpy(double* o, double a, const double* x, std::size_t n) {
    std::size_t c = 0;
    const pair2 A = {a, a};
    for (; c + 1 < n; c += 2) store_pair(o + c, load_pair(o + c) + A * load_pair(x + c));
    if (c < n) o[c] += a * x[c];
}

// o[c] = (((o[c] + a0 v0[c]) + a1 v1[c]) + a2 v2[c]) + a3 v3[c] for c < n: four rows of V added
// into an output row in the order 0, 1, 2, 3 (the attention output's inner loop), two columns per
// SIMD register. Written out because Clang's own vectorization of this loop checks at run time
// that the five rows do not overlap, which costs as much as the work at a head size of 16.
inline void axpy4(double* o, double a0, double a1, double a2, double a3, const double* v0, const double* v1,
                  const double* v2, const double* v3, std::size_t n) {
    std::size_t c = 0;
    const pair2 A0 = {a0, a0}, A1 = {a1, a1}, A2 = {a2, a2}, A3 = {a3, a3};
    for (; c + 1 < n; c += 2) {
        const pair2 r = (((load_pair(o + c) + A0 * load_pair(v0 + c)) + A1 * load_pair(v1 + c)) + A2 * load_pair(v2 + c)) +
                        A3 * load_pair(v3 + c);
        store_pair(o + c, r);
    }
    if (c < n) o[c] = (((o[c] + a0 * v0[c]) + a1 * v1[c]) + a2 * v2[c]) + a3 * v3[c];
}

// Matrix products, row-major, accumulating into `out` (the caller zeroes it or puts a bias there);
// the project's own because there is no BLAS for WebAssembly (docs/toolchain.md, item 9).
// out (n, m) += a (n, k) b (k, m); four rows of b per pass over a row of out (axpy4), added in the
// order c = 0, 1, 2, ... (the same bits as one row at a time, with a quarter of the loads and stores of out)
inline void gemm_acc(double* out, const double* a, const double* b, std::size_t n, std::size_t k, std::size_t m) {
    for (std::size_t i = 0; i < n; ++i) {
        double* o = out + i * m;
        const double* ai = a + i * k;
        std::size_t c = 0;
        for (; c + 4 <= k; c += 4) {
            const double* b0 = b + c * m;
            axpy4(o, ai[c], ai[c + 1], ai[c + 2], ai[c + 3], b0, b0 + m, b0 + 2 * m, b0 + 3 * m, m);
        }
        for (; c < k; ++c) axpy(o, ai[c], b + c * m, m);
    }
}
// out (k, m) += a^T b for a (n, k), b (n, m): weight gradients; four rows of a and b per pass over
// out, added in the order i = 0, 1, 2, ... (the same bits as one row at a time)
inline void gemm_tn_acc(double* out, const double* a, const double* b, std::size_t n, std::size_t k, std::size_t m) {
    std::size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const double *a0 = a + i * k, *b0 = b + i * m;
        for (std::size_t c = 0; c < k; ++c)
            axpy4(out + c * m, a0[c], a0[k + c], a0[2 * k + c], a0[3 * k + c], b0, b0 + m, b0 + 2 * m, b0 + 3 * m, m);
    }
    for (; i < n; ++i)
        for (std::size_t c = 0; c < k; ++c) axpy(out + c * m, a[i * k + c], b + i * m, m);
}
// out (n, k) += a b^T for a (n, m), b (k, m): input gradients; each out[i, c] += dot2 of row i of a
// and row c of b, four rows of b at a time (dot2x4: the same bits)
inline void gemm_nt_acc(double* out, const double* a, const double* b, std::size_t n, std::size_t m, std::size_t k) {
    for (std::size_t i = 0; i < n; ++i) {
        const double* ai = a + i * m;
        double* o = out + i * k;
        std::size_t c = 0;
        double t[4];
        for (; c + 4 <= k; c += 4) {
            dot2x4(ai, b + c * m, m, m, 1.0, t);
            o[c] += t[0];
            o[c + 1] += t[1];
            o[c + 2] += t[2];
            o[c + 3] += t[3];
        }
        for (; c < k; ++c) o[c] += dot2(ai, b + c * m, m);
    }
}

// Where the rows of one (batch, head) group live: group n = b * heads + h starts at
// b * batch + h * head and its rows are `row` apart. Plain (N, T, d) tensors are {1, T * d, 0, d};
// the heads of a (B, T, NH * hs) projection are {NH, T * NH * hs, hs, NH * hs}: no copies to split them.
struct RowLayout {
    std::size_t heads, batch, head, row;
    std::size_t base(std::size_t n) const { return (n / heads) * batch + (n % heads) * head; }
};
inline RowLayout dense(std::size_t T, std::size_t d) { return {1, T * d, 0, d}; }

// q, k, v and out as laid out by their RowLayouts; scores and weights: (N, Tq, Tk). scores may be
// null (the GPT keeps only the weights; multi_head_attention_out nothing): then the masked scores
// are not computed at all, and the result says whether every score computed was finite (with
// scores kept, the caller checks them; true then). weights_row: `weights` is one row of Tk, reused
// for every row (nothing (N, Tq, Tk) is kept; scores must be null). out is the same bits either way;
// out null: Y = A V is not computed (the backwards need the weights alone).
bool sdpa_forward_kernel(const double* q, const double* k, const double* v, std::size_t N,
                         std::size_t Tq, std::size_t Tk, std::size_t d, std::size_t dv,
                         double scale, bool causal, double* scores, double* weights, double* out,
                         RowLayout lq, RowLayout lk, RowLayout lv, RowLayout lo, bool weights_row = false);
inline void sdpa_forward_kernel(const double* q, const double* k, const double* v, std::size_t N,
                                std::size_t Tq, std::size_t Tk, std::size_t d, std::size_t dv,
                                double scale, bool causal, double* scores, double* weights, double* out) {
    sdpa_forward_kernel(q, k, v, N, Tq, Tk, d, dv, scale, causal, scores, weights, out, dense(Tq, d), dense(Tk, d),
                        dense(Tk, dv), dense(Tq, dv));
}
// The scores S = Q K^T * scale (N, Tq, Tk) as sdpa_forward_kernel computes them, the masked ones 0
// (a masked score is no error): what names the score when the kernel, keeping no scores, said that
// a visible one overflowed (it returned false).
void visible_scores(const double* q, const double* k, std::size_t N, std::size_t Tq, std::size_t Tk, std::size_t d,
                    double scale, bool causal, double* scores, RowLayout lq, RowLayout lk);
// Given weights from the forward pass: dq, dk, dv laid out like q, k, v; dout like out. Adds into
// dq, dk, dv (the caller zeroes them).
void sdpa_backward_kernel(const double* q, const double* k, const double* v, const double* weights,
                          const double* dout, std::size_t N, std::size_t Tq, std::size_t Tk,
                          std::size_t d, std::size_t dv, double scale, bool causal, double* dq, double* dk,
                          double* dvv, RowLayout lq, RowLayout lk, RowLayout lv, RowLayout lo);

}  // namespace attn::detail
