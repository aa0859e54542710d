// The declaration of a function's options: each option once, with its name, the kind of value it
// takes, the strings it allows and a line of documentation. The function's reader rejects from it
// any key not declared (unknown_option) and any value of another kind (wrong_type); the JS table
// (wasm/bindings/table.cpp) refers to it, and core.describe() shows it (docs/api.md, "describe").
// The sets themselves are declared beside the functions that read them (attention.hpp, gpt.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attn {

// The kinds of value an option takes, and the JS values each accepts:
//   number             a number (the function checks its range)
//   integer            a whole number (the function checks its range)
//   boolean            true or false
//   string             any string
//   choice             one of `values` ("enum")
//   tensor             a tensor {shape, data} (a boolean tensor is read as 0 and 1)
//   number_or_choice   a number or one of `values` ("numberOrEnum": the scales)
//   choice_or_mask     one of `values` or a boolean tensor of 0 and 1 ("enumOrMask": softmax's mask)
#define ATTN_OPTION_KINDS(X) \
    X(number, "number") X(integer, "integer") X(boolean, "boolean") X(string, "string") X(choice, "enum") X(tensor, "tensor") \
    X(number_or_choice, "numberOrEnum") X(choice_or_mask, "enumOrMask")
enum class OptionKind {
#define ATTN_X(kind, name) kind,
    ATTN_OPTION_KINDS(ATTN_X)
#undef ATTN_X
};
const char* option_kind_name(OptionKind k);   // as core.describe() names it ("enum", "numberOrEnum", ...)

// The strings an option allows: a view of a static array of string literals.
class Choices {
public:
    constexpr Choices() = default;
    template <std::size_t N>
    constexpr Choices(const char* const (&items)[N]) : items_(items), size_(N) {}
    const char* const* begin() const { return items_; }
    const char* const* end() const { return items_ + size_; }
    std::size_t size() const { return size_; }
    bool contains(const std::string& s) const;
    std::vector<std::string> strings() const;
private:
    const char* const* items_ = nullptr;
    std::size_t size_ = 0;
};

struct OptionSpec {
    const char* name;       // as JS spells it: opts.<name>
    OptionKind kind;
    const char* doc;        // one line: what it is, its default and its range
    Choices values = {};    // choice, number_or_choice, choice_or_mask: the strings allowed
    bool required = false;  // a call without it is an Error (missing)
};

// The options one function reads, in the order it reads them (the order an unknown_option error
// lists them in). A function whose options depend on another argument (gradcheck's kind, the
// function explain explains) has one set for each.
using OptionSet = std::vector<const OptionSpec*>;

}  // namespace attn
