// The boundary between the core and JavaScript, without Emscripten (it compiles natively too):
//   - the wire protocol's request tags and descriptor slots (exported to JS with the table);
//   - the arguments of a call, decoded into the core's types (request.hpp decodes a request);
//   - one writer per result type and its declaration (results.hpp), used by the WASM bindings
//     (into the wire, request.cpp) and by the golden generator (tests/native/golden.cpp, into
//     JSON), so both describe a result the same way;
//   - the table of entry points (wasm/bindings/table.cpp): every function JS can call, declared
//     once with its arguments, the options it reads (the core's OptionSets), documentation, how
//     it runs and what it returns. wasm/js/api.js builds the JS API from it.
#pragma once

#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "attn/attention.hpp"
#include "attn/gpt.hpp"
#include "results_chapter.hpp"
#include "results_gpt.hpp"

namespace attn::wire {

// ---- the protocol -------------------------------------------------------------------------------
// How a request encodes each value (JS writes these numbers; the layout is in request.hpp).
#define ATTN_WIRE_TAGS(X) X(number) X(string) X(tensor) X(boolTensor) X(options) X(boolean) X(numbers) X(bad) X(absent)
enum class Tag {
#define ATTN_X(t) t,
    ATTN_WIRE_TAGS(ATTN_X)
#undef ATTN_X
};
// Where JS finds things after each call, in a fixed block of float64 (wasm/bindings/bindings.cpp).
#define ATTN_WIRE_SLOTS(X) X(inAddress) X(bytesAddress) X(status) X(outAddress) X(outLength) X(jsonAddress) X(jsonLength) X(structure)
enum class Slot {
#define ATTN_X(s) s,
    ATTN_WIRE_SLOTS(ATTN_X)
#undef ATTN_X
};
constexpr std::size_t kSlots = 0
#define ATTN_X(s) +1
    ATTN_WIRE_SLOTS(ATTN_X)
#undef ATTN_X
    ;

// ---- arguments ----------------------------------------------------------------------------------
// The kinds of positional arguments. JS checks a value's JS type against its kind (generically,
// the same for every function); everything else is checked by the C++ API.
#define ATTN_ARG_KINDS(X) X(tensor) X(number) X(string) X(numbers) X(options) X(model)
enum class Kind {
#define ATTN_X(k) k,
    ATTN_ARG_KINDS(ATTN_X)
#undef ATTN_X
};
const char* kind_name(Kind k);

struct ArgSpec {
    const char* name;
    Kind kind;
    bool has_default = false;
    double fallback = 0;   // a number's default, used when JS passes undefined
};

using Arg = std::variant<double, std::string, Tensor, std::vector<double>, Options>;

struct Entry;

// The decoded arguments of one call (defaults filled in).
struct Args {
    const Entry& entry;
    std::vector<Arg> v;
    const Tensor& tensor(std::size_t i) const { return get<Tensor>(i); }
    double number(std::size_t i) const { return get<double>(i); }
    const std::string& text(std::size_t i) const { return get<std::string>(i); }
    const std::vector<double>& numbers(std::size_t i) const { return get<std::vector<double>>(i); }
    const Options& options(std::size_t i) const { return get<Options>(i); }
    CharTrainer& model(std::size_t i) const;   // from the registry; a disposed model is an Error
private:
    template <class T>
    const T& get(std::size_t i) const {
        if (i < v.size())
            if (auto p = std::get_if<T>(&v[i])) return *p;
        internal_error(i);
    }
    [[noreturn]] void internal_error(std::size_t i) const;   // the request does not match the table (a bug)
};

// ---- the table ----------------------------------------------------------------------------------
// How JS wraps a function: a plain function of the API, the model constructor (its result carries
// the new model's id), a method of the model (first argument), or the method that frees it.
#define ATTN_ROLES(X) X(function) X(create) X(method) X(release)
enum class Role {
#define ATTN_X(r) r,
    ATTN_ROLES(ATTN_X)
#undef ATTN_X
};

// The options a row reads: one set, or one set per kind of call, `when` saying which ("kind 'sdpa'").
struct OptionVariant {
    std::string when;
    const OptionSet* set;
};

// A function a row holds, never null: a function pointer or a captureless lambda. It has no
// default, so a row cannot leave one out with `{}` (a row without options says `none`).
template <class R>
struct RowFn {
    R (*call)();
    template <class F>
    constexpr RowFn(F f) : call(f) {}
    R operator()() const { return call(); }
};

// The options a row reads and what it returns are functions that only describe_json() calls:
// wire_json() builds the table when the core loads, and V8 compiles each WebAssembly function at
// its first call, so building every option set and result declaration there would compile and
// run that code in every page's load (docs/performance.md, "The core's table at load").
struct Entry {
    const char* name;                           // as JS calls it
    std::vector<ArgSpec> args;
    RowFn<std::vector<OptionVariant>> options;  // the options it reads
    const char* doc;                            // one line
    void (*run)(const Args&, Writer&);
    RowFn<Type> returns;                        // what JS receives
    Role role = Role::function;
};

// A row's result declaration from the C++ type its call returns (table.cpp's RUN).
template <class Call>
constexpr auto returns_of(Call) {
    return &result_type<std::decay_t<std::invoke_result_t<Call, const Args&>>>;
}

const std::vector<Entry>& entries();
const Entry* find(const std::string& name);
// {tags, slots, functions: [{name, args: [{name, kind, default?}], options: [{name, kind, values?,
//  required?, doc}], doc, returns, role}], errorCodes, errorParams}: everything JS needs to build
// the API, as JSON (docs/api.md, "describe")
std::string describe_json();
// {tags, slots, functions: [{name, args, role}]}: what JS needs to make the calls, a fifth of
// describe_json's text (no options, docs, results or error tables), read when the core loads
std::string wire_json();

// Argument i's value when JS leaves it undefined: its default, empty options, or an Error.
Arg default_arg(const Entry& e, std::size_t i);
// Runs an entry with arguments given in the core's types (the golden generator): fills defaults.
void run(const Entry& e, std::vector<Arg> args, Writer& w);

}  // namespace attn::wire
