// Provenance: one cell of a result, explained with the core's own terms in the core's own order
// (the page's "where does this number come from" panel). The functions explained are in
// explain_*.cpp (explain.hpp lists them); here are the parts they share and explain() itself,
// which picks the function's explanation from one list.
#include <cstring>

#include "explain.hpp"

namespace attn {

namespace provenance {

std::vector<std::size_t> checked_at(const std::vector<double>& at, const Shape& shape) {
    if (at.size() != shape.size())
        throw Error(ErrorCode::length_range, {{"fn", kFn}, {"arg", "at"}, {"length", at.size()}, {"min", shape.size()}, {"max", shape.size()}});
    std::vector<std::size_t> ix(at.size());
    for (std::size_t a = 0; a < at.size(); ++a)
        ix[a] = detail::to_index({kFn, "at[" + std::to_string(a) + "]"}, at[a], 0, shape[a] - 1);
    return ix;
}

std::size_t flat(const Shape& shape, const std::vector<std::size_t>& ix) {
    std::size_t f = 0;
    for (std::size_t a = 0; a < shape.size(); ++a) f = f * shape[a] + ix[a];
    return f;
}

std::size_t group(const Shape& shape, const std::vector<std::size_t>& ix) {
    return flat(Shape(shape.begin(), shape.end() - 2), std::vector<std::size_t>(ix.begin(), ix.end() - 2));
}

void one_of(const std::string& quantity, std::initializer_list<const char*> choices) {
    for (const char* c : choices)
        if (quantity == c) return;
    throw Error(ErrorCode::not_one_of, {{"fn", kFn}, {"arg", "quantity"}, {"choice", quantity},
                                        {"choices", std::vector<std::string>(choices.begin(), choices.end())}});
}

Explanation dot(const double* a, std::size_t sa, const double* b, std::size_t sb, std::size_t n, bool pairwise, double scale) {
    Explanation e;
    e.pairwise = pairwise;
    e.scale = scale;
    double s0 = 0.0, s1 = 0.0;
    for (std::size_t c = 0; c < n; ++c) {
        const double x = a[c * sa], y = b[c * sb], p = x * y;
        e.left.push_back(x);
        e.right.push_back(y);
        e.terms.push_back(p);
        e.source.push_back(c);
        if (pairwise && c % 2 == 1) s1 += p;
        else s0 += p;
    }
    e.sum = pairwise ? s0 + s1 : s0;
    e.value = scale == 1.0 ? e.sum : e.sum * scale;
    return e;
}

Explanation checked(Explanation e, double cell, const std::string& what) {
    if (std::memcmp(&e.value, &cell, sizeof(double)) == 0 || (std::isnan(e.value) && std::isnan(cell))) return e;
    throw Error(ErrorCode::internal, {{"fn", kFn}, {"detail", "the explanation of " + what + " differs from the cell"}});
}

namespace {
// The functions explain explains, in the order its error lists them.
const Explained* const kExplained[] = {&kMha, &kSdpa, &kAverage, &kSoftmax, &kMatmul, &kPositions, &kPermutation, &kGradcheck, &kProbe, &kDropout};
}  // namespace

}  // namespace provenance

Explanation explain(const std::string& fn, const std::string& quantity, const std::vector<double>& at, const Options& opts) {
    for (const provenance::Explained* e : provenance::kExplained)
        if (fn == e->fn) return e->explain(quantity, at, opts);
    std::vector<std::string> choices;
    for (const provenance::Explained* e : provenance::kExplained) choices.push_back(e->fn);
    throw Error(ErrorCode::not_one_of, {{"fn", provenance::kFn}, {"arg", "fn"}, {"choice", fn}, {"choices", choices}});
}

const std::vector<ExplainedOptions>& explain_option_sets() {
    static const std::vector<ExplainedOptions> sets = [] {
        std::vector<ExplainedOptions> s;
        for (const provenance::Explained* e : provenance::kExplained) s.push_back({e->fn, &e->options()});
        return s;
    }();
    return sets;
}

}  // namespace attn
