// Options declared once (attn/options.hpp): every option of every row of the JS table is read by
// its declaration. Given a value of another kind, each is a wrong_type error naming the kind the
// declaration gives; a string its declaration does not allow is a not_one_of (scale_value) error
// listing exactly the declared values, each of which works; a required one left out is a missing
// error. The reader itself turns an undeclared read, a read as another kind and a declared option
// never read into internal errors, and lists the set for an unknown option.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "internal.hpp"
#include "table_calls.hpp"

using namespace attn;
using wire::Arg;

namespace {

// What a wrong_type error says an option of this kind must be (docs/api.md, "Errors").
std::string expected_type(OptionKind k) {
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

class Discard final : public wire::Writer {
public:
    Writer& begin() override { return *this; }
    Writer& end() override { return *this; }
    Writer& begin_list() override { return *this; }
    Writer& end_list() override { return *this; }
    Writer& key(const char*) override { return *this; }
    Writer& number(double) override { return *this; }
    Writer& boolean(bool) override { return *this; }
    Writer& string(const std::string&) override { return *this; }
    Writer& tensor(const Tensor&) override { return *this; }
    Writer& values(const double*, std::size_t) override { return *this; }
};

// The call's arguments with its options changed by `edit`.
template <class Edit>
std::vector<Arg> edited(const table_calls::Call& call, Edit&& edit) {
    std::vector<Arg> args = call(Options{});
    for (Arg& a : args)
        if (auto o = std::get_if<Options>(&a)) edit(*o);
    return args;
}

// The error a call raises (an internal error with no code of its own when it raises none).
Error raised(const wire::Entry& e, std::vector<Arg> args) {
    Discard w;
    try {
        wire::run(e, std::move(args), w);
    } catch (const Error& err) {
        return err;
    }
    return Error(ErrorCode::internal, {{"fn", e.name}, {"detail", "no error"}});
}

// The set a call reads: the one its unknown_option error lists.
const OptionSet* set_of(const wire::Entry& e, const table_calls::Call& call) {
    const Error err = raised(e, call(Options{{"bogus", 1.0}}));
    REQUIRE(err.code() == ErrorCode::unknown_option);
    const auto known = std::get<std::vector<std::string>>(err.param("known"));
    for (const wire::OptionVariant& v : e.options()) {
        std::vector<std::string> names;
        for (const OptionSpec* o : *v.set) names.push_back(o->name);
        if (names == known) return v.set;
    }
    FAIL("the call reads none of the row's sets");
    return nullptr;
}

void check_option(const wire::Entry& e, const table_calls::Call& call, const OptionSpec& o) {
    const std::string option = o.name;
    CAPTURE(option);
    CHECK(std::string(o.doc).size() > 10);
    // a value of another kind
    const bool textual = o.kind == OptionKind::boolean || o.kind == OptionKind::string;
    const Error wrong = raised(e, edited(call, [&](Options& opts) { opts[o.name] = textual ? OptionValue(1.0) : OptionValue(true); }));
    REQUIRE(wrong.code() == ErrorCode::wrong_type);
    CHECK(std::get<std::string>(wrong.param("arg")) == "opts." + option);
    CHECK(std::get<std::string>(wrong.param("expectedType")) == expected_type(o.kind));
    CHECK(std::get<std::string>(wrong.param("gotType")) == (textual ? "number" : "boolean"));
    // a string not allowed, and each one allowed
    const bool choice = o.kind == OptionKind::choice || o.kind == OptionKind::number_or_choice || o.kind == OptionKind::choice_or_mask;
    CHECK(choice == (o.values.size() > 0));
    if (choice) {
        const Error other = raised(e, edited(call, [&](Options& opts) { opts[o.name] = std::string("bogus"); }));
        REQUIRE(other.code() == (o.kind == OptionKind::number_or_choice ? ErrorCode::scale_value : ErrorCode::not_one_of));
        CHECK(std::get<std::string>(other.param("arg")) == "opts." + option);
        CHECK(std::get<std::vector<std::string>>(other.param("choices")) == o.values.strings());
        for (const char* v : o.values) {
            CAPTURE(v);
            Discard w;
            CHECK_NOTHROW(wire::run(e, edited(call, [&](Options& opts) { opts[o.name] = std::string(v); }), w));
        }
    }
    // left out
    if (o.required) {
        const Error missing = raised(e, edited(call, [&](Options& opts) { opts.erase(o.name); }));
        REQUIRE(missing.code() == ErrorCode::missing);
        CHECK(std::get<std::string>(missing.param("arg")) == "opts." + option);
        CHECK(std::get<std::string>(missing.param("expectedType")) == expected_type(o.kind));
    }
}

}  // namespace

TEST_CASE("options: every option of the table is read by its declaration - its kind, its values, required or not") {
    const auto calls = table_calls::calls(table_calls::new_model());
    std::size_t checked = 0;
    for (const wire::Entry* e : table_calls::rows()) {
        if (e->options().empty()) continue;
        const std::string name = e->name;
        CAPTURE(name);
        for (const table_calls::Call& call : calls.at(e->name)) {
            const OptionSet* set = set_of(*e, call);
            REQUIRE(set);
            std::set<std::string> unique;
            for (const OptionSpec* o : *set) {
                CHECK(unique.insert(o->name).second);   // one declaration per name in a set
                check_option(*e, call, *o);
                ++checked;
            }
        }
    }
    CHECK(checked >= 150);
}

TEST_CASE("options: the reader rejects an unknown key listing the set, and reports the core's own mistakes as internal errors") {
    static constexpr const char* kValues[] = {"a", "b"};
    static constexpr OptionSpec kFlag{"flag", OptionKind::boolean, "a flag"};
    static constexpr OptionSpec kPick{"pick", OptionKind::choice, "a choice", kValues};
    static constexpr OptionSpec kOther{"other", OptionKind::number, "not in the set"};
    const OptionSet set{&kFlag, &kPick};
    auto detail_of = [](auto&& f) {
        try {
            f();
        } catch (const Error& e) {
            return std::string(e.code_name()) + ": " + std::get<std::string>(e.params().back().value);
        }
        return std::string("no error");
    };
    const Options flag{{"flag", true}}, none, unknown{{"flag", true}, {"zzz", 1.0}};
    CHECK(detail_of([&] { detail::OptionReader r(flag, "f", set); r.boolean(kFlag, false); r.choice(kPick, "a"); r.finish(); }) == "no error");
    CHECK(detail_of([&] { detail::OptionReader r(none, "f", set); r.number(kOther, 0); }) == "internal: opts.other is read but not declared");
    CHECK(detail_of([&] { detail::OptionReader r(none, "f", set); r.number(kFlag, 0); }) == "internal: opts.flag is read as another kind than boolean");
    CHECK(detail_of([&] { detail::OptionReader r(none, "f", set); r.boolean(kFlag, false); r.finish(); }) ==
          "internal: opts.pick is declared but not read");
    try {
        detail::OptionReader r(unknown, "f", set);
        r.boolean(kFlag, false);
        r.choice(kPick, "a");
        r.finish();
        FAIL("an unknown option was accepted");
    } catch (const Error& e) {
        CHECK(std::string(e.what()) == "f: unknown option opts.zzz (known: flag, pick)");
    }
    const OptionSet joined = detail::joined({&kOther}, set);
    CHECK(joined == OptionSet{&kOther, &kFlag, &kPick});
    CHECK(detail::joined(set, {&kOther}) == OptionSet{&kFlag, &kPick, &kOther});
    CHECK(std::string(option_kind_name(OptionKind::choice)) == "enum");
    CHECK(std::string(option_kind_name(OptionKind::number_or_choice)) == "numberOrEnum");
    CHECK(std::string(option_kind_name(OptionKind::choice_or_mask)) == "enumOrMask");
}
