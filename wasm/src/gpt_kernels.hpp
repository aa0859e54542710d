// The kernels the character GPT adds to the lab's (llm.c style: plain loops on flat row-major
// buffers, forward and backward side by side, backward accumulates into its gradients). Its
// attention is not here: it calls the lab's sdpa kernels (internal.hpp). No checks: the model
// (gpt_model.cpp) has checked every shape before it calls these.
//
// Names: B batch, T time, C model width, NH heads, hs = C / NH, V vocabulary, BT = B * T rows.
#pragma once

#include <cstddef>

namespace attn::detail {

// out[b, t] = wte[tok[b, t]] + wpe[t]: tok (B, T), wte (V, C), wpe (tMax, C) -> out (B, T, C)
void encoder_forward(double* out, const int* tok, const double* wte, const double* wpe, std::size_t B, std::size_t T, std::size_t C);
// dwte[tok[b, t]] += dout[b, t], dwpe[t] += dout[b, t]
void encoder_backward(double* dwte, double* dwpe, const double* dout, const int* tok, std::size_t B, std::size_t T, std::size_t C);

// LayerNorm over the last axis, eps 1e-5, biased variance (divide by C), as torch.nn.LayerNorm:
// out = (x - mean) / sqrt(var + eps) * w + b: inp (BT, C), w, b (C) -> out (BT, C); keeps mean
// and rstd = 1 / sqrt(var + eps) per row (BT) for backward.
void layernorm_forward(double* out, double* mean, double* rstd, const double* inp, const double* w, const double* bias, std::size_t BT, std::size_t C);
void layernorm_backward(double* dinp, double* dw, double* db, const double* dout, const double* inp, const double* w,
                        const double* mean, const double* rstd, std::size_t BT, std::size_t C);

// out = inp W + b: inp (BT, IC), W (IC, OC) in math layout, b (OC) -> out (BT, OC)
void linear_forward(double* out, const double* inp, const double* w, const double* bias, std::size_t BT, std::size_t IC, std::size_t OC);
// dinp += dout W^T, dW += inp^T dout, db += the column sums of dout
void linear_backward(double* dinp, double* dw, double* db, const double* dout, const double* inp, const double* w,
                     std::size_t BT, std::size_t IC, std::size_t OC);

// Multi-head self-attention on the packed projections qkv (B, T, 3C) = [q | k | v], head h in
// columns h*hs .. (h+1)*hs-1 of each third, scaled by 1/sqrt(hs), causal or not: the lab's
// sdpa kernels reading the heads in place. out (B, T, C) with the heads side by side; att
// (B, NH, T, T) the attention weights, kept for backward; scores (B, NH, T, T) = q.k / sqrt(hs)
// before the mask, kept only when not null (a block trace; training does not keep them).
void attention_forward(double* out, double* att, double* scores, const double* qkv, std::size_t B, std::size_t T, std::size_t C,
                       std::size_t NH, bool causal);
// dqkv (B, T, 3C) += the gradients of q, k and v, given dout (B, T, C) and att from the forward
void attention_backward(double* dqkv, const double* dout, const double* qkv, const double* att, std::size_t B, std::size_t T,
                        std::size_t C, std::size_t NH, bool causal);

// GELU, tanh approximation (GPT-2's, torch's approximate='tanh'), elementwise on n values:
// gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
void gelu_forward(double* out, const double* inp, std::size_t n);
void gelu_backward(double* dinp, const double* inp, const double* dout, std::size_t n);   // dinp += gelu'(inp) dout

// out = a + b, n values (the residual connections; their backward copies the gradient to both)
void residual_forward(double* out, const double* a, const double* b, std::size_t n);

// probs = softmax of each row of logits (rows, V), max subtracted first
void softmax_rows(double* probs, const double* logits, std::size_t rows, std::size_t V);
// mean over the rows of -ln probs[row, targets[row]]: probs (rows, V), targets (rows)
double crossentropy_forward(const double* probs, const int* targets, std::size_t rows, std::size_t V);
// dlogits = (probs - onehot(targets)) / rows: the gradient of the mean cross-entropy through the softmax
void crossentropy_softmax_backward(double* dlogits, const double* probs, const int* targets, std::size_t rows, std::size_t V);

// AdamW (Loshchilov and Hutter), step t >= 1, on n parameters: m and v are the moment estimates,
// bias-corrected by 1 - beta^t; weight decay is decoupled (added to the update, not to the gradient):
// p -= lr * (m_hat / (sqrt(v_hat) + eps) + weight_decay * p)
void adamw_update(double* params, const double* grads, double* m, double* v, std::size_t n, std::size_t t, double lr,
                  double beta1, double beta2, double eps, double weight_decay);

}  // namespace attn::detail
