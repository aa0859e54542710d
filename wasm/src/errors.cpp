// The error tables (declared in attn/errors.hpp) and the English developer messages, one per code.
#include <cmath>
#include <cstdio>
#include <cstring>

#include "attn/attention.hpp"
#include "internal.hpp"

namespace attn {

const std::vector<ErrorParamInfo>& error_params() {
    static const std::vector<ErrorParamInfo> t = {
#define ATTN_P(n, kind, doc) {#n, ParamKind::kind, doc},
        ATTN_ERROR_PARAMS(ATTN_P)
#undef ATTN_P
    };
    return t;
}

const std::vector<ErrorCodeInfo>& error_codes() {
    static const std::vector<ErrorCodeInfo> t = [] {
        std::vector<ErrorCodeInfo> v = {
#define ATTN_X(c, params, doc) {ErrorCode::c, #c, {}, doc},
            ATTN_ERROR_CODES(ATTN_X)
#undef ATTN_X
        };
        const char* lists[] = {
#define ATTN_X(c, params, doc) params,
            ATTN_ERROR_CODES(ATTN_X)
#undef ATTN_X
        };
        // parameter names point into the params table's own (static) names
        for (std::size_t i = 0; i < v.size(); ++i) {
            std::string s(lists[i]);
            std::size_t at = 0;
            while (at < s.size()) {
                const std::size_t end = std::min(s.find(' ', at), s.size());
                const std::string name = s.substr(at, end - at);
                const char* found = nullptr;
                for (const auto& p : error_params())
                    if (name == p.name) found = p.name;
                if (!found) throw std::logic_error("errors.hpp: code " + std::string(v[i].name) + " names an undeclared parameter " + name);
                v[i].params.push_back(found);
                at = end + 1;
            }
        }
        return v;
    }();
    return t;
}

const char* kind_name(ParamKind k) {
    switch (k) {
        case ParamKind::name: return "name";
        case ParamKind::text: return "text";
        case ParamKind::number: return "number";
        case ParamKind::shape: return "shape";
        case ParamKind::index: return "index";
        case ParamKind::list: return "list";
    }
    return "";
}

namespace {

// Reads parameters by name and renders them for the English message.
struct P {
    const std::vector<ErrorParam>& params;
    const ErrorParam::Value& at(const char* n) const {
        for (const auto& p : params)
            if (std::strcmp(p.name, n) == 0) return p.value;
        throw std::logic_error(std::string("attn::Error: no parameter ") + n);
    }
    std::string s(const char* n) const { return std::get<std::string>(at(n)); }
    double d(const char* n) const { return std::get<double>(at(n)); }
    std::string num(const char* n) const { return detail::num(d(n)); }
    const std::vector<double>& v(const char* n) const { return std::get<std::vector<double>>(at(n)); }
    const std::vector<std::string>& l(const char* n) const { return std::get<std::vector<std::string>>(at(n)); }
    std::string shape(const char* n) const { return shape_str(Shape(v(n).begin(), v(n).end())); }
    std::string index(const char* n) const {
        std::string out = "[";
        for (std::size_t i = 0; i < v(n).size(); ++i) out += (i ? ", " : "") + detail::num(v(n)[i]);
        return out + "]";
    }
    // 'a', 'b' or 'c'
    std::string quoted(const char* n) const {
        const auto& xs = l(n);
        std::string out;
        for (std::size_t i = 0; i < xs.size(); ++i) out += (i == 0 ? "" : i + 1 == xs.size() ? " or " : ", ") + ("'" + xs[i] + "'");
        return out;
    }
    std::string joined(const char* n) const {
        std::string out;
        for (const auto& x : l(n)) out += (out.empty() ? "" : ", ") + x;
        return out;
    }
    // "(T, C) | (B, T, C)" -> "(T, C) or (B, T, C)"
    std::string layout() const {
        std::string out = s("layout");
        for (std::size_t at; (at = out.find(" | ")) != std::string::npos;) out.replace(at, 3, " or ");
        return out;
    }
    std::string fn_arg() const { return s("fn") + ": " + s("arg"); }
};

// what an argument must be (expectedType) and what it was (gotType), in English
std::string want_phrase(const std::string& t) {
    if (t == "number") return "a number";
    if (t == "string") return "a string";
    if (t == "boolean") return "true or false";
    if (t == "tensor") return "a tensor {shape: number[], data: Float64Array}";
    if (t == "boolTensor") return "a boolean tensor {shape: number[], data: Uint8Array of 0/1}";
    if (t == "numbers") return "an array of numbers";
    if (t == "options") return "a plain object of options";
    if (t == "scale") return "'head', 'model', 'none' or a number";
    if (t == "mask") return "'none', 'causal' or a boolean (Tq, Tk) tensor";
    if (t == "optionValue") return "a boolean, number, string or tensor";
    return t;
}

std::string got_phrase(const std::string& t) {
    if (t == "undefined" || t == "null") return t;
    if (t == "boolTensor") return "a boolean tensor";
    return std::string(std::strchr("aeiou", t.empty() ? 'x' : t[0]) ? "an " : "a ") + t;
}

std::string axis_phrase(double a) {
    if (a == -1) return "the last axis";
    if (a == -2) return "the second-to-last axis";
    if (a == 0) return "the first axis";
    return "axis " + detail::num(a);
}

std::string english(ErrorCode code, const std::vector<ErrorParam>& params) {
    const P p{params};
    switch (code) {
        case ErrorCode::shape_axes:
            return p.fn_arg() + ": shape must have 1 to " + p.num("maxRank") + " axes, got " + p.num("rank");
        case ErrorCode::shape_dim:
            return p.fn_arg() + ": shape" + p.index("index") + " must be a whole number >= 1, got " + p.num("value");
        case ErrorCode::shape_data:
            return p.fn_arg() + ": shape " + p.shape("shape") + " needs " + p.num("elements") + " values, data has " + p.num("length");
        case ErrorCode::too_large:
            return p.fn_arg() + " " + (p.s("layout").empty() ? "" : p.layout() + " = ") + p.shape("shape") + " has " + p.num("elements") +
                   " elements, more than the limit of " + p.num("limit");
        case ErrorCode::rank:
            return p.fn_arg() + ": expected " +
                   (p.s("layout").empty() ? "a tensor of rank " + p.num("minRank") + " to " + p.num("maxRank") : p.layout()) +
                   ", got shape " + p.shape("shape") + " (rank " + p.num("rank") + ")";
        case ErrorCode::empty_axis:
            return p.fn_arg() + ": expected " + (p.s("layout").empty() ? std::string("a tensor") : p.layout()) +
                   " with no empty axis, got shape " + p.shape("shape");
        case ErrorCode::not_finite: {
            std::string also;
            for (const auto& a : p.l("allowed")) also += " or " + a;
            return p.fn_arg() + ": every value must be a finite number" + also + ", got " + p.num("value") + " at " + p.index("index");
        }
        case ErrorCode::overflow:
            return p.s("fn") + ": the " + p.s("quantity") + (p.s("formula").empty() ? "" : " " + p.s("formula")) + " overflow float64 (" +
                   p.num("value") + " at " + p.index("index") + "): the inputs are too large in magnitude";
        case ErrorCode::shape_mismatch:
            return p.fn_arg() + " must have shape " + p.layout() + " = " + p.shape("expectedShape") + ", got " + p.shape("shape");
        case ErrorCode::same_shape:
            return p.fn_arg() + " must have the same shape as " + p.s("other") + " " + p.shape("otherShape") + ", got " + p.shape("shape");
        case ErrorCode::axis_mismatch:
            return p.fn_arg() + " must have shape " + p.layout() + " with " + p.s("axis") + " = " + p.num("size") + " (" +
                   axis_phrase(p.d("otherAxis")) + " of " + p.s("other") + " " + p.shape("otherShape") + "), got " + p.shape("shape");
        case ErrorCode::leading_axes:
            return p.fn_arg() + " " + p.shape("shape") + " and " + p.s("other") + " " + p.shape("otherShape") +
                   " must share their leading axes (or one of them be 2-D where broadcasting is allowed)";
        case ErrorCode::dim_range:
            return p.fn_arg() + " must be in [" + p.num("min") + ", " + p.num("max") + "] for " + p.s("other") + " of shape " +
                   p.shape("otherShape") + ", got " + p.num("value");
        case ErrorCode::mask_rank:
            return p.s("fn") + ": mask '" + p.s("mask") + "' acts on the last two axes and needs " + p.s("arg") +
                   " of rank >= 2, got shape " + p.shape("shape");
        case ErrorCode::heads_not_dividing:
            return p.s("fn") + ": heads = " + p.num("heads") + " does not divide the " + (p.s("axis") == "D" ? "projected " : "") +
                   "width " + p.s("axis") + " = " + p.num("width");
        case ErrorCode::element_range:
            return p.fn_arg() + ": every value must lie in " + p.s("range") + ", got " + p.num("value") + " at " + p.index("index");
        case ErrorCode::integer_range:
            return p.fn_arg() + " must be a whole number from " + p.num("min") + " to " + p.num("max") + ", got " + p.num("value");
        case ErrorCode::number_range:
            return p.fn_arg() + " must be in " + p.s("range") + ", got " + p.num("value");
        case ErrorCode::length_range:
            return p.fn_arg() + " must have " + p.num("min") + " to " + p.num("max") + " entries, got " + p.num("length");
        case ErrorCode::not_one_of:
            return p.fn_arg() + " must be " + p.quoted("choices") + ", got '" + p.s("choice") + "'";
        case ErrorCode::scale_value:
            return p.fn_arg() + " must be " + p.quoted("choices") + " or a number, got '" + p.s("choice") + "'";
        case ErrorCode::wrong_type:
            return p.fn_arg() + " must be " + want_phrase(p.s("expectedType")) + ", got " + got_phrase(p.s("gotType"));
        case ErrorCode::unknown_option:
            return p.s("fn") + ": unknown option " + p.s("arg") + " (known: " + (p.l("known").empty() ? "none" : p.joined("known")) + ")";
        case ErrorCode::missing:
            return p.fn_arg() + " is required: " + want_phrase(p.s("expectedType")) + (p.s("layout").empty() ? "" : " " + p.layout());
        case ErrorCode::scale_needs_width:
            return p.s("fn") + ": scale 'model' needs the model width C; use multiHeadAttention, or pass a number";
        case ErrorCode::position_past_table:
            return p.s("fn") + ": T = " + p.num("T") + " is past the learned table's tMax = " + p.num("tMax") +
                   " rows; a learned table has no row for position " + p.num("tMax");
        case ErrorCode::self_attention_only:
            return p.s("fn") + ": self-attention only; remove " + p.s("arg");
        case ErrorCode::no_future:
            return p.fn_arg() + " needs T >= 2 positions so that a future exists, got T = " + p.num("T");
        case ErrorCode::t_past_end:
            return p.fn_arg() + " must be from 0 to T - 2 = " + p.num("max") + " so that positions after t exist, got t = " + p.num("value");
        case ErrorCode::work_limit:
            return p.s("fn") + ": " + p.s("quantity") + " = " + p.num("value") + " is more than the limit of " + p.num("limit");
        case ErrorCode::gradcheck_size:
            return p.s("fn") + ": the inputs have " + p.num("elements") + " elements; gradcheck perturbs each one, so it is limited to " +
                   p.num("limit");
        case ErrorCode::text_too_large:
            return p.fn_arg() + " has " + p.num("length") + " bytes, more than the limit of " + p.num("limit");
        case ErrorCode::text_too_short:
            return p.fn_arg() + " has " + p.num("length") + " characters, too short for the context length tMax = " + p.num("tMax") +
                   " (it needs at least " + p.num("min") + ")";
        case ErrorCode::text_length:
            return p.fn_arg() + " must have " + p.num("min") + " to " + p.num("max") + " characters, got " + p.num("length");
        case ErrorCode::vocab_size:
            return p.fn_arg() + " has " + p.num("vocab") + " distinct characters; a vocabulary needs " + p.num("min") + " to " + p.num("max");
        case ErrorCode::bad_utf8:
            return p.fn_arg() + ": not valid UTF-8 at byte " + p.num("byte");
        case ErrorCode::char_not_in_vocab:
            return p.fn_arg() + ": the character '" + p.s("character") + "' is not in the training text's vocabulary";
        case ErrorCode::disposed:
            return p.s("fn") + ": this model was disposed";
        case ErrorCode::out_of_memory:
            return p.s("fn") + ": the arguments or the result are too large for this tab's WebAssembly memory";
        case ErrorCode::internal:
            return p.s("fn") + ": internal error: " + p.s("detail");
    }
    return "unknown error";
}

// The parameters must be exactly the code's, each of its name's kind.
void check_params(ErrorCode code, const std::vector<ErrorParam>& params) {
    const ErrorCodeInfo& info = error_codes()[std::size_t(code)];
    bool ok = params.size() == info.params.size();
    for (std::size_t i = 0; ok && i < params.size(); ++i) {
        ok = std::strcmp(params[i].name, info.params[i]) == 0;
        if (!ok) break;
        ParamKind kind = ParamKind::name;
        for (const auto& p : error_params())
            if (std::strcmp(p.name, info.params[i]) == 0) kind = p.kind;
        const std::size_t held = params[i].value.index();   // double, string, numbers, strings
        switch (kind) {
            case ParamKind::name: case ParamKind::text: ok = held == 1; break;
            case ParamKind::number: ok = held == 0; break;
            case ParamKind::shape: case ParamKind::index: ok = held == 2; break;
            case ParamKind::list: ok = held == 3; break;
        }
    }
    if (!ok) {
        std::string want;
        for (const char* n : info.params) want += std::string(want.empty() ? "" : " ") + n;
        throw std::logic_error(std::string("attn::Error: code ") + info.name + " takes the parameters " + want);
    }
}

std::string message(ErrorCode code, const std::vector<ErrorParam>& params) {
    check_params(code, params);
    return english(code, params);
}

}  // namespace

Error::Error(ErrorCode code, std::vector<ErrorParam> params)
    : std::invalid_argument(message(code, params)), code_(code), params_(std::move(params)) {}

const char* Error::code_name() const { return error_codes()[std::size_t(code_)].name; }

const ErrorParam::Value& Error::param(std::string_view name) const {
    for (const auto& p : params_)
        if (name == p.name) return p.value;
    throw std::out_of_range("attn::Error: no parameter " + std::string(name));
}

}  // namespace attn
