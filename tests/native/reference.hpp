// Naive references: written from the formulas, independently of the core's kernels (no max
// subtraction, explicit index arithmetic, no shared helpers). The tests compare the core to them:
// attention (sdpa, multi-head), softmax, finite differences, and the character GPT.
#pragma once

#include <cmath>
#include <doctest/doctest.h>

#include <functional>
#include <vector>

#include "attn/attention.hpp"

namespace ref {

using attn::Shape;
using attn::Tensor;

inline double max_abs(const Tensor& a, const Tensor& b) {
    REQUIRE(a.shape() == b.shape());
    double m = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a.data()[i] - b.data()[i]));
    return m;
}

// A = softmax(scale * Q K^T + M) V for one (T, d) slice per leading index; the mask multiplies
// the exponentials by 0 instead of filling -inf.
struct Attn { Tensor out, weights; };
inline Attn sdpa(const Tensor& q, const Tensor& k, const Tensor& v, bool causal, double scale) {
    const std::size_t r = q.dimension();
    const std::size_t Tq = q.shape()[r - 2], d = q.shape()[r - 1], Tk = k.shape()[r - 2], dv = v.shape()[r - 1];
    const std::size_t N = q.size() / (Tq * d);
    Shape os(q.shape().begin(), q.shape().end()), ws = os;
    os.back() = dv;
    ws.back() = Tk;
    Attn res{Tensor::from_shape(os), Tensor::from_shape(ws)};
    for (std::size_t n = 0; n < N; ++n)
        for (std::size_t i = 0; i < Tq; ++i) {
            std::vector<double> e(Tk);
            double z = 0;
            for (std::size_t j = 0; j < Tk; ++j) {
                double s = 0;
                for (std::size_t c = 0; c < d; ++c) s += q.data()[(n * Tq + i) * d + c] * k.data()[(n * Tk + j) * d + c];
                e[j] = (causal && j > i) ? 0.0 : std::exp(scale * s);
                z += e[j];
            }
            for (std::size_t j = 0; j < Tk; ++j) res.weights.data()[(n * Tq + i) * Tk + j] = e[j] / z;
            for (std::size_t c = 0; c < dv; ++c) {
                double y = 0;
                for (std::size_t j = 0; j < Tk; ++j) y += e[j] / z * v.data()[(n * Tk + j) * dv + c];
                res.out.data()[(n * Tq + i) * dv + c] = y;
            }
        }
    return res;
}

// Multi-head attention head by head: head h reads columns h*hs .. (h+1)*hs-1 of x wq, etc.
inline Attn mha(const Tensor& x, const Tensor& wq, const Tensor& wk, const Tensor& wv, std::size_t NH,
                bool causal, double scale, const Tensor* memory = nullptr) {
    const Tensor& src = memory ? *memory : x;
    const std::size_t B = x.shape()[0], T = x.shape()[1], C = x.shape()[2], D = wq.shape()[1], hs = D / NH;
    const std::size_t Tk = src.shape()[1];
    Attn res{Tensor::from_shape({B, T, D}), Tensor::from_shape({B, NH, T, Tk})};
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < NH; ++h) {
            Tensor qh = Tensor::from_shape({T, hs}), kh = Tensor::from_shape({Tk, hs}), vh = Tensor::from_shape({Tk, hs});
            for (std::size_t e = 0; e < hs; ++e) {
                const std::size_t col = h * hs + e;
                for (std::size_t t = 0; t < T; ++t) {
                    double s = 0;
                    for (std::size_t c = 0; c < C; ++c) s += x(b, t, c) * wq(c, col);
                    qh(t, e) = s;
                }
                for (std::size_t t = 0; t < Tk; ++t) {
                    double sk = 0, sv = 0;
                    for (std::size_t c = 0; c < C; ++c) { sk += src(b, t, c) * wk(c, col); sv += src(b, t, c) * wv(c, col); }
                    kh(t, e) = sk;
                    vh(t, e) = sv;
                }
            }
            const Attn a = sdpa(qh, kh, vh, causal, scale);
            for (std::size_t t = 0; t < T; ++t) {
                for (std::size_t e = 0; e < hs; ++e) res.out(b, t, h * hs + e) = a.out(t, e);
                for (std::size_t j = 0; j < Tk; ++j) res.weights(b, h, t, j) = a.weights(t, j);
            }
        }
    return res;
}

// Plain softmax of a 1-D vector, no max subtraction.
inline std::vector<double> softmax(const std::vector<double>& s) {
    std::vector<double> e(s.size());
    double z = 0;
    for (std::size_t i = 0; i < s.size(); ++i) z += (e[i] = std::exp(s[i]));
    for (double& v : e) v /= z;
    return e;
}

// Central differences of f with step h, one element at a time.
inline Tensor numeric_grad(Tensor x, const std::function<double(const Tensor&)>& f, double h = 1e-5) {
    Tensor g = Tensor::from_shape(x.shape());
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double s = x.data()[i];
        x.data()[i] = s + h;
        const double a = f(x);
        x.data()[i] = s - h;
        const double b = f(x);
        x.data()[i] = s;
        g.data()[i] = (a - b) / (2 * h);
    }
    return g;
}

inline double dot(const Tensor& a, const Tensor& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a.data()[i] * b.data()[i];
    return s;
}

// ---- the character GPT, from the textbook definitions -------------------------------------------
// Reads a flat parameter buffer in the documented GPT-2 order (gpt.hpp), with offsets computed here
// and not taken from the model. Weights are in math layout (in, out): y = x W + b.
struct Gpt {
    std::size_t V, C, NH, L, tmax;
    bool causal;
    const std::vector<double>& p;
    std::size_t wte = 0, wpe, ln1w, ln1b, qkvw, qkvb, attprojw, attprojb, ln2w, ln2b, fcw, fcb, fcprojw, fcprojb, lnfw, lnfb, total;

    Gpt(std::size_t V_, std::size_t C_, std::size_t NH_, std::size_t L_, std::size_t tmax_, bool causal_, const std::vector<double>& params)
        : V(V_), C(C_), NH(NH_), L(L_), tmax(tmax_), causal(causal_), p(params) {
        wpe = wte + V * C;
        ln1w = wpe + tmax * C;
        ln1b = ln1w + L * C;
        qkvw = ln1b + L * C;
        qkvb = qkvw + L * C * 3 * C;
        attprojw = qkvb + L * 3 * C;
        attprojb = attprojw + L * C * C;
        ln2w = attprojb + L * C;
        ln2b = ln2w + L * C;
        fcw = ln2b + L * C;
        fcb = fcw + L * C * 4 * C;
        fcprojw = fcb + L * 4 * C;
        fcprojb = fcprojw + L * 4 * C * C;
        lnfw = fcprojb + L * C;
        lnfb = lnfw + C;
        total = lnfb + C;
    }

    // LayerNorm of each row of x (rows, C): mean, biased variance (divide by C), eps 1e-5
    std::vector<double> layernorm(const std::vector<double>& x, std::size_t w, std::size_t b) const {
        std::vector<double> y(x.size());
        for (std::size_t r = 0; r < x.size() / C; ++r) {
            double mean = 0, var = 0;
            for (std::size_t c = 0; c < C; ++c) mean += x[r * C + c] / double(C);
            for (std::size_t c = 0; c < C; ++c) var += (x[r * C + c] - mean) * (x[r * C + c] - mean) / double(C);
            for (std::size_t c = 0; c < C; ++c) y[r * C + c] = (x[r * C + c] - mean) / std::sqrt(var + 1e-5) * p[w + c] + p[b + c];
        }
        return y;
    }
    // x (rows, in) W (in, out) + b (out)
    std::vector<double> linear(const std::vector<double>& x, std::size_t in, std::size_t out, std::size_t w, std::size_t b) const {
        const std::size_t rows = x.size() / in;
        std::vector<double> y(rows * out);
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t o = 0; o < out; ++o) {
                double s = p[b + o];
                for (std::size_t i = 0; i < in; ++i) s += x[r * in + i] * p[w + i * out + o];
                y[r * out + o] = s;
            }
        return y;
    }
    // GELU, the tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    static double gelu(double x) {
        const double pi = 3.141592653589793;
        return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / pi) * (x + 0.044715 * x * x * x)));
    }

    // Every intermediate of one block (B = 1), in the shapes of the core's block trace.
    struct Trace {
        std::vector<double> ln1, q, k, v, scores, weights, heads, proj, residual, ln2, fc, gelu, fcproj;   // q, k, v (NH, T, hs); scores, weights (NH, T, T)
    };
    // One block l on the residual stream x (B, T, C): x + proj(attn(ln1 x)), then + mlp(ln2 .).
    // att, when given, receives the attention weights (B, NH, T, T); trace (B = 1 only) every stage.
    std::vector<double> block(const std::vector<double>& x, std::size_t B, std::size_t T, std::size_t l, std::vector<double>* att = nullptr,
                              Trace* trace = nullptr) const {
        const std::size_t hs = C / NH;
        const std::vector<double> h = layernorm(x, ln1w + l * C, ln1b + l * C);
        const std::vector<double> qkv = linear(h, C, 3 * C, qkvw + l * C * 3 * C, qkvb + l * 3 * C);   // (B, T, 3C)
        std::vector<double> y(B * T * C);
        if (att) att->assign(B * NH * T * T, 0.0);
        if (trace) {
            REQUIRE(B == 1);
            trace->ln1 = h;
            trace->q.clear(); trace->k.clear(); trace->v.clear(); trace->scores.clear(); trace->weights.clear();
        }
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t hh = 0; hh < NH; ++hh) {
                Tensor q = Tensor::from_shape({T, hs}), k = Tensor::from_shape({T, hs}), v = Tensor::from_shape({T, hs});
                for (std::size_t t = 0; t < T; ++t)
                    for (std::size_t e = 0; e < hs; ++e) {
                        const std::size_t row = (b * T + t) * 3 * C;
                        q(t, e) = qkv[row + hh * hs + e];
                        k(t, e) = qkv[row + C + hh * hs + e];
                        v(t, e) = qkv[row + 2 * C + hh * hs + e];
                    }
                const Attn a = sdpa(q, k, v, causal, 1.0 / std::sqrt(double(hs)));   // scaled by 1/sqrt(hs)
                if (trace) {
                    trace->q.insert(trace->q.end(), q.begin(), q.end());
                    trace->k.insert(trace->k.end(), k.begin(), k.end());
                    trace->v.insert(trace->v.end(), v.begin(), v.end());
                    trace->weights.insert(trace->weights.end(), a.weights.begin(), a.weights.end());
                    for (std::size_t t = 0; t < T; ++t)   // q_t . k_j / sqrt(hs), every j (before the mask)
                        for (std::size_t j = 0; j < T; ++j) {
                            double s = 0;
                            for (std::size_t e = 0; e < hs; ++e) s += q(t, e) * k(j, e);
                            trace->scores.push_back(s / std::sqrt(double(hs)));
                        }
                }
                for (std::size_t t = 0; t < T; ++t) {
                    for (std::size_t e = 0; e < hs; ++e) y[(b * T + t) * C + hh * hs + e] = a.out(t, e);
                    if (att)
                        for (std::size_t j = 0; j < T; ++j) (*att)[((b * NH + hh) * T + t) * T + j] = a.weights(t, j);
                }
            }
        const std::vector<double> proj = linear(y, C, C, attprojw + l * C * C, attprojb + l * C);
        std::vector<double> x2(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) x2[i] = x[i] + proj[i];
        const std::vector<double> h2 = layernorm(x2, ln2w + l * C, ln2b + l * C);
        std::vector<double> f = linear(h2, C, 4 * C, fcw + l * C * 4 * C, fcb + l * 4 * C);
        for (double& u : f) u = gelu(u);
        const std::vector<double> m = linear(f, 4 * C, C, fcprojw + l * 4 * C * C, fcprojb + l * C);
        std::vector<double> x3(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) x3[i] = x2[i] + m[i];
        if (trace) {
            trace->heads = y; trace->proj = proj; trace->residual = x2; trace->ln2 = h2; trace->gelu = f; trace->fcproj = m;
            trace->fc = linear(h2, C, 4 * C, fcw + l * C * 4 * C, fcb + l * 4 * C);
        }
        return x3;
    }

    // wte[tokens] + wpe[t]: (B, T, C)
    std::vector<double> embed(const std::vector<int>& tok, std::size_t B, std::size_t T) const {
        std::vector<double> x(B * T * C);
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t t = 0; t < T; ++t)
                for (std::size_t c = 0; c < C; ++c) x[(b * T + t) * C + c] = p[wte + std::size_t(tok[b * T + t]) * C + c] + p[wpe + t * C + c];
        return x;
    }

    // logits (B, T, V) through every block, the final LayerNorm and the head tied to wte
    std::vector<double> logits(const std::vector<int>& tok, std::size_t B, std::size_t T) const {
        std::vector<double> x = embed(tok, B, T);
        for (std::size_t l = 0; l < L; ++l) x = block(x, B, T, l);
        const std::vector<double> h = layernorm(x, lnfw, lnfb);
        std::vector<double> z(B * T * V);
        for (std::size_t r = 0; r < B * T; ++r)
            for (std::size_t v = 0; v < V; ++v) {
                double s = 0;
                for (std::size_t c = 0; c < C; ++c) s += h[r * C + c] * p[wte + v * C + c];
                z[r * V + v] = s;
            }
        return z;
    }

    // mean over positions of -ln softmax(z)[target] = ln sum exp(z) - z[target]
    double loss(const std::vector<double>& z, const std::vector<int>& targets) const {
        double total_loss = 0;
        for (std::size_t r = 0; r < targets.size(); ++r) {
            double se = 0;
            for (std::size_t v = 0; v < V; ++v) se += std::exp(z[r * V + v]);
            total_loss += std::log(se) - z[r * V + std::size_t(targets[r])];
        }
        return total_loss / double(targets.size());
    }
};

inline double max_abs(const std::vector<double>& a, const double* b) {
    double m = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
    return m;
}

}  // namespace ref
