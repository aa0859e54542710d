// Attention Lab core: causal self-attention in float64 on xtensor.
//
// This is the public C++ API. Every function here validates its arguments (shapes, ranks,
// option values, finiteness) and throws attn::Error (attn/errors.hpp): a code, parameters that
// name the argument and the expected and actual shape or value, and a message built from them.
// The kernels behind it assume valid input.
//
// Dimension names (llm.c / nanoGPT): B batch, T time, C channels (model width), NH heads,
// hs head size (hs = D / NH where D is the projected width), Tq / Tk query and key lengths.
// All tensors are row-major.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <xtensor/xarray.hpp>

#include "attn/errors.hpp"
#include "attn/options.hpp"

namespace attn {

using Tensor = xt::xarray<double>;             // row-major float64, any rank
using BoolTensor = xt::xarray<std::uint8_t>;   // 1 = allowed, 0 = masked
using Shape = std::vector<std::size_t>;

// Largest tensor (input, output or intermediate) the API accepts: 2^22 float64 = 32 MiB.
constexpr std::size_t kMaxElements = std::size_t(1) << 22;
// gradcheck perturbs every input element twice; bound its total work.
constexpr std::size_t kMaxGradcheckElements = 4096;
// dotProductVariance and dropoutStats: random draws per call.
constexpr double kMaxDraws = 5e7;

std::string shape_str(const Shape& s);   // "(2, 3, 4)"

// ---------------------------------------------------------------------------------------
// Options as they arrive from JavaScript: a flat map of plain values. Each function that
// takes options has an overload on Options that reads them by its OptionSet (attn/options.hpp,
// declared below beside the function: `..._option_set()`), rejects unknown keys and wrong types,
// then calls the typed overload. This is the only place options are checked.
using OptionValue = std::variant<bool, double, std::string, Tensor, BoolTensor>;
using Options = std::map<std::string, OptionValue>;

// A shape as JS gives it (numbers), checked: integers >= 1, rank 1..kMaxRank, product equal
// to `length` and at most kMaxElements. fn and arg name the function and argument for errors.
constexpr std::size_t kMaxRank = 6;
Shape checked_shape(std::string_view fn, std::string_view arg, const std::vector<double>& dims, std::size_t length);
Shape checked_shape(std::string_view fn, std::string_view arg, const std::vector<double>& dims);   // a shape alone
// A seed as JS gives it, checked: a whole number from 0 to 2^53 - 1.
std::uint64_t checked_seed(std::string_view fn, std::string_view arg, double seed);

// ---------------------------------------------------------------------------------------
// Random numbers: one seed gives the same numbers natively and in WebAssembly (the normal
// transform is ours, not the standard library's; see docs/toolchain.md, item 7).
Tensor randn(const Shape& shape, std::uint64_t seed, double stddev = 1.0);   // N(0, stddev^2)

// ---------------------------------------------------------------------------------------
// 18.1 Averaging the past.
enum class AverageMethod { Loop, Matrix, Softmax };
// x: (T, C) or (B, T, C) -> same shape; out[t] = mean of x[0..t].
Tensor causal_average(const Tensor& x, AverageMethod method);
Tensor causal_average(const Tensor& x, const Options& opts);
const OptionSet& causal_average_option_set();   // method
// (T, T): row-normalized lower triangle (normalize) or plain lower-triangular ones.
Tensor averaging_matrix(std::size_t T, bool normalize);
Tensor averaging_matrix(double T, const Options& opts);
const OptionSet& averaging_matrix_option_set();   // normalize
// max |a - b| over all elements; a and b must have the same shape. NaN if either has NaN.
double max_abs_diff(const Tensor& a, const Tensor& b);

// Sum along one axis (negative counts from the end): the shape without that axis ((1,) for a vector).
Tensor sum_along(const Tensor& x, long dim);   // named so ADL cannot pick xt::sum
Tensor sum_along(const Tensor& x, const Options& opts);
const OptionSet& sum_option_set();   // dim
// a (..., n, k) x b (..., k, m) -> (..., n, m); leading axes equal, or one operand 2-D and
// broadcast over the other's leading axes (A (T, T) times X (B, T, C)).
Tensor matmul(const Tensor& a, const Tensor& b);
// (Tq, Tk) of 1 (allowed) and 0 (masked): j <= i when causal (top-left aligned), else all 1.
Tensor mask_matrix(std::size_t Tq, std::size_t Tk, bool causal);
Tensor mask_matrix(double Tq, double Tk, const Options& opts);
const OptionSet& mask_matrix_option_set();   // causal

// ---------------------------------------------------------------------------------------
// 18.2 Masked softmax.
enum class MaskKind { None, Causal, Explicit };
enum class MaskOrder { Before, After };
struct SoftmaxOptions {
    long dim = -1;                 // any axis, negative counts from the end
    MaskKind mask = MaskKind::None;
    BoolTensor mask_tensor;        // (Tq, Tk) when mask == Explicit, broadcast over leading axes
    MaskOrder order = MaskOrder::Before;
};
struct SoftmaxResult {
    Tensor weights;                // same shape as scores
    // Rows (indices over the non-`dim` axes) with no allowed entry: NaN under Before
    // (no valid denominator), all zeros under After.
    std::vector<std::vector<std::size_t>> masked_rows;
};
// scores: 1-D to 4-D. Masks act on the last two axes (j <= i for causal, top-left aligned
// when the two lengths differ, as in PyTorch). Before: fill -inf, then softmax (right).
// After: softmax, then zero masked entries (rows no longer sum to 1). -inf scores count as
// masked; NaN and +inf are rejected.
SoftmaxResult softmax(const Tensor& scores, const SoftmaxOptions& opts);
SoftmaxResult softmax(const Tensor& scores, const Options& opts);
const OptionSet& softmax_option_set();   // dim, mask, maskOrder

// ---------------------------------------------------------------------------------------
// Scale applied to Q K^T.
struct Scale {
    enum class Kind { Head, Model, None, Value };
    Kind kind = Kind::Head;   // Head: 1/sqrt(hs); Model: 1/sqrt(C); None: 1; Value: `value`
    double value = 1.0;
    double factor(std::size_t hs, std::size_t C) const;
};

// 18.3 Scaled dot-product attention.
struct SdpaOptions {
    bool causal = false;
    Scale scale;              // Head or Value (Model needs a model width: use multi_head_attention)
};
struct SdpaResult {
    Tensor out;       // (..., Tq, dv)
    Tensor weights;   // (..., Tq, Tk)
    Tensor scores;    // (..., Tq, Tk), scaled, before masking and softmax
};
// q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv); leading axes equal.
SdpaResult sdpa(const Tensor& q, const Tensor& k, const Tensor& v, const SdpaOptions& opts);
SdpaResult sdpa(const Tensor& q, const Tensor& k, const Tensor& v, const Options& opts);
// The same attention from a deliberately plain implementation (full score matrix, -inf fill,
// textbook softmax, matrix product): 18.7's reference comparison. Returns out and weights.
SdpaResult sdpa_reference(const Tensor& q, const Tensor& k, const Tensor& v, const SdpaOptions& opts);
SdpaResult sdpa_reference(const Tensor& q, const Tensor& k, const Tensor& v, const Options& opts);

struct SdpaGrads { Tensor dq, dk, dv; };
// Analytic backward of sdpa for the upstream gradient grad_out (..., Tq, dv). Its forward keeps the
// weights alone (no scores, no output): a masked score that overflows is no error here.
SdpaGrads sdpa_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& grad_out,
                        const SdpaOptions& opts);
SdpaGrads sdpa_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& grad_out,
                        const Options& opts);
const OptionSet& sdpa_option_set();   // causal, scale: sdpa, sdpa_reference and sdpa_backward

// nn.Linear stores its weight as (out, in) = (d, C); the math layout is (C, d). Transpose.
Tensor linear_weight_to_math(const Tensor& w);
Tensor math_weight_to_linear(const Tensor& w);

// ---------------------------------------------------------------------------------------
// 18.3 / 18.4 / 18.6 Multi-head attention (no output projection).
struct MhaOptions {
    Tensor wq, wk, wv;        // (C, D) math layout; head h owns columns h*hs .. (h+1)*hs-1
    std::size_t heads = 1;
    bool causal = false;
    Scale scale;              // Head = 1/sqrt(hs), Model = 1/sqrt(C), None, Value
    bool has_memory = false;
    Tensor memory;            // (B, Tin, C): keys and values come from here (cross-attention)
};
struct MhaResult {
    Tensor out;       // (B, T, D)
    Tensor weights;   // (B, NH, T, Tk)
    Tensor scores;    // (B, NH, T, Tk), scaled, before masking
    Tensor q, k, v;   // (B, T, D), (B, Tk, D), (B, Tk, D)
};
// x (B, T, C) -> every result above.
MhaResult multi_head_attention(const Tensor& x, const MhaOptions& opts);
// x (B, T, C) -> out (B, T, D) alone, bit for bit multi_head_attention's out: the (B, NH, T, Tk)
// scores and weights are never made (one row of Tk at a time) and the masked scores are not
// computed, so a score that overflows is an error only where a key is visible. Errors name
// multiHeadAttention (JS reaches this through its option results: 'out').
Tensor multi_head_attention_out(const Tensor& x, const MhaOptions& opts);
// x (B, T, C) and the multi-head options, plus results: 'all' (the default) or 'out' (out alone:
// the other tensors of the result are empty, rank 0).
MhaResult multi_head_attention(const Tensor& x, const Options& opts);
const OptionSet& multi_head_attention_option_set();   // the multi-head options (mha_option_set) and results

struct MhaGrads { Tensor dx, dwq, dwk, dwv, dmemory; };  // dmemory empty unless cross
// Its forward keeps q, k, v and the weights alone, as sdpa_backward.
MhaGrads multi_head_attention_backward(const Tensor& x, const Tensor& grad_out, const MhaOptions& opts);
MhaGrads multi_head_attention_backward(const Tensor& x, const Tensor& grad_out, const Options& opts);
const OptionSet& mha_option_set();   // wq, wk, wv, heads, causal, scale, memory: the backward's, and the forward's with results

// ---------------------------------------------------------------------------------------
// 18.4 Statistics.
struct RowStats { Tensor entropy, max_weight; };   // shape of weights without its last axis
RowStats attention_stats(const Tensor& weights);    // natural-log entropy per row

struct DotVariance { std::vector<double> dims, unscaled, scaled; };
// For each d: variance of q.k over `samples` seeded draws of q, k ~ N(0, I_d), and of q.k/sqrt(d).
DotVariance dot_product_variance(const std::vector<double>& dims, double samples, double seed);
DotVariance dot_product_variance(const std::vector<double>& dims, const Options& opts);
const OptionSet& dot_product_variance_option_set();   // samples, seed

struct Sharpening {
    Tensor weights;         // softmax(factor * logits)
    Tensor jacobian;        // (n, n): diag(p) - p p^T
    double jacobian_norm;   // Frobenius norm
    double entropy;
    double max_weight;
};
Sharpening softmax_sharpening(const Tensor& logits, double factor);

// ---------------------------------------------------------------------------------------
// 18.5 Positions.
enum class PositionKind { Learned, Sinusoidal };
struct PositionOptions { std::size_t t_max = 64; std::uint64_t seed = 0; };
// (T, C). Learned: the first T rows of a seeded (tMax, C) table (N(0, 1) entries); T > tMax is
// an error. Sinusoidal: PE[t, 2i] = sin(t / 10000^(2i/C)), PE[t, 2i+1] = cos(same).
Tensor positions(PositionKind kind, std::size_t T, std::size_t C, const PositionOptions& opts);
Tensor positions(const std::string& kind, double T, double C, const Options& opts);
const OptionSet& positions_option_set();   // tMax, seed

struct PermutationOptions {
    MhaOptions mha;
    bool use_positions = false;
    PositionKind position_kind = PositionKind::Learned;
    PositionOptions pos;      // pos.seed seeds the learned table (option 'positionSeed')
    std::uint64_t seed = 0;   // seeds the permutation (option 'seed'); never the identity for T >= 2
};
struct PermutationResult {
    double max_diff;
    std::vector<std::size_t> perm;   // row t of P x is row perm[t] of x
    Tensor permuted_input;           // P x + pos (B, T, C)
    Tensor out_of_permuted;          // attn(P x + pos) (B, T, D)
    Tensor permuted_out;             // P attn(x + pos) (B, T, D)
};
// max |attn(P x + pos) - P attn(x + pos)| for a seeded permutation P of the T axis, uniformly
// random among those that are not the identity (T >= 2).
PermutationResult permutation_check(const Tensor& x, const PermutationOptions& opts);
PermutationResult permutation_check(const Tensor& x, const Options& opts);
const OptionSet& permutation_option_set();   // the multi-head options, positions, tMax, seed, positionSeed

// ---------------------------------------------------------------------------------------
// 18.7 Checks.
// max_ratio: the worst |analytic - numeric| / (atol + rtol * |numeric|); the input passes when <= 1.
struct GradcheckInput { std::string name; double max_abs_error; double max_ratio; bool passed; };
struct GradcheckResult {
    bool passed;
    double eps, atol, rtol;
    std::vector<GradcheckInput> inputs;
};
// Central finite differences of L = sum(out * G) (G seeded N(0, 1)) against the analytic
// backward, with PyTorch's default tolerances: |analytic - numeric| <= atol + rtol * |numeric|.
GradcheckResult gradcheck_sdpa(const Tensor& q, const Tensor& k, const Tensor& v,
                               const SdpaOptions& opts, std::uint64_t seed);
GradcheckResult gradcheck_mha(const Tensor& x, const MhaOptions& opts, std::uint64_t seed);
// kind "sdpa": inputs {q, k, v, causal, scale, seed}; kind "mha": {x, wq, wk, wv, heads, ...}.
GradcheckResult gradcheck(const std::string& kind, const Options& opts);
const OptionSet& gradcheck_sdpa_option_set();   // q, k, v, causal, scale, seed
const OptionSet& gradcheck_mha_option_set();    // x, the multi-head options, seed

struct FutureProbeResult {
    double max_prefix_change;   // over positions <= t: exactly 0 with the causal mask
    double max_future_change;   // over positions > t
    Tensor change;              // |out' - out|, (B, T, D)
};
// Replace x at positions > t by seeded different values and compare the outputs.
FutureProbeResult future_probe(const Tensor& x, const MhaOptions& opts, std::size_t t, std::uint64_t seed);
FutureProbeResult future_probe(const Tensor& x, const Options& opts);
const OptionSet& future_probe_option_set();   // the multi-head options, t, seed

// Inverted dropout: in training each entry is kept with probability 1 - p and scaled by
// 1 / (1 - p); in evaluation the input comes back unchanged.
Tensor dropout(const Tensor& x, double p, bool training, std::uint64_t seed);
Tensor dropout(const Tensor& x, const Options& opts);
const OptionSet& dropout_option_set();   // p, training, seed
struct DropoutStats { Tensor sample_row_sums, mean_row_sums; };
// Row sums (over the last axis) of one dropout sample, and their mean over `samples` samples,
// in training mode or in evaluation (where dropout is the identity: every sample is the weights).
DropoutStats dropout_stats(const Tensor& weights, double p, std::size_t samples, std::uint64_t seed, bool training = true);
DropoutStats dropout_stats(const Tensor& weights, const Options& opts);
const OptionSet& dropout_stats_option_set();   // p, samples, seed, training

// ---------------------------------------------------------------------------------------
// Provenance: how one cell of a result was computed, with the core's own numbers, in the core's
// own order, so that the explanation's value is bit-identical to the cell.
struct Explanation {
    enum class Kind { Sum, Softmax, Sinusoid, Copy, AbsDiff, Dropout };
    Kind kind = Kind::Sum;
    // Sum: value = (sum of terms) * scale / divisor, terms[i] = left[i] * right[i] (terms[i] =
    // left[i] when right is empty: a plain sum). source[i] is the term's position along the summed
    // axis (c for a projection or a score, j for an output or an average). The terms are added in
    // order from 0.0, or, when pairwise, the even-numbered and odd-numbered terms in two running
    // sums that are added at the end (the core's dot product).
    std::vector<double> left, right, terms;
    std::vector<std::size_t> source;
    bool pairwise = false;
    double sum = 0.0, scale = 1.0, divisor = 1.0;
    // Softmax of the row (or column) through the cell: exps[j] = exp(scores[j] - max) for the
    // allowed entries and 0 for the masked ones (mask before the softmax); with the mask after,
    // every finite score has its exp and the masked ones are zeroed after the division. value =
    // exps[target] / denominator (0 for a masked target after). max and denominator are NaN for a
    // row with nothing to normalize.
    std::vector<double> scores, exps;
    std::vector<std::uint8_t> masked;
    double max = 0.0, denominator = 0.0;
    std::size_t target = 0;
    bool mask_after = false;
    // A gradient of gradcheck (Sum, sequential): dQ[t, i] = sum over j of dS[t, j] K[j, i] and
    // dK[j, i] = sum over t of dS[t, j] Q[t, i], left = the dS of each term, right = K or Q, where
    // dS[t, j] = A[t, j] * (dA[t, j] - rowdot[t]) * grad_scale, dA[t, j] = dY[t] . V[j] (pairwise)
    // and rowdot[t] = sum over l of dA[t, l] A[t, l] (sequential): grad_weight, grad_dweight and
    // grad_rowdot per term. dV[j, c] = sum over t of A[t, j] dY[t, c] (left = A, right = dY). The
    // core skips a term whose dS is exactly 0 (adding it would not change the sum).
    std::vector<double> grad_weight, grad_dweight, grad_rowdot;
    double grad_scale = 1.0;
    // and gradcheck's numerical derivative of the same entry: numeric = (loss_plus - loss_minus) / (2 eps)
    bool has_numeric = false;
    double loss_plus = 0.0, loss_minus = 0.0, eps = 0.0, numeric = 0.0;
    // Sinusoid: value = sin(angle) for an even column, cos(angle) (cosine) for an odd one, angle =
    // position / power, power = 10000^(pair / width) (pair = 2i, the even column of the pair).
    double position = 0.0, pair = 0.0, width = 0.0, power = 0.0, angle = 0.0;
    bool cosine = false;
    // Copy: value = left[0], the cell at index `from` of another tensor (the fn's doc says which).
    std::vector<std::size_t> from;
    // AbsDiff: value = |left[0] - left[1]|.
    // Dropout: value = left[0] / (1 - p) when kept (draw >= p), 0 when dropped; left[0] itself in
    // evaluation (training false) or at p = 0. scale = 1 / (1 - p); draw = the entry's uniform draw.
    double draw = 0.0, p = 0.0;
    bool kept = true, training = true;
    double value = 0.0;   // the cell, bit for bit
};
// fn and quantity: "multiHeadAttention" q | k | v (at [b, t, i]), scores | weights (at
// [b, h, t, j]), out ([b, t, i]); "sdpa" scores | weights | out (at [..., t, j] / [..., t, c]);
// "causalAverage" out (at [t, c] or [b, t, c]); "softmax" weights (at an index of scores);
// "matmul" out (at [..., i, j]);
// "positions" out (at [t, c]; opts {kind, T, C, tMax, seed}: Sinusoid, or Copy of the learned table's
// [t, c]); "permutationCheck" (opts as permutationCheck takes them) permutedInput (at [b, t, c]: Sum
// of x[b, perm[t], c] and pos[t, c], source = [perm[t], t]), out (attn(x + pos), not returned by
// permutationCheck but shown beside it: an mha output sum), outOfPermuted (an mha output sum over
// P x + pos), permutedOut (Copy of attn(x + pos) at from = [b, perm[t], e]); "gradcheck" dq | dk | dv
// (kind sdpa: opts {q, k, v, causal, scale, seed}; at an index of q, k or v: the analytic gradient
// of L = sum(out * G), G = randn(out's shape, seed), and the numerical one); "futureProbe" change
// (at [b, t, e], AbsDiff of the changed and the original output); "dropout" out (at an index of x).
// opts: the function's inputs by name (x; q, k, v; scores; a, b) and its own options, as the function
// takes them. The function is run as it is (same checks, same errors) and its cell is compared
// with the explanation's value; a difference is an internal error.
Explanation explain(const std::string& fn, const std::string& quantity, const std::vector<double>& at, const Options& opts);
// The options explain reads for each function it explains, in the order of the list above: the
// function's inputs by name, then its own options.
struct ExplainedOptions { const char* fn; const OptionSet* options; };
const std::vector<ExplainedOptions>& explain_option_sets();

}  // namespace attn
