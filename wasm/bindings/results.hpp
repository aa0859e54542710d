// Results across the boundary: one writer per result type, write(Writer&, const X&), and beside
// it the result's declaration, result_type<X>(): what JS receives, field by field. The table
// (table.cpp) takes each row's declaration from the C++ type its call returns; core.describe()
// shows it as `returns` (docs/api.md, "describe"); tests/native/test_table.cpp checks every row's
// written result against it and tests/node/table.test.mjs every JS result.
// The writers of each family of results are in results_chapter.hpp (18.1 to 18.7, provenance,
// "Check my numbers") and results_gpt.hpp (the character GPT); wire.hpp includes both.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "attn/attention.hpp"
#include "attn/diagnose.hpp"
#include "attn/gpt.hpp"

namespace attn::wire {

// ---- declarations -------------------------------------------------------------------------------
// What a result is, as JS receives it:
//   tensor        {shape: number[], data: Float64Array}     (Writer::tensor)
//   float64Array  a Float64Array alone                       (Writer::values)
//   number, boolean, string
//   literal       the string `value` (what tells the alternatives of a oneOf apart)
//   array         an array of `of[0]`
//   record        an object whose keys are names given by the call, each value an `of[0]`
//   object        an object with exactly `fields` (an optional field may be absent)
//   oneOf         exactly one of the objects `of`
//   model         a GptModel whose `config` is an object with exactly `fields` (its methods are
//                 the table's rows of role method)
//   nothing       undefined (the core writes an empty object)
#define ATTN_RESULT_KINDS(X) X(tensor) X(float64Array) X(number) X(boolean) X(string) X(literal) X(array) X(record) X(object) X(oneOf) X(model) X(nothing)
enum class ResultKind {
#define ATTN_X(k) k,
    ATTN_RESULT_KINDS(ATTN_X)
#undef ATTN_X
};
const char* result_kind_name(ResultKind k);

struct Field;
struct Type {
    ResultKind kind;
    std::vector<Field> fields;   // object, model
    std::vector<Type> of;        // array, record: the element; oneOf: the alternatives
    const char* value = "";      // literal
};
struct Field {
    const char* name;
    Type type;
    bool optional = false;   // present in some results only
    const char* doc = "";    // one line, where the name does not say it all
    bool by_js = false;      // added by wasm/js/api.js, not written by the core
    // an optional field present unless the call's option `option` has the value `value`, and then
    // absent ({"omittedBy": {option, value}}: the TypeScript declarations give each case its type)
    const char* omitted_option = "";
    const char* omitted_value = "";
};

// Builders for the declarations below and the table's.
namespace returns {
inline Type of_kind(ResultKind k) { return Type{k, {}, {}, ""}; }
inline Type tensor() { return of_kind(ResultKind::tensor); }
inline Type float64_array() { return of_kind(ResultKind::float64Array); }
inline Type number() { return of_kind(ResultKind::number); }
inline Type boolean() { return of_kind(ResultKind::boolean); }
inline Type string() { return of_kind(ResultKind::string); }
inline Type nothing() { return of_kind(ResultKind::nothing); }
inline Type numbers() { return Type{ResultKind::array, {}, {number()}, ""}; }
inline Type literal(const char* v) { return Type{ResultKind::literal, {}, {}, v}; }
inline Type array(Type of) { return Type{ResultKind::array, {}, {std::move(of)}, ""}; }
inline Type record(Type of) { return Type{ResultKind::record, {}, {std::move(of)}, ""}; }
inline Type object(std::vector<Field> fields) { return Type{ResultKind::object, std::move(fields), {}, ""}; }
inline Type one_of(std::vector<Type> alternatives) { return Type{ResultKind::oneOf, {}, std::move(alternatives), ""}; }
inline Type model(std::vector<Field> config) { return Type{ResultKind::model, std::move(config), {}, ""}; }
inline Field field(const char* name, Type t, const char* doc = "") { return Field{name, std::move(t), false, doc, false}; }
inline Field optional(const char* name, Type t, const char* doc = "") { return Field{name, std::move(t), true, doc, false}; }
// present unless the option `option` is `value` (results: 'out')
inline Field omitted_by(const char* name, Type t, const char* option, const char* value, const char* doc = "") {
    return Field{name, std::move(t), true, doc, false, option, value};
}
// an object of tensors
inline Type tensors(std::initializer_list<const char*> names) {
    std::vector<Field> f;
    for (const char* n : names) f.push_back(field(n, tensor()));
    return object(std::move(f));
}
}  // namespace returns

// The declaration of what write(w, X) writes: specialized beside each writer below.
template <class T>
Type result_type();

// ---- writers ------------------------------------------------------------------------------------
// A result is written as nested objects and lists of numbers, booleans, strings and tensors.
class Writer {
public:
    virtual ~Writer() = default;
    virtual Writer& begin() = 0;        // {
    virtual Writer& end() = 0;          // }
    virtual Writer& begin_list() = 0;   // [
    virtual Writer& end_list() = 0;     // ]
    virtual Writer& key(const char* k) = 0;
    virtual Writer& number(double v) = 0;
    virtual Writer& boolean(bool b) = 0;
    virtual Writer& string(const std::string& s) = 0;
    virtual Writer& tensor(const Tensor& t) = 0;                     // {shape, data: Float64Array}
    virtual Writer& values(const double* p, std::size_t n) = 0;      // a Float64Array alone
    // A hint: about n more float64 values follow (the wire grows its buffer once, not per tensor).
    virtual void reserve(std::size_t /*n*/) {}
    Writer& numbers(const std::vector<double>& v) {
        begin_list();
        for (double x : v) number(x);
        return end_list();
    }
};

inline void write(Writer& w, const Tensor& t) { w.tensor(t); }
template <> inline Type result_type<Tensor>() { return returns::tensor(); }
inline void write(Writer& w, double v) { w.number(v); }
template <> inline Type result_type<double>() { return returns::number(); }
inline void write(Writer& w, const std::string& s) { w.string(s); }
template <> inline Type result_type<std::string>() { return returns::string(); }

// a list of names
inline void write(Writer& w, const std::vector<std::string>& names) {
    w.begin_list();
    for (const auto& n : names) w.string(n);
    w.end_list();
}
template <> inline Type result_type<std::vector<std::string>>() { return returns::array(returns::string()); }

// {code, message, params}: what JS throws (attn/errors.hpp)
void write(Writer& w, const Error& e);

// The WebAssembly instance's memory (bindings.cpp; natively all zero): for leak tests.
struct MemoryStats { double heap_in_use, memory_bytes, wire_bytes; };
MemoryStats memory_stats();
inline void write(Writer& w, const MemoryStats& m) {
    w.begin().key("heapInUse").number(m.heap_in_use).key("memoryBytes").number(m.memory_bytes).key("wireBytes").number(m.wire_bytes).end();
}
template <> inline Type result_type<MemoryStats>() {
    using namespace returns;
    Field handles = field("emvalHandles", number(), "Embind's live handles: 0 while no handle crosses the boundary");
    handles.by_js = true;
    return object({field("heapInUse", number()), field("memoryBytes", number()), field("wireBytes", number()), handles});
}

}  // namespace attn::wire
