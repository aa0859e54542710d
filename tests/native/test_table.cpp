// The table of entry points (wasm/bindings/table.cpp) against the C++ API it calls: every row runs
// here on valid arguments (table_calls.hpp); what its writer writes is exactly its declared result
// (`returns`, what core.describe() shows: keys, kinds, optional fields, alternatives), and every
// optional field and alternative it declares is written by some call; each call reads exactly one
// of the option sets the row declares (an unknown option's error lists it), and every set is read.
// A row with no call fails the first case.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "table_calls.hpp"

using namespace attn;
using wire::Arg;
using wire::ResultKind;
using wire::Type;

namespace {

// A written result as a tree.
struct Node {
    std::string kind;                    // object, list, number, boolean, string, tensor or values
    std::string text;                    // a string's value
    double value = 0;                    // a number's
    std::vector<std::string> keys;       // an object's, in order
    std::vector<std::unique_ptr<Node>> items;
};

class Tree final : public wire::Writer {
public:
    Node root;
    Writer& begin() override { open("object"); return *this; }
    Writer& end() override { stack_.pop_back(); return *this; }
    Writer& begin_list() override { open("list"); return *this; }
    Writer& end_list() override { stack_.pop_back(); return *this; }
    Writer& key(const char* k) override { stack_.back()->keys.push_back(k); return *this; }
    Writer& number(double v) override { leaf("number")->value = v; return *this; }
    Writer& boolean(bool) override { leaf("boolean"); return *this; }
    Writer& string(const std::string& s) override { leaf("string")->text = s; return *this; }
    Writer& tensor(const Tensor&) override { leaf("tensor"); return *this; }
    Writer& values(const double*, std::size_t) override { leaf("values"); return *this; }
private:
    std::vector<Node*> stack_;
    bool started_ = false;
    Node* leaf(const char* kind) {
        Node* n = &root;
        if (started_) n = stack_.back()->items.emplace_back(std::make_unique<Node>()).get();
        started_ = true;
        n->kind = kind;
        return n;
    }
    void open(const char* kind) { stack_.push_back(leaf(kind)); }
};

// What a declaration promises and what a call wrote: "" when the node is exactly the type, else
// the first difference. `seen` collects the optional fields present and the alternatives taken,
// by path (a path names array elements [], record values {} and alternatives |i).
std::string match(const Node& n, const Type& t, const std::string& path, std::set<std::string>& seen);

std::string match_object(const Node& n, const std::vector<wire::Field>& fields, const std::string& path, std::set<std::string>& seen) {
    if (n.kind != "object") return path + ": an object was declared, " + n.kind + " written";
    for (std::size_t i = 0; i < n.keys.size(); ++i) {
        if (std::count(n.keys.begin(), n.keys.end(), n.keys[i]) > 1) return path + "." + n.keys[i] + " is written twice";
        const auto f = std::find_if(fields.begin(), fields.end(), [&](const wire::Field& x) { return n.keys[i] == x.name; });
        if (f == fields.end() || f->by_js) return path + "." + n.keys[i] + " is written but not declared";
        if (f->optional) seen.insert(path + "." + f->name);
        const std::string m = match(*n.items[i], f->type, path + "." + f->name, seen);
        if (!m.empty()) return m;
    }
    for (const wire::Field& f : fields)
        if (!f.optional && !f.by_js && std::find(n.keys.begin(), n.keys.end(), f.name) == n.keys.end())
            return path + "." + f.name + " is declared but not written";
    return "";
}

std::string match(const Node& n, const Type& t, const std::string& path, std::set<std::string>& seen) {
    const std::string want = wire::result_kind_name(t.kind);
    auto leaf = [&](const char* kind) { return n.kind == kind ? "" : path + ": " + want + " was declared, " + n.kind + " written"; };
    switch (t.kind) {
        case ResultKind::tensor: return leaf("tensor");
        case ResultKind::float64Array: return leaf("values");
        case ResultKind::number: return leaf("number");
        case ResultKind::boolean: return leaf("boolean");
        case ResultKind::string: return leaf("string");
        case ResultKind::literal:
            return n.kind == "string" && n.text == t.value ? "" : path + ": the string '" + t.value + "' was declared, " + n.kind + " '" + n.text + "' written";
        case ResultKind::array:
            if (n.kind != "list") return path + ": an array was declared, " + n.kind + " written";
            for (const auto& item : n.items)
                if (std::string m = match(*item, t.of.at(0), path + "[]", seen); !m.empty()) return m;
            return "";
        case ResultKind::record:
            if (n.kind != "object") return path + ": a record was declared, " + n.kind + " written";
            for (const auto& item : n.items)
                if (std::string m = match(*item, t.of.at(0), path + "{}", seen); !m.empty()) return m;
            return "";
        case ResultKind::object:
        case ResultKind::model: return match_object(n, t.fields, path, seen);
        case ResultKind::oneOf: {
            std::string why;
            for (std::size_t i = 0; i < t.of.size(); ++i) {
                std::set<std::string> s;
                const std::string m = match(n, t.of[i], path + "|" + std::to_string(i), s);
                if (m.empty()) {
                    seen.insert(s.begin(), s.end());
                    seen.insert(path + "|" + std::to_string(i));
                    return "";
                }
                why += (why.empty() ? "" : "; ") + m;
            }
            return path + ": none of the alternatives (" + why + ")";
        }
        case ResultKind::nothing: return n.kind == "object" && n.keys.empty() ? "" : path + ": nothing was declared, " + n.kind + " written";
    }
    return path + ": an unknown kind";
}

// Every optional field and alternative a declaration has, by path as match() names them.
void optional_parts(const Type& t, const std::string& path, std::set<std::string>& out) {
    for (const wire::Field& f : t.fields) {
        if (f.optional) out.insert(path + "." + f.name);
        optional_parts(f.type, path + "." + f.name, out);
    }
    if (t.kind == ResultKind::array || t.kind == ResultKind::record)
        optional_parts(t.of.at(0), path + (t.kind == ResultKind::array ? "[]" : "{}"), out);
    if (t.kind == ResultKind::oneOf)
        for (std::size_t i = 0; i < t.of.size(); ++i) {
            out.insert(path + "|" + std::to_string(i));
            optional_parts(t.of[i], path + "|" + std::to_string(i), out);
        }
}

std::string str(const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& x : v) out += (out.empty() ? "" : ", ") + x;
    return out;
}
std::string str(const std::set<std::string>& s) { return str(std::vector<std::string>(s.begin(), s.end())); }

std::vector<std::string> names(const OptionSet& set) {
    std::vector<std::string> n;
    for (const OptionSpec* o : set) n.push_back(o->name);
    return n;
}

}  // namespace

TEST_CASE("table: every row writes exactly the result it declares, and each optional part of it in some call") {
    const auto calls = table_calls::calls(table_calls::new_model());
    for (const wire::Entry* e : table_calls::rows()) {
        const std::string name = e->name;
        CAPTURE(name);
        const auto it = calls.find(e->name);
        REQUIRE_MESSAGE(it != calls.end(), "no call for the row in tests/native/table_calls.hpp");
        std::set<std::string> seen, declared;
        const bool declared_returns = e->returns.call != nullptr;
        REQUIRE_MESSAGE(declared_returns, "the row has no result declaration");
        const wire::Type returns = e->returns();
        optional_parts(returns, "", declared);
        for (const table_calls::Call& call : it->second) {
            Tree t;
            table_calls::run(e->name, call(Options{}), t);
            const std::string m = match(t.root, returns, "", seen);
            CHECK_MESSAGE(m.empty(), m);
        }
        std::set<std::string> never;
        std::set_difference(declared.begin(), declared.end(), seen.begin(), seen.end(), std::inserter(never, never.end()));
        CHECK_MESSAGE(never.empty(), "declared but written by no call: ", str(never));
    }
    CHECK(calls.size() == wire::entries().size());   // no call for a row that is gone
}

TEST_CASE("table: each call reads one of the option sets its row declares, and every set is read") {
    const auto calls = table_calls::calls(table_calls::new_model());
    for (const wire::Entry* e : table_calls::rows()) {
        const std::string name = e->name;
        CAPTURE(name);
        const bool declared_options = e->options.call != nullptr;
        REQUIRE_MESSAGE(declared_options, "the row has no options function");
        const std::vector<wire::OptionVariant> options = e->options();
        const auto option_args = std::count_if(e->args.begin(), e->args.end(), [](const wire::ArgSpec& a) { return a.kind == wire::Kind::options; });
        CHECK(option_args == (options.empty() ? 0 : 1));
        if (options.empty()) continue;
        std::set<std::size_t> read;
        for (const table_calls::Call& call : calls.at(e->name)) {
            Tree t;
            try {
                table_calls::run(e->name, call(Options{{"bogus", 1.0}}), t);
                FAIL("an unknown option was accepted");
            } catch (const Error& err) {
                REQUIRE(err.code() == ErrorCode::unknown_option);
                CHECK(std::get<std::string>(err.param("fn")) == e->name);
                CHECK(std::get<std::string>(err.param("arg")) == "opts.bogus");
                const auto known = std::get<std::vector<std::string>>(err.param("known"));
                std::size_t i = 0;
                while (i < options.size() && names(*options[i].set) != known) ++i;
                CHECK_MESSAGE(i < options.size(), "the call read none of the row's sets, but ", str(known));
                read.insert(i);
            }
        }
        CHECK(read.size() == options.size());
    }
}

TEST_CASE("table: a disposed model is an error naming the method") {
    const double id = table_calls::new_model();
    Tree first, second, trained;
    table_calls::run("dispose", {id}, first);
    table_calls::run("dispose", {id}, second);   // twice is harmless
    try {
        table_calls::run("trainSteps", {id, 1.0}, trained);
        FAIL("a disposed model trained");
    } catch (const Error& err) {
        CHECK(err.code() == ErrorCode::disposed);
        CHECK(std::get<std::string>(err.param("fn")) == "trainSteps");
    }
}

TEST_CASE("table: an argument left out takes the row's default - one without a default is a wrong_type error") {
    const wire::Entry& randn_row = *wire::find("randn");
    CHECK(randn_row.args[1].has_default);
    CHECK(randn_row.args[1].fallback == 0);
    CHECK(randn_row.args[2].fallback == 1);
    try {
        wire::default_arg(*wire::find("softmax"), 0);
        FAIL("a missing tensor was filled in");
    } catch (const Error& err) {
        CHECK(err.code() == ErrorCode::wrong_type);
        CHECK(std::get<std::string>(err.param("arg")) == "scores");
        CHECK(std::get<std::string>(err.param("gotType")) == "undefined");
    }
    CHECK(std::get<Options>(wire::default_arg(*wire::find("softmax"), 1)).empty());
}

TEST_CASE("table: the result declaration matcher tells a written result from a wrong one") {
    using namespace wire::returns;
    const Type t = object({field("a", tensor()), optional("b", numbers()), field("c", one_of({object({field("kind", literal("x"))}),
                                                                                              object({field("kind", literal("y")), field("n", number())})}))});
    auto written = [](auto&& write) {
        Tree tree;
        write(static_cast<wire::Writer&>(tree));
        return std::move(tree.root);
    };
    const Tensor m{1.0};
    std::set<std::string> seen;
    CHECK(match(written([&](wire::Writer& w) { w.begin().key("a").tensor(m).key("c").begin().key("kind").string("x").end().end(); }), t, "", seen).empty());
    CHECK(seen == std::set<std::string>{".c|0"});
    CHECK(match(written([&](wire::Writer& w) {
              w.begin().key("a").tensor(m).key("b").numbers({1, 2}).key("c").begin().key("kind").string("y").key("n").number(1).end().end();
          }), t, "", seen).empty());
    CHECK(seen == std::set<std::string>{".b", ".c|0", ".c|1"});
    CHECK(match(written([&](wire::Writer& w) { w.begin().key("c").begin().key("kind").string("x").end().end(); }), t, "", seen) ==
          ".a is declared but not written");
    CHECK(match(written([&](wire::Writer& w) { w.begin().key("a").values(m.data(), 1).key("c").begin().key("kind").string("x").end().end(); }), t, "",
                seen) == ".a: tensor was declared, values written");
    CHECK(match(written([&](wire::Writer& w) { w.begin().key("a").tensor(m).key("d").number(1).end(); }), t, "", seen) ==
          ".d is written but not declared");
    CHECK(match(written([&](wire::Writer& w) { w.begin().key("a").tensor(m).key("c").begin().key("kind").string("z").end().end(); }), t, "", seen)
              .find(".c: none of the alternatives") == 0);
    std::set<std::string> parts;
    optional_parts(t, "", parts);
    CHECK(parts == std::set<std::string>{".b", ".c|0", ".c|1"});
}
