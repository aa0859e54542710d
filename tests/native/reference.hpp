// Naive references: written from the formulas, independently of the core's kernels (no max
// subtraction, explicit index arithmetic, no shared helpers). The tests compare the core to them.
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

}  // namespace ref
