// "Check my numbers": a student's own tensor, printed by their PyTorch or NumPy code for the
// inputs a section shows, compared with the core's result, and with the results of the known
// mistakes that the chapter warns about, each computed by the core for the same inputs (the mask
// after the softmax, the softmax over the wrong axis, 1/sqrt(C) or no scale, a mask off by one,
// an average not normalised, positions added after attention, ...).
//
// A check names what was computed (not a page section): causalAverage (18.1), softmax (18.2),
// attention (18.3, 18.4, 18.6: multi-head attention's out, weights or scores), positions (18.5),
// sdpaBackward and dropout (18.7). docs/api.md, "Check my numbers", lists each check's inputs and
// mistakes.
#pragma once

#include <string>
#include <vector>

#include "attn/attention.hpp"

namespace attn {

struct DiagnoseInputs {
    Tensor x, wq, wk, wv;             // attention, positions: x (B, T, C), weights (C, D) math layout
    Tensor memory;                    // attention: (B, Tin, C) for cross-attention
    bool has_memory = false;
    std::size_t heads = 1;
    bool causal = true;
    Tensor scores;                    // softmax: (..., T, T)
    Tensor pos;                       // positions: (T, C), added to x
    Tensor q, k, v, grad_out;         // sdpaBackward
    Tensor weights, keep;             // dropout: the weights (..., T, T) and the keep mask (0 or 1, the same shape)
    double p = 0;                     // dropout: the probability of dropping, in [0, 1)
    bool training = true;             // dropout: false: evaluation, the identity
    std::string quantity;             // attention: out | weights | scores; sdpaBackward: dq | dk | dv
};

// How close two tensors are: within float64 rounding, within float32 rounding, within the
// precision the student's text was printed to (its resolution), or not at all.
enum class MatchLevel { None, Float64, Float32, Printed };
const char* match_level_name(MatchLevel m);   // "none", "float64", "float32", "printed"

struct DiagnoseCandidate {
    std::string id;                   // "correct" or a mistake's id
    MatchLevel level = MatchLevel::None;
    double max_diff = 0;              // max |student - candidate| (NaN where one is NaN and the other not)
    bool distinct = true;             // false: for these inputs it equals the correct result
};

struct Diagnosis {
    std::string verdict;              // correct | mistake | unknown | shape
    MatchLevel level = MatchLevel::None;   // of the correct result or of the matched mistake
    std::vector<std::string> mistakes;     // the mistakes the student's tensor matches
    std::vector<std::string> same_as_correct;   // mistakes these inputs cannot tell from the right result
    Tensor expected;                  // the core's result
    Shape shape;                      // the student's tensor's shape as given
    std::string shape_note;           // "" | transposed (the last two axes swapped) | leading_ones
    Tensor diff;                      // student - expected, in expected's shape (empty if the shapes differ)
    double max_diff = 0;
    std::vector<std::size_t> first_wrong;   // the first cell (row-major) outside float32 and printed precision
    std::vector<DiagnoseCandidate> candidates;
};

// The student's values (any shape) with, per value, half a unit of its last printed digit
// (`resolution`, the same number of values as `student`, or empty: the values are exact).
Diagnosis diagnose(const std::string& check, const DiagnoseInputs& in, const Tensor& student, const Tensor& resolution);

// The same with everything in options, as JS calls it: core.diagnose(check, student, opts), opts
// holding the check's inputs by name (x, wq, wk, wv, heads, causal, memory; scores; pos; q, k, v,
// gradOut; weights, keep, p, training), `quantity` (attention) or `gradient` (sdpaBackward) and the
// student's `resolution` (parse-tensor.js gives it).
Diagnosis diagnose(const std::string& check, const Tensor& student, const Options& opts);
const OptionSet& diagnose_option_set();

// The mistakes a check knows, in the order they are tried.
const std::vector<std::string>& diagnose_mistakes(const std::string& check);

}  // namespace attn
