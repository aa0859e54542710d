// "Check my numbers", the comparison (diagnose_compare.cpp): how a student's tensor is laid out
// against the core's result, and at which level of agreement it equals a candidate. diagnose.cpp
// builds the candidates and uses these to judge them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "attn/diagnose.hpp"
#include "internal.hpp"

namespace attn::detail {

// the last two axes swapped (K^T, W^T)
Tensor swap_last(const Tensor& t);

// A student's tensor (and the resolution of each printed value) laid out like `expected`: as
// given, without leading axes of length 1 ("leading_ones"), or with its last two axes swapped
// ("transposed", a forgotten transpose). ok is false when none of these fits.
struct Aligned {
    Tensor values, resolution;
    std::string note;
    bool ok = false;
};
Aligned align(const Tensor& student, const Tensor& resolution, const Tensor& expected);

// The loosest level any cell of `s` (with its resolution `res`) needs to equal `ref`: float64
// (1e-10 relative to 1 + |ref|), float32 (2e-5), printed (the value's half unit in its last
// printed digit, plus the float32 allowance), or none; and the largest difference (NaN when a NaN
// or an infinity is not matched).
std::pair<MatchLevel, double> compare(const Tensor& s, const Tensor& res, const Tensor& ref);

// The index of the first cell of `s` that no level accepts (empty if there is none).
std::vector<std::size_t> first_wrong(const Tensor& s, const Tensor& res, const Tensor& ref);

}  // namespace attn::detail
