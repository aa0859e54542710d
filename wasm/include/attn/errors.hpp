// The core's errors: a stable code plus named parameters, and a developer message built from them.
//
// Every rejected input throws attn::Error. Its code() says what went wrong (one of the codes
// below), params() carry the details (the function, the argument, expected and actual shapes or
// values, ...), and what() is an English message for developers built from those parameters.
// The JS API hands the same three to JavaScript (error.code, error.params, error.message), so a
// page can write its own message for each code in each language.
//
// The two tables below are the only place the codes and parameter names are declared; the JS API
// exports them (core.errorCodes, core.errorParams) so that message tables can be checked against
// them. A code's parameters are always all present, in the order listed.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace attn {

// Parameter names, each with one kind everywhere:
//   name   an identifier (a function, an argument path, an axis, a type): render it as code
//   text   a symbolic string (a layout such as "(B, T, C)", an interval, a character)
//   number a number (may be NaN or +/-Infinity where it is the offending value)
//   shape  a list of whole numbers, a tensor's shape: render as (2, 3)
//   index  a list of whole numbers, a position in a tensor: render as [0, 1]
//   list   a list of strings
// Argument paths are written as in JavaScript: x, opts.heads, x.data[3], dims[2].
#define ATTN_ERROR_PARAMS(P)                                                                                   \
    P(fn, name, "the function called, by its JS name (softmax, multiHeadAttention, createModel, trainSteps)")  \
    P(arg, name, "the argument, as a JS path: x, gradOut, opts.heads, opts.mask, x.data[3], dims[2]")         \
    P(other, name, "the argument (or result) the first one is compared with")                                 \
    P(shape, shape, "the argument's shape")                                                                    \
    P(otherShape, shape, "the shape of `other`")                                                               \
    P(expectedShape, shape, "the shape the argument must have")                                               \
    P(layout, text, "the expected layout in axis names, e.g. (B, T, C); alternatives are separated by ' | '; " \
                    "empty where any layout of the allowed ranks is fine")                                     \
    P(rank, number, "the argument's number of axes")                                                           \
    P(minRank, number, "the smallest number of axes allowed")                                                  \
    P(maxRank, number, "the largest number of axes allowed")                                                   \
    P(axis, name, "an axis by its name in the layout: B, T, C, D, d, dv, k, Tk")                               \
    P(otherAxis, number, "an axis of `other` by position; negative counts from the end (-1 is the last)")     \
    P(size, number, "the length the axis must have")                                                           \
    P(value, number, "the offending number")                                                                   \
    P(index, index, "where in the tensor (or in the shape) the offending value is")                            \
    P(min, number, "the smallest value allowed")                                                               \
    P(max, number, "the largest value allowed")                                                                \
    P(range, text, "the allowed interval in interval notation, e.g. [0, 1) or (0, Infinity)")                 \
    P(choice, text, "the offending string")                                                                    \
    P(choices, list, "the strings allowed")                                                                    \
    P(allowed, list, "values allowed besides finite numbers: -Infinity, NaN (often none)")                    \
    P(known, list, "the options the function knows")                                                          \
    P(expectedType, name, "what the argument must be: number, string, boolean, tensor, boolTensor, numbers, " \
                          "options, scale, mask, optionValue")                                                 \
    P(gotType, name, "what it was: undefined, null, number, string, boolean, bigint, symbol, function, "      \
                     "array, object, tensor, boolTensor or a typed array's name (Int32Array, ...)")           \
    P(elements, number, "a number of elements")                                                                \
    P(limit, number, "the limit that was exceeded")                                                            \
    P(heads, number, "the number of heads")                                                                    \
    P(width, number, "the width the heads must divide")                                                        \
    P(quantity, name, "what overflowed or what is limited: scores, outputs, projections, sums, products, "    \
                      "gradients, kept values, row sums, mean row sums, logits, draws")                        \
    P(formula, text, "how the quantity is computed, e.g. q.k * scale (may be empty)")                         \
    P(mask, name, "the mask kind: causal or tensor")                                                           \
    P(length, number, "a length: of a list, or of a text in characters (bytes for text_too_large)")           \
    P(T, number, "a number of positions")                                                                      \
    P(tMax, number, "the rows of a position table (the context length)")                                       \
    P(character, text, "the offending character")                                                              \
    P(byte, number, "a byte offset into a text")                                                               \
    P(vocab, number, "a number of distinct characters")                                                        \
    P(detail, text, "an English description (internal errors only)")

// Codes with their parameters (space-separated names from the table above), and when each is raised.
#define ATTN_ERROR_CODES(X)                                                                                        \
    /* tensors and shapes */                                                                                       \
    X(shape_axes, "fn arg rank maxRank", "a shape with no axis or more than maxRank axes")                         \
    X(shape_dim, "fn arg index value", "a shape entry that is not a whole number >= 1 (index = [axis])")          \
    X(shape_data, "fn arg shape elements length", "the shape needs `elements` values but the data has `length`")  \
    X(too_large, "fn arg layout shape elements limit", "a tensor (argument or intermediate) over the size limit")  \
    X(rank, "fn arg layout minRank maxRank shape rank", "a tensor with the wrong number of axes")                  \
    X(empty_axis, "fn arg layout shape", "a tensor with an axis of length 0")                                      \
    X(not_finite, "fn arg value index allowed", "NaN or +/-Infinity in a tensor")                                  \
    X(overflow, "fn quantity formula value index", "finite inputs whose result overflows float64")                \
    X(shape_mismatch, "fn arg layout expectedShape shape", "a tensor that must have exactly expectedShape")       \
    X(same_shape, "fn arg shape other otherShape", "two tensors that must have the same shape")                   \
    X(axis_mismatch, "fn arg layout axis size shape other otherAxis otherShape",                                   \
      "an axis that must match an axis of another tensor (e.g. wq's C and x's last axis)")                         \
    X(leading_axes, "fn arg shape other otherShape", "tensors that must share their leading (batch) axes")        \
    X(dim_range, "fn arg value min max other otherShape", "an axis number outside the tensor's axes")            \
    X(mask_rank, "fn arg mask shape", "a mask on scores with fewer than two axes")                                 \
    X(heads_not_dividing, "fn heads axis width", "a number of heads that does not divide the width")               \
    X(element_range, "fn arg value index range", "a tensor value outside the allowed interval")                   \
    /* numbers, strings and options */                                                                             \
    X(integer_range, "fn arg value min max", "a number that must be a whole number from min to max")              \
    X(number_range, "fn arg value range", "a number outside the allowed interval")                                 \
    X(length_range, "fn arg length min max", "a list with too few or too many entries")                            \
    X(not_one_of, "fn arg choice choices", "a string that is not one of the allowed choices")                      \
    X(scale_value, "fn arg choice choices", "a scale that is neither one of the named scales nor a number")       \
    X(wrong_type, "fn arg expectedType gotType", "a value of the wrong JS type")                                   \
    X(unknown_option, "fn arg known", "an option the function does not know")                                      \
    X(missing, "fn arg expectedType layout", "a required option not given")                                        \
    /* the lesson's own limits */                                                                                  \
    X(scale_needs_width, "fn", "scale 'model' where no model width C exists (sdpa)")                               \
    X(position_past_table, "fn T tMax", "more positions than a learned position table has rows")                   \
    X(self_attention_only, "fn arg", "a memory (cross-attention) given to a self-attention check")                 \
    X(no_future, "fn arg T", "fewer than 2 positions, so no future to change")                                     \
    X(t_past_end, "fn arg value max", "a position t with no position after it (max = T - 2)")                      \
    X(work_limit, "fn quantity value limit", "more random draws than allowed")                                     \
    X(gradcheck_size, "fn elements limit", "gradcheck inputs with more elements than it perturbs")                 \
    /* the character GPT */                                                                                        \
    X(text_too_large, "fn arg length limit", "a training text over the byte limit")                                \
    X(text_too_short, "fn arg length min tMax", "a training text too short for the context length")               \
    X(text_length, "fn arg length min max", "a text with too few or too many characters for the call")             \
    X(vocab_size, "fn arg vocab min max", "a training text with too few or too many distinct characters")         \
    X(bad_utf8, "fn arg byte", "a text that is not valid UTF-8")                                                   \
    X(char_not_in_vocab, "fn arg character", "a character the model was not trained on")                          \
    /* the boundary */                                                                                             \
    X(disposed, "fn", "a model used after dispose()")                                                              \
    X(out_of_memory, "fn", "arguments or results too large for the WebAssembly memory")                           \
    X(internal, "fn detail", "a bug: please report it")

enum class ErrorCode {
#define ATTN_X(code, params, doc) code,
    ATTN_ERROR_CODES(ATTN_X)
#undef ATTN_X
};

enum class ParamKind { name, text, number, shape, index, list };

struct ErrorCodeInfo {
    ErrorCode code;
    const char* name;
    std::vector<const char*> params;
    const char* doc;
};
struct ErrorParamInfo {
    const char* name;
    ParamKind kind;
    const char* doc;
};
const std::vector<ErrorCodeInfo>& error_codes();     // in declaration order
const std::vector<ErrorParamInfo>& error_params();
const char* kind_name(ParamKind k);                  // "name", "text", ...

// One parameter: a name from the table and its value.
struct ErrorParam {
    using Value = std::variant<double, std::string, std::vector<double>, std::vector<std::string>>;
    const char* name;
    Value value;
    template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
    ErrorParam(const char* n, T v) : name(n), value(double(v)) {}
    ErrorParam(const char* n, const char* v) : name(n), value(std::string(v)) {}
    ErrorParam(const char* n, std::string_view v) : name(n), value(std::string(v)) {}
    ErrorParam(const char* n, std::string v) : name(n), value(std::move(v)) {}
    ErrorParam(const char* n, const std::vector<std::size_t>& v) : name(n), value(std::vector<double>(v.begin(), v.end())) {}
    ErrorParam(const char* n, std::vector<double> v) : name(n), value(std::move(v)) {}
    ErrorParam(const char* n, std::vector<std::string> v) : name(n), value(std::move(v)) {}
};

// Every rejected input throws this. The parameters must be exactly the code's (a mismatch is a
// bug in the core and throws std::logic_error instead).
class Error : public std::invalid_argument {
public:
    Error(ErrorCode code, std::vector<ErrorParam> params);
    ErrorCode code() const { return code_; }
    const char* code_name() const;
    const std::vector<ErrorParam>& params() const { return params_; }
    const ErrorParam::Value& param(std::string_view name) const;   // throws std::out_of_range if absent
private:
    ErrorCode code_;
    std::vector<ErrorParam> params_;
};

}  // namespace attn
