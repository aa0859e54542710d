// The character GPT: kernels (forward and backward side by side, llm.c style), the model, the
// data, the trainer and the whole-model gradient check.
#include "attn/gpt.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "internal.hpp"

namespace attn {

using detail::fail;

namespace {

// ---- kernels -----------------------------------------------------------------------------------
// encoder: out[b,t] = wte[tok[b,t]] + wpe[t]   (B, T, C)
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

// layernorm over C: out = (x - mean) * rstd * w + b; keeps mean and rstd   (BT, C)
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

// out = inp W + b: inp (BT, IC), W (IC, OC), b (OC) -> out (BT, OC)
void matmul_forward(double* out, const double* inp, const double* w, const double* bias, std::size_t BT, std::size_t IC, std::size_t OC) {
    for (std::size_t i = 0; i < BT; ++i)
        for (std::size_t k = 0; k < OC; ++k) out[i * OC + k] = bias ? bias[k] : 0.0;
    detail::gemm_acc(out, inp, w, BT, IC, OC);
}
// backward of out = inp W + b: dinp += dout W^T, dW += inp^T dout, db += sum over rows of dout
void matmul_backward(double* dinp, double* dw, double* db, const double* dout, const double* inp, const double* w,
                     std::size_t BT, std::size_t IC, std::size_t OC) {
    detail::gemm_nt_acc(dinp, dout, w, BT, OC, IC);
    detail::gemm_tn_acc(dw, inp, dout, BT, IC, OC);
    if (db)
        for (std::size_t i = 0; i < BT; ++i)
            for (std::size_t k = 0; k < OC; ++k) db[k] += dout[i * OC + k];
}

// causal multi-head attention on packed qkv (B, T, 3C) -> out (B, T, C); keeps preatt and att (B, NH, T, T)
void attention_forward(double* out, double* preatt, double* att, const double* qkv, std::size_t B, std::size_t T,
                       std::size_t C, std::size_t NH, bool causal) {
    const std::size_t hs = C / NH, C3 = 3 * C;
    const double scale = 1.0 / std::sqrt(double(hs));
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t h = 0; h < NH; ++h) {
                const double* q = qkv + (b * T + t) * C3 + h * hs;
                double* pre = preatt + ((b * NH + h) * T + t) * T;
                double* a = att + ((b * NH + h) * T + t) * T;
                const std::size_t visible = causal ? t + 1 : T;   // the mask: j <= t
                double mx = -std::numeric_limits<double>::infinity();
                for (std::size_t t2 = 0; t2 < visible; ++t2) {
                    const double* k = qkv + (b * T + t2) * C3 + C + h * hs;
                    double s = 0.0;
                    for (std::size_t i = 0; i < hs; ++i) s += q[i] * k[i];
                    pre[t2] = s * scale;
                    mx = std::max(mx, pre[t2]);
                }
                double sum = 0.0;
                for (std::size_t t2 = 0; t2 < T; ++t2) {
                    a[t2] = t2 < visible ? std::exp(pre[t2] - mx) : 0.0;   // masked: weight exactly 0
                    if (t2 >= visible) pre[t2] = 0.0;
                    sum += a[t2];
                }
                for (std::size_t t2 = 0; t2 < T; ++t2) a[t2] /= sum;
                double* o = out + (b * T + t) * C + h * hs;
                for (std::size_t i = 0; i < hs; ++i) o[i] = 0.0;
                for (std::size_t t2 = 0; t2 < visible; ++t2) {
                    const double* v = qkv + (b * T + t2) * C3 + 2 * C + h * hs;
                    for (std::size_t i = 0; i < hs; ++i) o[i] += a[t2] * v[i];
                }
            }
}
void attention_backward(double* dqkv, const double* dout, const double* qkv, const double* att, std::size_t B, std::size_t T,
                        std::size_t C, std::size_t NH, bool causal) {
    const std::size_t hs = C / NH, C3 = 3 * C;
    const double scale = 1.0 / std::sqrt(double(hs));
    std::vector<double> datt(T);
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t h = 0; h < NH; ++h) {
                const double* a = att + ((b * NH + h) * T + t) * T;
                const double* d = dout + (b * T + t) * C + h * hs;
                const std::size_t visible = causal ? t + 1 : T;
                // backward of o = sum_t2 a[t2] v[t2]
                double dot = 0.0;
                for (std::size_t t2 = 0; t2 < visible; ++t2) {
                    const double* v = qkv + (b * T + t2) * C3 + 2 * C + h * hs;
                    double* dv = dqkv + (b * T + t2) * C3 + 2 * C + h * hs;
                    double s = 0.0;
                    for (std::size_t i = 0; i < hs; ++i) { s += v[i] * d[i]; dv[i] += a[t2] * d[i]; }
                    datt[t2] = s;
                    dot += s * a[t2];
                }
                // backward of the softmax, then of pre = q.k * scale
                const double* q = qkv + (b * T + t) * C3 + h * hs;
                double* dq = dqkv + (b * T + t) * C3 + h * hs;
                for (std::size_t t2 = 0; t2 < visible; ++t2) {
                    const double dpre = a[t2] * (datt[t2] - dot) * scale;
                    const double* k = qkv + (b * T + t2) * C3 + C + h * hs;
                    double* dk = dqkv + (b * T + t2) * C3 + C + h * hs;
                    for (std::size_t i = 0; i < hs; ++i) { dq[i] += dpre * k[i]; dk[i] += dpre * q[i]; }
                }
            }
}

// GELU, tanh approximation (as GPT-2)
const double kGeluScale = std::sqrt(2.0 / 3.14159265358979323846);
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

void residual_forward(double* out, const double* a, const double* b, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

}  // namespace

// ---- the model ----------------------------------------------------------------------------------
Gpt::Gpt(const GptConfig& cfg) : cfg_(cfg) {
    if (cfg.vocab < 2) fail("gpt: the vocabulary needs at least 2 characters, got " + std::to_string(cfg.vocab));
    if (cfg.C < 1 || cfg.C > 512) fail("gpt: C must be from 1 to 512, got " + std::to_string(cfg.C));
    if (cfg.heads < 1 || cfg.C % cfg.heads != 0)
        fail("gpt: heads = " + std::to_string(cfg.heads) + " does not divide the width C = " + std::to_string(cfg.C));
    if (cfg.layers < 1 || cfg.layers > 12) fail("gpt: layers must be from 1 to 12, got " + std::to_string(cfg.layers));
    if (cfg.t_max < 1 || cfg.t_max > 512) fail("gpt: tMax must be from 1 to 512, got " + std::to_string(cfg.t_max));
    const std::size_t V = cfg.vocab, C = cfg.C, L = cfg.layers;
    std::size_t o = 0;
    auto take = [&o](std::size_t n) { const std::size_t at = o; o += n; return at; };
    layout_.wte = take(V * C);
    layout_.wpe = take(cfg.t_max * C);
    layout_.ln1w = take(L * C);
    layout_.ln1b = take(L * C);
    layout_.qkvw = take(L * C * 3 * C);
    layout_.qkvb = take(L * 3 * C);
    layout_.attprojw = take(L * C * C);
    layout_.attprojb = take(L * C);
    layout_.ln2w = take(L * C);
    layout_.ln2b = take(L * C);
    layout_.fcw = take(L * C * 4 * C);
    layout_.fcb = take(L * 4 * C);
    layout_.fcprojw = take(L * 4 * C * C);
    layout_.fcprojb = take(L * C);
    layout_.lnfw = take(C);
    layout_.lnfb = take(C);
    layout_.total = o;
    if (o > kMaxElements) detail::size_error("gpt: parameters", o);
    params_.assign(o, 0.0);
    grads_.assign(o, 0.0);
    m_.assign(o, 0.0);
    v_.assign(o, 0.0);
    // GPT-2 initialisation: N(0, 0.02) weights, projections into the residual scaled by 1/sqrt(2L),
    // zero biases, unit layernorm gains. One seeded stream, drawn in layout order.
    detail::Rng rng(cfg.seed);
    auto normal = [&](std::size_t at, std::size_t n, double std) { for (std::size_t i = 0; i < n; ++i) params_[at + i] = std * rng.normal(); };
    const double proj_std = 0.02 / std::sqrt(2.0 * double(L));
    normal(layout_.wte, V * C, 0.02);
    normal(layout_.wpe, cfg.t_max * C, 0.02);
    normal(layout_.qkvw, L * C * 3 * C, 0.02);
    normal(layout_.attprojw, L * C * C, proj_std);
    normal(layout_.fcw, L * C * 4 * C, 0.02);
    normal(layout_.fcprojw, L * 4 * C * C, proj_std);
    std::fill_n(params_.begin() + long(layout_.ln1w), L * C, 1.0);
    std::fill_n(params_.begin() + long(layout_.ln2w), L * C, 1.0);
    std::fill_n(params_.begin() + long(layout_.lnfw), C, 1.0);
}

double Gpt::forward(const std::vector<int>& tokens, const std::vector<int>& targets, std::size_t B, std::size_t T) {
    if (B < 1 || T < 1 || T > cfg_.t_max)
        fail("gpt: T = " + std::to_string(T) + " must be from 1 to tMax = " + std::to_string(cfg_.t_max) + " (the position table has no row past it)");
    if (tokens.size() != B * T) fail("gpt: tokens must hold B * T = " + std::to_string(B * T) + " ids, got " + std::to_string(tokens.size()));
    if (!targets.empty() && targets.size() != B * T) fail("gpt: targets must hold B * T ids");
    for (int id : tokens) if (id < 0 || std::size_t(id) >= cfg_.vocab) fail("gpt: token id " + std::to_string(id) + " is outside the vocabulary");
    for (int id : targets) if (id < 0 || std::size_t(id) >= cfg_.vocab) fail("gpt: target id " + std::to_string(id) + " is outside the vocabulary");
    const std::size_t V = cfg_.vocab, C = cfg_.C, L = cfg_.layers, NH = cfg_.heads, BT = B * T;
    B_ = B; T_ = T; tokens_ = tokens; targets_ = targets;
    auto size = [](std::vector<double>& v, std::size_t n) { v.assign(n, 0.0); };
    size(encoded_, BT * C);
    size(ln1_, L * BT * C); size(ln1_mean_, L * BT); size(ln1_rstd_, L * BT);
    size(qkv_, L * BT * 3 * C); size(atty_, L * BT * C);
    size(preatt_, L * B * NH * T * T); size(att_, L * B * NH * T * T);
    size(attproj_, L * BT * C); size(residual2_, L * BT * C);
    size(ln2_, L * BT * C); size(ln2_mean_, L * BT); size(ln2_rstd_, L * BT);
    size(fch_, L * BT * 4 * C); size(fch_gelu_, L * BT * 4 * C); size(fcproj_, L * BT * C); size(residual3_, L * BT * C);
    size(lnf_, BT * C); size(lnf_mean_, BT); size(lnf_rstd_, BT);
    size(logits_, BT * V); size(probs_, BT * V);
    const double* p = params_.data();
    const GptParamLayout& P = layout_;

    encoder_forward(encoded_.data(), tokens.data(), p + P.wte, p + P.wpe, B, T, C);   // (B, T, C)
    for (std::size_t l = 0; l < L; ++l) {
        const double* residual = l == 0 ? encoded_.data() : residual3_.data() + (l - 1) * BT * C;
        double* ln1 = ln1_.data() + l * BT * C;
        double* qkv = qkv_.data() + l * BT * 3 * C;
        double* atty = atty_.data() + l * BT * C;
        double* r2 = residual2_.data() + l * BT * C;
        double* ln2 = ln2_.data() + l * BT * C;
        double* fch = fch_.data() + l * BT * 4 * C;
        double* fchg = fch_gelu_.data() + l * BT * 4 * C;
        layernorm_forward(ln1, ln1_mean_.data() + l * BT, ln1_rstd_.data() + l * BT, residual, p + P.ln1w + l * C, p + P.ln1b + l * C, BT, C);
        matmul_forward(qkv, ln1, p + P.qkvw + l * C * 3 * C, p + P.qkvb + l * 3 * C, BT, C, 3 * C);   // (BT, 3C)
        attention_forward(atty, preatt_.data() + l * B * NH * T * T, att_.data() + l * B * NH * T * T, qkv, B, T, C, NH, cfg_.causal);
        matmul_forward(attproj_.data() + l * BT * C, atty, p + P.attprojw + l * C * C, p + P.attprojb + l * C, BT, C, C);
        residual_forward(r2, residual, attproj_.data() + l * BT * C, BT * C);
        layernorm_forward(ln2, ln2_mean_.data() + l * BT, ln2_rstd_.data() + l * BT, r2, p + P.ln2w + l * C, p + P.ln2b + l * C, BT, C);
        matmul_forward(fch, ln2, p + P.fcw + l * C * 4 * C, p + P.fcb + l * 4 * C, BT, C, 4 * C);     // (BT, 4C)
        gelu_forward(fchg, fch, BT * 4 * C);
        matmul_forward(fcproj_.data() + l * BT * C, fchg, p + P.fcprojw + l * 4 * C * C, p + P.fcprojb + l * C, BT, 4 * C, C);
        residual_forward(residual3_.data() + l * BT * C, r2, fcproj_.data() + l * BT * C, BT * C);
    }
    const double* last = residual3_.data() + (L - 1) * BT * C;
    layernorm_forward(lnf_.data(), lnf_mean_.data(), lnf_rstd_.data(), last, p + P.lnfw, p + P.lnfb, BT, C);
    // logits = lnf wte^T   (BT, C) x (C, V)
    for (std::size_t i = 0; i < BT; ++i)
        for (std::size_t v = 0; v < V; ++v) {
            double s = 0.0;
            for (std::size_t c = 0; c < C; ++c) s += lnf_[i * C + c] * p[P.wte + v * C + c];
            logits_[i * V + v] = s;
        }
    // probs = softmax(logits), loss = mean -log probs[target]
    double loss = 0.0;
    for (std::size_t i = 0; i < BT; ++i) {
        const double* z = logits_.data() + i * V;
        double* pr = probs_.data() + i * V;
        const double mx = *std::max_element(z, z + V);
        double sum = 0.0;
        for (std::size_t v = 0; v < V; ++v) sum += (pr[v] = std::exp(z[v] - mx));
        for (std::size_t v = 0; v < V; ++v) pr[v] /= sum;
        if (!targets.empty()) loss -= std::log(pr[targets[i]]);
    }
    for (std::size_t i = 0; i < BT * V; ++i)
        if (!std::isfinite(logits_[i])) fail("gpt: the logits overflow float64: the parameters have diverged");
    return targets.empty() ? std::numeric_limits<double>::quiet_NaN() : loss / double(BT);
}

void Gpt::zero_grad() { std::fill(grads_.begin(), grads_.end(), 0.0); }

void Gpt::backward() {
    if (targets_.empty()) fail("gpt: backward needs a forward pass with targets first");
    const std::size_t V = cfg_.vocab, C = cfg_.C, L = cfg_.layers, NH = cfg_.heads, B = B_, T = T_, BT = B * T;
    const double* p = params_.data();
    double* g = grads_.data();
    const GptParamLayout& P = layout_;
    // backward of loss = mean -log softmax(logits)[target]: dlogits = (probs - onehot) / BT
    std::vector<double> dlogits(probs_);
    for (std::size_t i = 0; i < BT; ++i) dlogits[i * V + std::size_t(targets_[i])] -= 1.0;
    for (double& d : dlogits) d /= double(BT);
    // backward of logits = lnf wte^T
    std::vector<double> dlnf(BT * C, 0.0), dresidual(BT * C, 0.0);
    for (std::size_t i = 0; i < BT; ++i)
        for (std::size_t v = 0; v < V; ++v) {
            const double d = dlogits[i * V + v];
            for (std::size_t c = 0; c < C; ++c) {
                dlnf[i * C + c] += d * p[P.wte + v * C + c];
                g[P.wte + v * C + c] += d * lnf_[i * C + c];
            }
        }
    // backward of lnf = layernorm(residual3[L-1])
    layernorm_backward(dresidual.data(), g + P.lnfw, g + P.lnfb, dlnf.data(), residual3_.data() + (L - 1) * BT * C, p + P.lnfw,
                       lnf_mean_.data(), lnf_rstd_.data(), BT, C);
    std::vector<double> dln(BT * C), dfch(BT * 4 * C), dfchg(BT * 4 * C), dqkv(BT * 3 * C), datty(BT * C), dr2(BT * C);
    for (std::size_t l = L; l-- > 0;) {
        const double* residual = l == 0 ? encoded_.data() : residual3_.data() + (l - 1) * BT * C;
        // backward of residual3 = r2 + fcproj: both get dresidual
        std::copy(dresidual.begin(), dresidual.end(), dr2.begin());
        std::fill(dfchg.begin(), dfchg.end(), 0.0);
        matmul_backward(dfchg.data(), g + P.fcprojw + l * 4 * C * C, g + P.fcprojb + l * C, dresidual.data(),
                        fch_gelu_.data() + l * BT * 4 * C, p + P.fcprojw + l * 4 * C * C, BT, 4 * C, C);
        std::fill(dfch.begin(), dfch.end(), 0.0);
        gelu_backward(dfch.data(), fch_.data() + l * BT * 4 * C, dfchg.data(), BT * 4 * C);
        std::fill(dln.begin(), dln.end(), 0.0);
        matmul_backward(dln.data(), g + P.fcw + l * C * 4 * C, g + P.fcb + l * 4 * C, dfch.data(), ln2_.data() + l * BT * C,
                        p + P.fcw + l * C * 4 * C, BT, C, 4 * C);
        layernorm_backward(dr2.data(), g + P.ln2w + l * C, g + P.ln2b + l * C, dln.data(), residual2_.data() + l * BT * C,
                           p + P.ln2w + l * C, ln2_mean_.data() + l * BT, ln2_rstd_.data() + l * BT, BT, C);
        // backward of r2 = residual + attproj: both get dr2
        std::copy(dr2.begin(), dr2.end(), dresidual.begin());
        std::fill(datty.begin(), datty.end(), 0.0);
        matmul_backward(datty.data(), g + P.attprojw + l * C * C, g + P.attprojb + l * C, dr2.data(), atty_.data() + l * BT * C,
                        p + P.attprojw + l * C * C, BT, C, C);
        std::fill(dqkv.begin(), dqkv.end(), 0.0);
        attention_backward(dqkv.data(), datty.data(), qkv_.data() + l * BT * 3 * C, att_.data() + l * B * NH * T * T, B, T, C, NH, cfg_.causal);
        std::fill(dln.begin(), dln.end(), 0.0);
        matmul_backward(dln.data(), g + P.qkvw + l * C * 3 * C, g + P.qkvb + l * 3 * C, dqkv.data(), ln1_.data() + l * BT * C,
                        p + P.qkvw + l * C * 3 * C, BT, C, 3 * C);
        layernorm_backward(dresidual.data(), g + P.ln1w + l * C, g + P.ln1b + l * C, dln.data(), residual, p + P.ln1w + l * C,
                           ln1_mean_.data() + l * BT, ln1_rstd_.data() + l * BT, BT, C);
    }
    encoder_backward(g + P.wte, g + P.wpe, dresidual.data(), tokens_.data(), B, T, C);
}

void Gpt::adamw(double lr, double beta1, double beta2, double eps, double weight_decay) {
    ++step_;
    const double c1 = 1.0 - std::pow(beta1, double(step_)), c2 = 1.0 - std::pow(beta2, double(step_));
    for (std::size_t i = 0; i < params_.size(); ++i) {
        const double gi = grads_[i];
        m_[i] = beta1 * m_[i] + (1.0 - beta1) * gi;
        v_[i] = beta2 * v_[i] + (1.0 - beta2) * gi * gi;
        const double mh = m_[i] / c1, vh = v_[i] / c2;
        params_[i] -= lr * (mh / (std::sqrt(vh) + eps) + weight_decay * params_[i]);
    }
}

Tensor Gpt::logits() const {
    Tensor t = Tensor::from_shape({B_, T_, cfg_.vocab});
    std::copy(logits_.begin(), logits_.end(), t.begin());
    return t;
}

Tensor Gpt::attention(std::size_t layer) const {
    if (layer >= cfg_.layers) fail("gpt: layer " + std::to_string(layer) + " is past the " + std::to_string(cfg_.layers) + " layers");
    const std::size_t n = B_ * cfg_.heads * T_ * T_;
    Tensor t = Tensor::from_shape({B_, cfg_.heads, T_, T_});
    std::copy(att_.begin() + long(layer * n), att_.begin() + long((layer + 1) * n), t.begin());
    return t;
}

// ---- data ---------------------------------------------------------------------------------------
namespace {
std::vector<char32_t> utf8_decode(const std::string& s, const std::string& what) {
    std::vector<char32_t> out;
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        const int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (n == 0 || i + std::size_t(n) > s.size()) fail(what + ": not valid UTF-8 at byte " + std::to_string(i));
        char32_t cp = n == 1 ? c : c & (0x7F >> n);
        for (int k = 1; k < n; ++k) {
            const unsigned char cc = static_cast<unsigned char>(s[i + std::size_t(k)]);
            if ((cc >> 6) != 2) fail(what + ": not valid UTF-8 at byte " + std::to_string(i));
            cp = (cp << 6) | (cc & 0x3F);
        }
        out.push_back(cp);
        i += std::size_t(n);
    }
    return out;
}
std::string utf8_encode(char32_t cp) {
    std::string s;
    if (cp < 0x80) s += char(cp);
    else if (cp < 0x800) { s += char(0xC0 | (cp >> 6)); s += char(0x80 | (cp & 0x3F)); }
    else if (cp < 0x10000) { s += char(0xE0 | (cp >> 12)); s += char(0x80 | ((cp >> 6) & 0x3F)); s += char(0x80 | (cp & 0x3F)); }
    else { s += char(0xF0 | (cp >> 18)); s += char(0x80 | ((cp >> 12) & 0x3F)); s += char(0x80 | ((cp >> 6) & 0x3F)); s += char(0x80 | (cp & 0x3F)); }
    return s;
}
}  // namespace

CharData::CharData(const std::string& utf8, std::size_t t_max) {
    if (utf8.size() > kMaxBytes)
        fail("text: " + std::to_string(utf8.size()) + " bytes is more than the limit of " + std::to_string(kMaxBytes));
    const std::vector<char32_t> text = utf8_decode(utf8, "text");
    if (text.empty()) fail("text: the training text is empty");
    // both splits need a full window of t_max + 1 characters: 10 windows in all is the minimum
    const std::size_t need = 10 * (t_max + 1);
    if (text.size() < need)
        fail("text: " + std::to_string(text.size()) + " characters is too short for the context length tMax = " +
             std::to_string(t_max) + "; it needs at least " + std::to_string(need));
    chars_ = text;
    std::sort(chars_.begin(), chars_.end());
    chars_.erase(std::unique(chars_.begin(), chars_.end()), chars_.end());
    if (chars_.size() > kMaxVocab)
        fail("text: " + std::to_string(chars_.size()) + " distinct characters is more than the limit of " + std::to_string(kMaxVocab));
    if (chars_.size() < 2) fail("text: it needs at least 2 distinct characters");
    std::vector<int> ids(text.size());
    for (std::size_t i = 0; i < text.size(); ++i)
        ids[i] = int(std::lower_bound(chars_.begin(), chars_.end(), text[i]) - chars_.begin());
    const std::size_t n_train = text.size() * 9 / 10;
    train_.assign(ids.begin(), ids.begin() + long(n_train));
    val_.assign(ids.begin() + long(n_train), ids.end());
}

std::vector<int> CharData::encode(const std::string& utf8, const std::string& what) const {
    std::vector<int> ids;
    for (char32_t cp : utf8_decode(utf8, what)) {
        auto it = std::lower_bound(chars_.begin(), chars_.end(), cp);
        if (it == chars_.end() || *it != cp) fail(what + ": the character '" + utf8_encode(cp) + "' is not in the training text's vocabulary");
        ids.push_back(int(it - chars_.begin()));
    }
    return ids;
}

std::string CharData::decode(const std::vector<int>& ids) const {
    std::string s;
    for (int id : ids) s += utf8_encode(chars_[std::size_t(id)]);
    return s;
}

double CharData::unigram_entropy() const {
    std::vector<double> count(chars_.size(), 0.0);
    for (int id : train_) count[std::size_t(id)] += 1.0;
    double h = 0.0;
    for (double c : count)
        if (c > 0) { const double p = c / double(train_.size()); h -= p * std::log(p); }
    return h;
}

// ---- trainer ------------------------------------------------------------------------------------
CharTrainer::CharTrainer(const std::string& text, GptConfig cfg, TrainOptions opts)
    : data_(text, cfg.t_max), cfg_((cfg.vocab = data_.vocab(), cfg)), model_(cfg_), opts_(opts), batch_seed_(cfg.seed * 7919 + 17) {
    if (opts_.t < 1 || opts_.t > cfg_.t_max)
        fail("train: T = " + std::to_string(opts_.t) + " must be from 1 to tMax = " + std::to_string(cfg_.t_max));
    if (opts_.batch < 1 || opts_.batch > 256) fail("train: batch must be from 1 to 256, got " + std::to_string(opts_.batch));
    if (!(opts_.lr > 0 && opts_.lr < 1)) fail("train: lr must be in (0, 1), got " + detail::num(opts_.lr));
}

std::vector<int> CharTrainer::batch(const std::vector<int>& split, std::uint64_t seed, std::vector<int>& targets) const {
    detail::Rng rng(seed);
    const std::size_t B = opts_.batch, T = opts_.t;
    std::vector<int> x(B * T);
    targets.assign(B * T, 0);
    for (std::size_t b = 0; b < B; ++b) {
        const std::size_t start = rng.below(split.size() - T);
        for (std::size_t t = 0; t < T; ++t) {
            x[b * T + t] = split[start + t];
            targets[b * T + t] = split[start + t + 1];
        }
    }
    return x;
}

double CharTrainer::train_steps(std::size_t n) {
    if (n < 1 || n > 100000) fail("trainSteps: n must be from 1 to 100000, got " + std::to_string(n));
    double total = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<int> y;
        const std::vector<int> x = batch(data_.train(), batch_seed_ + model_.steps(), y);
        total += model_.forward(x, y, opts_.batch, opts_.t);
        model_.zero_grad();
        model_.backward();
        model_.adamw(opts_.lr, opts_.beta1, opts_.beta2, opts_.eps, opts_.weight_decay);
    }
    return total / double(n);
}

double CharTrainer::evaluate(bool validation, std::size_t batches) {
    if (batches < 1 || batches > 1000) fail("evaluate: batches must be from 1 to 1000, got " + std::to_string(batches));
    double total = 0.0;
    for (std::size_t i = 0; i < batches; ++i) {   // the same seeded batches every time: comparable curves
        std::vector<int> y;
        const std::vector<int> x = batch(validation ? data_.val() : data_.train(), 1000003 + i, y);
        total += model_.forward(x, y, opts_.batch, opts_.t);
    }
    return total / double(batches);
}

std::string CharTrainer::sample(const std::string& prompt, std::size_t length, double temperature, std::uint64_t seed) {
    if (length > 2000) fail("sample: length must be at most 2000, got " + std::to_string(length));
    if (!(temperature > 0.0 && temperature <= 10.0)) fail("sample: temperature must be in (0, 10], got " + detail::num(temperature));
    std::vector<int> ids = prompt.empty() ? std::vector<int>{} : data_.encode(prompt, "sample: prompt");
    if (ids.empty()) ids.push_back(data_.train()[0]);
    const std::size_t start = ids.size();
    detail::Rng rng(seed);
    for (std::size_t k = 0; k < length; ++k) {
        const std::size_t T = std::min(ids.size(), cfg_.t_max);
        std::vector<int> ctx(ids.end() - long(T), ids.end());
        model_.forward(ctx, {}, 1, T);
        const Tensor lg = model_.logits();
        const std::size_t V = cfg_.vocab;
        std::vector<double> p(V);
        double mx = -std::numeric_limits<double>::infinity();
        for (std::size_t v = 0; v < V; ++v) mx = std::max(mx, lg.data()[(T - 1) * V + v] / temperature);
        double sum = 0.0;
        for (std::size_t v = 0; v < V; ++v) sum += (p[v] = std::exp(lg.data()[(T - 1) * V + v] / temperature - mx));
        double u = rng.uniform() * sum;
        std::size_t pick = V - 1;
        for (std::size_t v = 0; v < V; ++v) { if (u < p[v]) { pick = v; break; } u -= p[v]; }
        ids.push_back(int(pick));
    }
    return data_.decode(std::vector<int>(ids.begin() + long(prompt.empty() ? start : 0), ids.end()));
}

std::vector<Tensor> CharTrainer::attention_maps(const std::string& text) {
    const std::vector<int> ids = data_.encode(text, "attention: text");
    if (ids.empty() || ids.size() > cfg_.t_max)
        fail("attention: text must have 1 to tMax = " + std::to_string(cfg_.t_max) + " characters, got " + std::to_string(ids.size()));
    model_.forward(ids, {}, 1, ids.size());
    std::vector<Tensor> maps;
    for (std::size_t l = 0; l < cfg_.layers; ++l) {
        Tensor a = model_.attention(l);   // (1, NH, T, T)
        a.reshape({cfg_.heads, ids.size(), ids.size()});
        maps.push_back(a);
    }
    return maps;
}

FutureCheck CharTrainer::future_check(const std::string& text, std::size_t t, std::uint64_t seed) {
    const std::vector<int> ids = data_.encode(text, "futureCheck: text");
    const std::size_t T = ids.size(), V = cfg_.vocab;
    if (T < 2 || T > cfg_.t_max)
        fail("futureCheck: text must have 2 to tMax = " + std::to_string(cfg_.t_max) + " characters, got " + std::to_string(T));
    if (t > T - 2) fail("futureCheck: t must be from 0 to T - 2 = " + std::to_string(T - 2) + ", got " + std::to_string(t));
    model_.forward(ids, {}, 1, T);
    const Tensor before = model_.logits();
    std::vector<int> changed = ids;
    detail::Rng rng(seed);
    for (std::size_t j = t + 1; j < T; ++j) changed[j] = int((std::size_t(ids[j]) + 1 + rng.below(V - 1)) % V);   // a different character
    model_.forward(changed, {}, 1, T);
    const Tensor after = model_.logits();
    FutureCheck r{0.0, 0.0, std::vector<double>(T, 0.0)};
    for (std::size_t i = 0; i < T; ++i) {
        for (std::size_t v = 0; v < V; ++v) r.per_position[i] = std::max(r.per_position[i], std::fabs(after.data()[i * V + v] - before.data()[i * V + v]));
        double& m = i <= t ? r.max_prefix_change : r.max_future_change;
        m = std::max(m, r.per_position[i]);
    }
    return r;
}

CharTrainer make_trainer(const std::string& text, const Options& opts) {
    detail::OptionReader r(opts, "createModel");
    GptConfig cfg;
    TrainOptions to;
    cfg.C = detail::to_index("createModel: option 'C'", r.number("C", 48), 1, 512);
    cfg.heads = detail::to_index("createModel: option 'heads'", r.number("heads", 4), 1, 512);
    cfg.layers = detail::to_index("createModel: option 'layers'", r.number("layers", 2), 1, 12);
    cfg.t_max = detail::to_index("createModel: option 'tMax'", r.number("tMax", 32), 1, 512);
    cfg.seed = detail::to_seed("createModel: option 'seed'", r.number("seed", 0));
    cfg.causal = r.boolean("causal", true);
    to.batch = detail::to_index("createModel: option 'batch'", r.number("batch", 8), 1, 256);
    to.t = detail::to_index("createModel: option 'T'", r.number("T", double(cfg.t_max)), 1, 512);
    to.lr = r.number("lr", 3e-3);
    r.finish();
    return CharTrainer(text, cfg, to);
}

// ---- whole-model gradient check ----------------------------------------------------------------
GptGradcheck gpt_gradcheck(std::uint64_t seed) {
    GptConfig cfg;
    cfg.vocab = 7; cfg.C = 8; cfg.heads = 2; cfg.layers = 2; cfg.t_max = 4; cfg.seed = seed;
    Gpt model(cfg);
    // larger weights than the 0.02 init, so that every path carries a visible gradient
    detail::Rng rng(seed + 1);
    for (double& p : model.params()) p += 0.3 * rng.normal();
    const std::size_t B = 2, T = 4;
    std::vector<int> x(B * T), y(B * T);
    for (std::size_t i = 0; i < B * T; ++i) { x[i] = int(rng.below(7)); y[i] = int(rng.below(7)); }
    model.forward(x, y, B, T);
    model.zero_grad();
    model.backward();
    const std::vector<double> analytic = model.grads();
    GptGradcheck r{true, 0.0, model.params().size()};
    const double eps = 1e-6;
    for (std::size_t i = 0; i < model.params().size(); ++i) {
        double& p = model.params()[i];
        const double saved = p;
        p = saved + eps;
        const double lp = model.forward(x, y, B, T);
        p = saved - eps;
        const double lm = model.forward(x, y, B, T);
        p = saved;
        const double numeric = (lp - lm) / (2 * eps);
        const double err = std::fabs(analytic[i] - numeric);
        r.max_abs_error = std::max(r.max_abs_error, err);
        if (!(err <= 1e-5 + 1e-3 * std::fabs(numeric))) r.passed = false;
    }
    return r;
}

}  // namespace attn
