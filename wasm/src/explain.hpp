// Provenance (explain): the parts the explanations share (explain.cpp) and, per source file, the
// functions explained: explain_attention.cpp (multiHeadAttention, sdpa), explain_softmax.cpp
// (causalAverage, matmul, softmax), explain_positions.cpp (positions, permutationCheck),
// explain_counterexamples.cpp (gradcheck, futureProbe, dropout). Each explanation repeats, for a
// single cell, exactly the arithmetic of the kernel that produced it, and is checked against the
// cell bit for bit.
#pragma once

#include <string>
#include <vector>

#include "internal.hpp"

namespace attn::provenance {

inline constexpr const char* kFn = "explain";

// The inputs of the functions explained, as explain takes them in its options (each set of a
// function explained names the ones it reads; `x` is several functions').
inline constexpr OptionSpec kX{"x", OptionKind::tensor,
                        "the input x of the function explained (multiHeadAttention, permutationCheck, futureProbe: (B, T, C); "
                        "causalAverage: (T, C) or (B, T, C); dropout: any shape)",
                        {}, true};
// sdpa's (and gradcheck's) q, k, v: detail::kSdpaQ, kSdpaK, kSdpaV

// One function explain explains: its name, the options it reads (its inputs, then its own
// options) and its explanation of the cell at `at` of `quantity`.
struct Explained {
    const char* fn;
    const OptionSet& (*options)();
    Explanation (*explain)(const std::string& quantity, const std::vector<double>& at, const Options& opts);
};

// ---- shared (explain.cpp) ---------------------------------------------------------------------
// `at` as indices into a tensor of `shape`: as many as its axes, each a whole number in range.
std::vector<std::size_t> checked_at(const std::vector<double>& at, const Shape& shape);
std::size_t flat(const Shape& shape, const std::vector<std::size_t>& ix);
// the flat index of the (Tq, Tk)-like group of ix, over every axis but the last two
std::size_t group(const Shape& shape, const std::vector<std::size_t>& ix);
// quantity must be one of choices (a not_one_of error otherwise)
void one_of(const std::string& quantity, std::initializer_list<const char*> choices);
// A dot product of n terms a[c * sa] * b[c * sb] as the kernels add them: sequential from 0.0
// (gemm_acc, the output sum) or pairwise (dot2).
Explanation dot(const double* a, std::size_t sa, const double* b, std::size_t sb, std::size_t n, bool pairwise, double scale);
// The explanation's value must be the cell itself, bit for bit (NaN for NaN); else an internal error.
Explanation checked(Explanation e, double cell, const std::string& what);

// ---- explain_attention.cpp --------------------------------------------------------------------
// A cell of multi_head_attention(x, o) (also the attention outputs of 18.5's permutation check)
Explanation mha_cell(const Tensor& x, const MhaOptions& o, const std::string& quantity, const std::vector<double>& at,
                     const std::string& what);
extern const Explained kMha, kSdpa;
// ---- explain_softmax.cpp ----------------------------------------------------------------------
extern const Explained kAverage, kMatmul, kSoftmax;
// ---- explain_positions.cpp --------------------------------------------------------------------
extern const Explained kPositions, kPermutation;
// ---- explain_counterexamples.cpp --------------------------------------------------------------
extern const Explained kGradcheck, kProbe, kDropout;

}  // namespace attn::provenance
