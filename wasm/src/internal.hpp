// Internal helpers shared by the core's sources: the seeded generator, argument checks that
// raise coded errors, and the raw kernels that the public functions call after checking.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <list>
#include <string>
#include <string_view>
#include <vector>

#include "attn/attention.hpp"

namespace attn::detail {

// ---- Random numbers ------------------------------------------------------------------
// xoshiro256** seeded by splitmix64. Its integer output is fully specified by this code;
// the normal transform (Marsaglia's polar method) uses only +, -, *, / and sqrt, which are
// correctly rounded in IEEE-754, plus log_det below, so one seed gives bit-identical
// numbers under g++/glibc and Emscripten/musl (the standard library's distributions do not:
// docs/toolchain.md, item 7).
double log_det(double x);   // natural log for x > 0, from +, -, *, / only

class Rng {
public:
    explicit Rng(std::uint64_t seed);
    std::uint64_t next();
    double uniform();                 // [0, 1), 53 random bits
    double normal();                  // N(0, 1)
    std::size_t below(std::size_t n); // uniform integer in [0, n)
private:
    std::uint64_t s_[4];
    bool has_spare_ = false;
    double spare_ = 0.0;
};

// ---- Checks ----------------------------------------------------------------------------
// Each check throws attn::Error with its code and parameters (attn/errors.hpp). Names and shapes
// for a message are only gathered when a check fails: the checks run on every call.
std::string num(double v);     // 3, 0.5, 1e+300, NaN, Infinity

std::size_t product(const Shape& s);
Shape shape_of(const Tensor& t);
std::vector<double> multi_index(const Tensor& t, std::size_t flat);   // flat offset -> [i, j, ...]

// An argument: the function (its JS name) and the argument's JS path (x, opts.wq).
struct Name {
    std::string_view fn, arg;
};
// layout: the expected axes, e.g. "(B, T, C)", alternatives separated by " | "; "" for any.
void require_rank(Name name, const Tensor& t, std::size_t lo, std::size_t hi, const char* layout);
// +/-inf is never allowed but -inf where allow_neg_inf says (softmax scores may hold -inf); NaN
// only where allow_nan says (maxAbsDiff, sum, attentionStats inspect results with NaN rows).
void require_finite(Name name, const Tensor& t, bool allow_neg_inf = false, bool allow_nan = false);
// A tensor over kMaxElements (callers test the size first and call this to throw).
[[noreturn]] void too_large(Name name, const char* layout, const Shape& shape);
// Finite inputs can still overflow float64 on the way (1e200 * 1e200). Results are checked and an
// overflow is an Error naming the quantity (scores, outputs, ...), instead of returning inf or NaN.
void require_no_overflow(std::string_view fn, const char* quantity, const char* formula, const Tensor& t);
// The overflow error naming the first score that is not finite in `scores` (a kernel that kept no
// scores said one overflowed; detail::visible_scores computed them again, the masked ones 0).
[[noreturn]] void score_overflow(std::string_view fn, const Tensor& scores);
inline bool whole_in(double v, double lo, double hi) { return v >= lo && v <= hi && v == std::floor(v); }
std::size_t to_index(Name name, double v, std::size_t lo, std::size_t hi);   // whole number in [lo, hi]
// an axis number: a whole number from -kMaxRank to kMaxRank - 1 (the tensor's rank is checked later)
long to_dim(Name name, double v);
constexpr double kMaxSeed = 9007199254740991.0;   // 2^53 - 1: every whole number a JS number holds exactly
std::uint64_t to_seed(Name name, double v);
double scale_factor(const Scale& s, std::size_t hs, std::size_t C);

// ---- Options -------------------------------------------------------------------------
// Reads the values of an Options map by the function's OptionSet (attn/options.hpp). Each read
// names the option's declaration; a value of another kind than declared is a wrong_type error, a
// required option left out a missing one (with `layout` in its message), and finish() rejects
// every key the set does not declare (unknown_option, listing the set). Errors name the option as
// opts.<name>. Reading an option the set does not declare, or as another kind, and finishing with
// a declared option never read, are the core's own bugs: internal errors.
class OptionReader {
public:
    OptionReader(const Options& opts, std::string_view fn, const OptionSet& set);
    std::string_view fn() const { return fn_; }
    bool boolean(const OptionSpec& o, bool fallback);
    double number(const OptionSpec& o, double fallback);   // number or integer: the caller checks the range
    std::size_t index(const OptionSpec& o, double fallback, std::size_t lo, std::size_t hi);   // integer
    std::uint64_t seed(const OptionSpec& o);                                                   // integer, default 0
    std::string text(const OptionSpec& o, const std::string& fallback);                         // string
    std::string choice(const OptionSpec& o, const std::string& fallback);   // choice (or choice_or_mask): one of o.values
    const Tensor* tensor(const OptionSpec& o, const char* layout = "");      // a boolean tensor is read as 0.0 / 1.0
    const BoolTensor* mask(const OptionSpec& o);   // choice_or_mask given as a tensor of 0 and 1; else nullptr (read choice())
    Scale scale(const OptionSpec& o);              // number_or_choice
    void finish() const;
private:
    const Options& opts_;
    std::string_view fn_;
    const OptionSet& set_;
    std::vector<bool> read_;                 // per entry of the set
    std::list<Tensor> converted_;            // tensors read from boolean tensors and back (stable addresses)
    std::list<BoolTensor> converted_bool_;
    // the value given for o (nullptr when absent), after checking that o is read as it is declared
    const OptionValue* get(const OptionSpec& o, std::initializer_list<OptionKind> read_as, const char* layout = "");
    [[noreturn]] void wrong_type(const OptionSpec& o, const OptionValue& v) const;
};
// Reads opts by `set` with read(OptionReader&), then rejects what the set does not declare.
template <class Read>
auto read_options(const Options& opts, std::string_view fn, const OptionSet& set, Read&& read) {
    OptionReader r(opts, fn, set);
    auto value = read(r);
    r.finish();
    return value;
}
// A set followed by more options, or options followed by a set.
OptionSet joined(const OptionSet& first, std::initializer_list<const OptionSpec*> more);
OptionSet joined(std::initializer_list<const OptionSpec*> first, const OptionSet& more);
// sdpa's inputs as options: gradcheck's (kind 'sdpa') and explain's (sdpa, gradcheck)
inline constexpr OptionSpec kSdpaQ{"q", OptionKind::tensor, "sdpa's queries (..., Tq, d)", {}, true};
inline constexpr OptionSpec kSdpaK{"k", OptionKind::tensor, "sdpa's keys (..., Tk, d)", {}, true};
inline constexpr OptionSpec kSdpaV{"v", OptionKind::tensor, "sdpa's values (..., Tk, dv)", {}, true};
MhaOptions read_mha_options(OptionReader& r);          // mha_option_set()
SdpaOptions read_sdpa_options(OptionReader& r);        // sdpa_option_set()
SoftmaxOptions read_softmax_options(OptionReader& r);  // softmax_option_set()
AverageMethod read_average_method(OptionReader& r);    // causal_average_option_set()
PositionOptions read_position_options(OptionReader& r);        // positions_option_set()
PermutationOptions read_permutation_options(OptionReader& r);   // permutation_option_set()
// gradcheck_sdpa_option_set(), future_probe_option_set(), dropout_option_set()
struct GradcheckSdpaInputs { Tensor q, k, v; SdpaOptions opts; std::uint64_t seed; };
GradcheckSdpaInputs read_gradcheck_sdpa_options(OptionReader& r);
struct FutureProbeInputs { MhaOptions mha; std::size_t t; std::uint64_t seed; };
FutureProbeInputs read_future_probe_options(OptionReader& r);
struct DropoutInputs { double p; bool training; std::uint64_t seed; };
DropoutInputs read_dropout_options(OptionReader& r);
// dropout's p: in [0, 1), else number_range naming fn and opts.p
void check_dropout_p(const char* fn, double p);

// Shapes of q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv), checked with messages prefixed by fn.
struct SdpaDims { std::size_t N, Tq, Tk, d, dv; Shape lead; };
SdpaDims check_sdpa(const Tensor& q, const Tensor& k, const Tensor& v, const SdpaOptions& opts, std::string_view fn);

// Dropout with its keep mask given (0/1, x's shape): x * keep / (1 - p) in training, x itself in
// evaluation; dropout() draws the mask, diagnose's dropout check takes the student's.
Tensor dropout_kept(const Tensor& x, const Tensor& keep, double p, bool training);
// x * keep * factor: the kept entries scaled by factor, the dropped ones 0
Tensor scale_kept(const Tensor& x, const Tensor& keep, double factor);

// Central finite differences of `loss` at `inputs` against `analytic` (one gradient per input),
// with PyTorch's default eps 1e-6, atol 1e-5, rtol 1e-3. Exposed so tests can feed it a wrong
// gradient and see it fail.
GradcheckResult run_gradcheck(const std::vector<std::string>& names, std::vector<Tensor> inputs,
                              const std::function<double(const std::vector<Tensor>&)>& loss,
                              const std::vector<Tensor>& analytic);

// One numerical derivative of run_gradcheck: element i of inputs[a] moved by +eps and -eps (and
// restored), numeric = (plus - minus) / (2 eps). Shared with explain (18.7's provenance).
struct CentralDifference { double plus, minus, numeric; };
CentralDifference central_difference(std::vector<Tensor>& inputs, std::size_t a, std::size_t i, double eps,
                                     const std::function<double(const std::vector<Tensor>&)>& loss);
// futureProbe's changed input: x with every entry after position t moved by 1 + N(0, 1) (seeded).
Tensor changed_future(const Tensor& x, std::size_t t, std::uint64_t seed);
// gradcheck_sdpa's loss: L = sum(sdpa(q, k, v).out * G), summed in order over the flat index.
double sdpa_loss(const std::vector<Tensor>& qkv, const Tensor& G, const SdpaOptions& opts);

}  // namespace attn::detail
