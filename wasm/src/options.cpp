// Options declared once (attn/options.hpp) and read by their declarations: the option reader,
// the kinds' names and the choices an option allows.
#include <algorithm>
#include <cmath>

#include "internal.hpp"

namespace attn {

const char* option_kind_name(OptionKind k) {
    switch (k) {
#define ATTN_X(kind, name) case OptionKind::kind: return name;
        ATTN_OPTION_KINDS(ATTN_X)
#undef ATTN_X
    }
    return "";
}

bool Choices::contains(const std::string& s) const {
    return std::any_of(begin(), end(), [&](const char* c) { return s == c; });
}

std::vector<std::string> Choices::strings() const { return std::vector<std::string>(begin(), end()); }

namespace detail {

static const char* type_id(const OptionValue& v) {
    switch (v.index()) {
        case 0: return "boolean";
        case 1: return "number";
        case 2: return "string";
        case 3: return "tensor";
        default: return "boolTensor";
    }
}

// What a wrong_type or missing error says an option of this kind must be (errors.cpp's phrases).
static const char* expected_type(OptionKind k) {
    switch (k) {
        case OptionKind::number:
        case OptionKind::integer: return "number";
        case OptionKind::boolean: return "boolean";
        case OptionKind::string:
        case OptionKind::choice: return "string";
        case OptionKind::tensor: return "tensor";
        case OptionKind::number_or_choice: return "scale";
        case OptionKind::choice_or_mask: return "mask";
    }
    return "";
}

OptionSet joined(const OptionSet& first, std::initializer_list<const OptionSpec*> more) {
    OptionSet s = first;
    s.insert(s.end(), more.begin(), more.end());
    return s;
}

OptionSet joined(std::initializer_list<const OptionSpec*> first, const OptionSet& more) {
    OptionSet s(first);
    s.insert(s.end(), more.begin(), more.end());
    return s;
}

OptionReader::OptionReader(const Options& opts, std::string_view fn, const OptionSet& set)
    : opts_(opts), fn_(fn), set_(set), read_(set.size(), false) {}

const OptionValue* OptionReader::get(const OptionSpec& o, std::initializer_list<OptionKind> read_as, const char* layout) {
    const auto at = std::find(set_.begin(), set_.end(), &o);
    if (at == set_.end())
        throw Error(ErrorCode::internal, {{"fn", fn_}, {"detail", std::string("opts.") + o.name + " is read but not declared"}});
    if (std::find(read_as.begin(), read_as.end(), o.kind) == read_as.end())
        throw Error(ErrorCode::internal, {{"fn", fn_}, {"detail", std::string("opts.") + o.name + " is read as another kind than " +
                                                                      option_kind_name(o.kind)}});
    read_[std::size_t(at - set_.begin())] = true;
    auto it = opts_.find(o.name);
    if (it != opts_.end()) return &it->second;
    if (o.required)
        throw Error(ErrorCode::missing, {{"fn", fn_}, {"arg", std::string("opts.") + o.name}, {"expectedType", expected_type(o.kind)},
                                         {"layout", layout}});
    return nullptr;
}

// opts.<name> was given a value of the wrong type
void OptionReader::wrong_type(const OptionSpec& o, const OptionValue& v) const {
    throw Error(ErrorCode::wrong_type, {{"fn", fn_}, {"arg", std::string("opts.") + o.name}, {"expectedType", expected_type(o.kind)},
                                        {"gotType", type_id(v)}});
}

bool OptionReader::boolean(const OptionSpec& o, bool fallback) {
    const OptionValue* v = get(o, {OptionKind::boolean});
    if (!v) return fallback;
    if (auto b = std::get_if<bool>(v)) return *b;
    wrong_type(o, *v);
}

double OptionReader::number(const OptionSpec& o, double fallback) {
    const OptionValue* v = get(o, {OptionKind::number, OptionKind::integer});
    if (!v) return fallback;
    if (auto d = std::get_if<double>(v)) return *d;
    wrong_type(o, *v);
}

std::size_t OptionReader::index(const OptionSpec& o, double fallback, std::size_t lo, std::size_t hi) {
    get(o, {OptionKind::integer});
    const double v = number(o, fallback);
    if (whole_in(v, double(lo), double(hi))) return std::size_t(v);
    return to_index({fn_, std::string("opts.") + o.name}, v, lo, hi);   // throws
}

std::uint64_t OptionReader::seed(const OptionSpec& o) {
    get(o, {OptionKind::integer});
    const double v = number(o, 0);
    if (whole_in(v, 0, kMaxSeed)) return std::uint64_t(v);
    return to_seed({fn_, std::string("opts.") + o.name}, v);   // throws
}

std::string OptionReader::text(const OptionSpec& o, const std::string& fallback) {
    const OptionValue* v = get(o, {OptionKind::string});
    if (!v) return fallback;
    if (auto s = std::get_if<std::string>(v)) return *s;
    wrong_type(o, *v);
}

std::string OptionReader::choice(const OptionSpec& o, const std::string& fallback) {
    const OptionValue* v = get(o, {OptionKind::choice, OptionKind::choice_or_mask});
    if (!v) return fallback;
    auto s = std::get_if<std::string>(v);
    if (!s) wrong_type(o, *v);
    if (o.values.contains(*s)) return *s;
    throw Error(ErrorCode::not_one_of, {{"fn", fn_}, {"arg", std::string("opts.") + o.name}, {"choice", *s}, {"choices", o.values.strings()}});
}

const Tensor* OptionReader::tensor(const OptionSpec& o, const char* layout) {
    const OptionValue* v = get(o, {OptionKind::tensor}, layout);
    if (!v) return nullptr;
    if (auto t = std::get_if<Tensor>(v)) return t;
    if (auto t = std::get_if<BoolTensor>(v)) return &converted_.emplace_back(xt::cast<double>(*t));   // 0/1 values
    wrong_type(o, *v);
}

const BoolTensor* OptionReader::mask(const OptionSpec& o) {
    const OptionValue* v = get(o, {OptionKind::choice_or_mask});
    if (!v) return nullptr;
    if (auto t = std::get_if<BoolTensor>(v)) return t;
    auto t = std::get_if<Tensor>(v);
    if (!t) return nullptr;   // a string (or a wrong type): choice() reads it
    for (std::size_t i = 0; i < t->size(); ++i) {
        const double x = t->data()[i];
        if (x != 0.0 && x != 1.0)
            throw Error(ErrorCode::element_range, {{"fn", fn_}, {"arg", std::string("opts.") + o.name}, {"value", x}, {"index", multi_index(*t, i)},
                                                   {"range", "{0, 1}"}});
    }
    return &converted_bool_.emplace_back(xt::cast<std::uint8_t>(*t));
}

Scale OptionReader::scale(const OptionSpec& o) {
    const OptionValue* v = get(o, {OptionKind::number_or_choice});
    Scale s;
    if (!v) return s;
    if (auto d = std::get_if<double>(v)) {
        if (!std::isfinite(*d))
            throw Error(ErrorCode::number_range, {{"fn", fn_}, {"arg", std::string("opts.") + o.name}, {"value", *d}, {"range", "(-Infinity, Infinity)"}});
        s.kind = Scale::Kind::Value;
        s.value = *d;
        return s;
    }
    auto str = std::get_if<std::string>(v);
    if (!str) wrong_type(o, *v);
    if (!o.values.contains(*str))
        throw Error(ErrorCode::scale_value, {{"fn", fn_}, {"arg", std::string("opts.") + o.name}, {"choice", *str}, {"choices", o.values.strings()}});
    s.kind = *str == "head" ? Scale::Kind::Head : *str == "model" ? Scale::Kind::Model : Scale::Kind::None;
    return s;
}

void OptionReader::finish() const {
    for (const auto& kv : opts_)
        if (std::none_of(set_.begin(), set_.end(), [&](const OptionSpec* o) { return kv.first == o->name; })) {
            std::vector<std::string> known;
            for (const OptionSpec* o : set_) known.push_back(o->name);
            throw Error(ErrorCode::unknown_option, {{"fn", fn_}, {"arg", "opts." + kv.first}, {"known", known}});
        }
    for (std::size_t i = 0; i < set_.size(); ++i)
        if (!read_[i]) throw Error(ErrorCode::internal, {{"fn", fn_}, {"detail", std::string("opts.") + set_[i]->name + " is declared but not read"}});
}

}  // namespace detail

}  // namespace attn
