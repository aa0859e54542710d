// The kernels the character GPT adds (see gpt_kernels.hpp for the shapes and formulas).
#include "gpt_kernels.hpp"

#include <algorithm>
#include <cmath>

#include "internal.hpp"
#include "kernels.hpp"

namespace attn::detail {

// ---- encoder ------------------------------------------------------------------------------------
void encoder_forward(double* out, const int* tok, const double* wte, const double* wpe, std::size_t B, std::size_t T, std::size_t C) {
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t) {
            const double* we = wte + std::size_t(tok[b * T + t]) * C;
            const double* pe = wpe + t * C;
            double* o = out + (b * T + t) * C;
            for (std::size_t c = 0; c < C; ++c) o[c] = we[c] + pe[c];
        }
}
void encoder_backward(double* dwte, double* dwpe, const double* dout, const int* tok, std::size_t B, std::size_t T, std::size_t C) {
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t) {
            const double* d = dout + (b * T + t) * C;
            double* dwe = dwte + std::size_t(tok[b * T + t]) * C;
            double* dpe = dwpe + t * C;
            for (std::size_t c = 0; c < C; ++c) { dwe[c] += d[c]; dpe[c] += d[c]; }
        }
}

// ---- layernorm ----------------------------------------------------------------------------------
void layernorm_forward(double* out, double* mean, double* rstd, const double* inp, const double* w, const double* bias, std::size_t BT, std::size_t C) {
    const double eps = 1e-5;
    for (std::size_t i = 0; i < BT; ++i) {
        const double* x = inp + i * C;
        double m = 0.0;
        for (std::size_t c = 0; c < C; ++c) m += x[c];
        m /= double(C);
        double v = 0.0;
        for (std::size_t c = 0; c < C; ++c) v += (x[c] - m) * (x[c] - m);
        v /= double(C);
        const double s = 1.0 / std::sqrt(v + eps);
        double* o = out + i * C;
        for (std::size_t c = 0; c < C; ++c) o[c] = (x[c] - m) * s * w[c] + bias[c];
        mean[i] = m;
        rstd[i] = s;
    }
}
void layernorm_backward(double* dinp, double* dw, double* db, const double* dout, const double* inp, const double* w,
                        const double* mean, const double* rstd, std::size_t BT, std::size_t C) {
    for (std::size_t i = 0; i < BT; ++i) {
        const double* d = dout + i * C;
        const double* x = inp + i * C;
        double* dx = dinp + i * C;
        const double m = mean[i], s = rstd[i];
        double dnorm_mean = 0.0, dnorm_norm_mean = 0.0;
        for (std::size_t c = 0; c < C; ++c) {
            const double norm = (x[c] - m) * s, dnorm = w[c] * d[c];
            dnorm_mean += dnorm;
            dnorm_norm_mean += dnorm * norm;
        }
        dnorm_mean /= double(C);
        dnorm_norm_mean /= double(C);
        for (std::size_t c = 0; c < C; ++c) {
            const double norm = (x[c] - m) * s, dnorm = w[c] * d[c];
            db[c] += d[c];
            dw[c] += norm * d[c];
            dx[c] += (dnorm - dnorm_mean - norm * dnorm_norm_mean) * s;
        }
    }
}

// ---- matmul (the lab's gemm kernels) ------------------------------------------------------------
void linear_forward(double* out, const double* inp, const double* w, const double* bias, std::size_t BT, std::size_t IC, std::size_t OC) {
    for (std::size_t i = 0; i < BT; ++i)
        for (std::size_t k = 0; k < OC; ++k) out[i * OC + k] = bias ? bias[k] : 0.0;
    gemm_acc(out, inp, w, BT, IC, OC);
}
void linear_backward(double* dinp, double* dw, double* db, const double* dout, const double* inp, const double* w,
                     std::size_t BT, std::size_t IC, std::size_t OC) {
    gemm_nt_acc(dinp, dout, w, BT, OC, IC);
    gemm_tn_acc(dw, inp, dout, BT, IC, OC);
    if (db)
        for (std::size_t i = 0; i < BT; ++i)
            for (std::size_t k = 0; k < OC; ++k) db[k] += dout[i * OC + k];
}

// ---- attention (the lab's sdpa kernels) ---------------------------------------------------------
// The GPT's attention is the lab's own sdpa kernels (the ones 18.3 to 18.7 show), reading the heads
// in place from the packed qkv; their dot products sum in two interleaved partial sums (dot2 in
// kernels.hpp), as do the tied head's logits (gemm_nt_acc).
namespace {
// Group n = b * NH + h of the packed qkv (B, T, 3C): q of head h starts at qkv + b T 3C + h hs,
// k and v C and 2C further on; rows are 3C apart. The output (B, T, C): rows C apart.
struct PackedHeads {
    std::size_t hs;
    RowLayout qkv, out;
    double scale;
    PackedHeads(std::size_t T, std::size_t C, std::size_t NH)
        : hs(C / NH), qkv{NH, T * 3 * C, C / NH, 3 * C}, out{NH, T * C, C / NH, C},
          scale(scale_factor(Scale{Scale::Kind::Head, 1.0}, C / NH, C)) {}   // 1/sqrt(hs)
};
}  // namespace

void attention_forward(double* out, double* att, double* scores, const double* qkv, std::size_t B, std::size_t T, std::size_t C,
                       std::size_t NH, bool causal) {
    const PackedHeads P(T, C, NH);
    sdpa_forward_kernel(qkv, qkv + C, qkv + 2 * C, B * NH, T, T, P.hs, P.hs, P.scale, causal, scores, att, out,
                        P.qkv, P.qkv, P.qkv, P.out);
}
void attention_backward(double* dqkv, const double* dout, const double* qkv, const double* att, std::size_t B, std::size_t T,
                        std::size_t C, std::size_t NH, bool causal) {
    const PackedHeads P(T, C, NH);
    sdpa_backward_kernel(qkv, qkv + C, qkv + 2 * C, att, dout, B * NH, T, T, P.hs, P.hs, P.scale, causal, dqkv, dqkv + C,
                         dqkv + 2 * C, P.qkv, P.qkv, P.qkv, P.out);
}

// ---- gelu ---------------------------------------------------------------------------------------
namespace {
const double kGeluScale = std::sqrt(2.0 / 3.14159265358979323846);   // sqrt(2 / pi)
}
void gelu_forward(double* out, const double* inp, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        const double x = inp[i];
        out[i] = 0.5 * x * (1.0 + std::tanh(kGeluScale * (x + 0.044715 * x * x * x)));
    }
}
void gelu_backward(double* dinp, const double* inp, const double* dout, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        const double x = inp[i];
        const double u = kGeluScale * (x + 0.044715 * x * x * x);
        const double th = std::tanh(u);
        const double sech2 = 1.0 - th * th;
        const double local = 0.5 * (1.0 + th) + 0.5 * x * sech2 * kGeluScale * (1.0 + 3.0 * 0.044715 * x * x);
        dinp[i] += local * dout[i];
    }
}

// ---- residual -----------------------------------------------------------------------------------
void residual_forward(double* out, const double* a, const double* b, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

// ---- softmax and cross-entropy ------------------------------------------------------------------
void softmax_rows(double* probs, const double* logits, std::size_t rows, std::size_t V) {
    for (std::size_t i = 0; i < rows; ++i) {
        const double* z = logits + i * V;
        double* pr = probs + i * V;
        const double mx = *std::max_element(z, z + V);
        double sum = 0.0;
        for (std::size_t v = 0; v < V; ++v) sum += (pr[v] = std::exp(z[v] - mx));
        for (std::size_t v = 0; v < V; ++v) pr[v] /= sum;
    }
}
double crossentropy_forward(const double* probs, const int* targets, std::size_t rows, std::size_t V) {
    double loss = 0.0;
    for (std::size_t i = 0; i < rows; ++i) loss -= std::log(probs[i * V + std::size_t(targets[i])]);
    return loss / double(rows);
}
void crossentropy_softmax_backward(double* dlogits, const double* probs, const int* targets, std::size_t rows, std::size_t V) {
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t v = 0; v < V; ++v) {
            const double onehot = v == std::size_t(targets[i]) ? 1.0 : 0.0;
            dlogits[i * V + v] = (probs[i * V + v] - onehot) / double(rows);
        }
}

// ---- AdamW --------------------------------------------------------------------------------------
void adamw_update(double* params, const double* grads, double* m, double* v, std::size_t n, std::size_t t, double lr,
                  double beta1, double beta2, double eps, double weight_decay) {
    const double c1 = 1.0 - std::pow(beta1, double(t)), c2 = 1.0 - std::pow(beta2, double(t));
    for (std::size_t i = 0; i < n; ++i) {
        const double gi = grads[i];
        m[i] = beta1 * m[i] + (1.0 - beta1) * gi;
        v[i] = beta2 * v[i] + (1.0 - beta2) * gi * gi;
        const double mh = m[i] / c1, vh = v[i] / c2;
        params[i] -= lr * (mh / (std::sqrt(vh) + eps) + weight_decay * params[i]);
    }
}

}  // namespace attn::detail
