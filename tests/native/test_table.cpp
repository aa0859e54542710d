// The table of entry points (wasm/bindings/table.cpp) against the C++ API it calls: every row runs
// here on valid arguments; its declared options are the ones the core reads (an unknown option's
// error lists them), and its documented result ("returns", what core.describe() shows) is what its
// writer writes. A row with no call below fails the last case.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "attn/attention.hpp"
#include "attn/gpt.hpp"
#include "wire.hpp"

using namespace attn;
using wire::Arg;

namespace {

// Records a result's outline: what its top level is, its keys, and its top-level numbers.
class Outline final : public wire::Writer {
public:
    std::string top;                 // object, list, number, string, tensor or values
    std::vector<std::string> keys;   // of a top-level object
    std::map<std::string, double> numbers_;
    Writer& begin() override { value("object"); ++depth_; return *this; }
    Writer& end() override { --depth_; return *this; }
    Writer& begin_list() override { value("list"); ++depth_; return *this; }
    Writer& end_list() override { --depth_; return *this; }
    Writer& key(const char* k) override {
        if (depth_ == 1) keys.push_back(k);
        key_ = k;
        return *this;
    }
    Writer& number(double v) override {
        if (depth_ == 1) numbers_[key_] = v;
        return value("number");
    }
    Writer& boolean(bool) override { return value("boolean"); }
    Writer& string(const std::string&) override { return value("string"); }
    Writer& tensor(const Tensor&) override { return value("tensor"); }
    Writer& values(const double*, std::size_t) override { return value("values"); }
private:
    int depth_ = 0;
    std::string key_;
    Writer& value(const char* what) {
        if (depth_ == 0) top = what;
        return *this;
    }
};

Outline run(const char* name, std::vector<Arg> args) {
    const wire::Entry* e = wire::find(name);
    REQUIRE_MESSAGE(e, name);
    Outline o;
    wire::run(*e, std::move(args), o);
    return o;
}

// What a row's `returns` promises: the top level and, for "{a, b (note), c?}", the keys (c? may
// be absent). "GptModel (config: {...})" is the config object plus the model's id.
struct Promise {
    std::string top;
    std::set<std::string> keys, optional;
};
Promise promised(const wire::Entry& e) {
    const std::string r = e.returns;
    Promise p;
    const auto open = r.find('{');
    if (open == std::string::npos) {
        const std::string first = r.substr(0, r.find(' '));
        p.top = first == "Float64Array" ? "values" : first == "nothing" ? "object" : first == "one" ? "list" : first;
        return p;
    }
    p.top = "object";
    if (e.role == wire::Role::create) p.keys.insert("id");
    std::string item;
    int parens = 0;
    for (std::size_t i = open + 1; i < r.size() && r[i] != '}'; ++i) {
        const char c = r[i];
        if (c == '(') ++parens;
        else if (c == ')') --parens;
        else if (parens == 0 && c == ',') {
            (item.back() == '?' ? p.optional : p.keys).insert(item.back() == '?' ? item.substr(0, item.size() - 1) : item);
            item.clear();
        } else if (parens == 0 && c != ' ') item += c;
    }
    (item.back() == '?' ? p.optional : p.keys).insert(item.back() == '?' ? item.substr(0, item.size() - 1) : item);
    return p;
}

// "a, b, c": sets compare readably in a failed check
std::string str(const std::set<std::string>& s) {
    std::string out;
    for (const std::string& x : s) out += (out.empty() ? "" : ", ") + x;
    return out;
}

Options with(Options o, const Options& more) {
    for (const auto& [k, v] : more) o[k] = v;
    return o;
}

}  // namespace

TEST_CASE("table: every row runs, reads the options it declares and writes the result it documents") {
    const Tensor m{{1, 2}, {3, 4}};
    const Tensor x = randn({1, 3, 2}, 1);
    const Options w{{"wq", randn({2, 2}, 2)}, {"wk", randn({2, 2}, 3)}, {"wv", randn({2, 2}, 4)}};
    std::string text;
    for (int i = 0; i < 40; ++i) text += "abcdefghij";
    const Options small{{"C", 8.0}, {"heads", 2.0}, {"layers", 1.0}, {"tMax", 8.0}};
    const double id = run("createModel", {text, small}).numbers_.at("id");

    // per row: its arguments given the options `o` (rows without options ignore o); gradcheck has two kinds
    using Call = std::function<std::vector<Arg>(const Options&)>;
    const std::map<std::string, std::vector<Call>> calls = {
        {"randn", {[](const Options&) { return std::vector<Arg>{std::vector<double>{2, 3}, 1.0, 2.0}; }}},
        {"causalAverage", {[&](const Options& o) { return std::vector<Arg>{m, o}; }}},
        {"averagingMatrix", {[&](const Options& o) { return std::vector<Arg>{2.0, o}; }}},
        {"maxAbsDiff", {[&](const Options&) { return std::vector<Arg>{m, m}; }}},
        {"sum", {[&](const Options& o) { return std::vector<Arg>{m, o}; }}},
        {"matmul", {[&](const Options&) { return std::vector<Arg>{m, m}; }}},
        {"maskMatrix", {[&](const Options& o) { return std::vector<Arg>{2.0, 3.0, o}; }}},
        {"softmax", {[&](const Options& o) { return std::vector<Arg>{m, o}; }}},
        {"sdpa", {[&](const Options& o) { return std::vector<Arg>{m, m, m, o}; }}},
        {"sdpaBackward", {[&](const Options& o) { return std::vector<Arg>{m, m, m, m, o}; }}},
        {"sdpaReference", {[&](const Options& o) { return std::vector<Arg>{m, m, m, o}; }}},
        {"linearWeightToMath", {[&](const Options&) { return std::vector<Arg>{m}; }}},
        {"mathWeightToLinear", {[&](const Options&) { return std::vector<Arg>{m}; }}},
        {"multiHeadAttention", {[&](const Options& o) { return std::vector<Arg>{x, with(w, o)}; }}},
        {"multiHeadAttentionBackward", {[&](const Options& o) { return std::vector<Arg>{x, x, with(w, o)}; }}},
        {"attentionStats", {[&](const Options&) { return std::vector<Arg>{Tensor{{0.25, 0.75}, {1, 0}}}; }}},
        {"dotProductVariance", {[&](const Options& o) { return std::vector<Arg>{std::vector<double>{2}, o}; }}},
        {"softmaxSharpening", {[&](const Options&) { return std::vector<Arg>{Tensor{0.1, 0.2}}; }}},
        {"positions", {[&](const Options& o) { return std::vector<Arg>{std::string("learned"), 2.0, 2.0, o}; }}},
        {"permutationCheck", {[&](const Options& o) { return std::vector<Arg>{x, with(w, o)}; }}},
        {"gradcheck",
         {[&](const Options& o) { return std::vector<Arg>{std::string("sdpa"), with({{"q", m}, {"k", m}, {"v", m}}, o)}; },
          [&](const Options& o) { return std::vector<Arg>{std::string("mha"), with(with(w, {{"x", x}}), o)}; }}},
        {"futureProbe", {[&](const Options& o) { return std::vector<Arg>{x, with(with(w, {{"t", 0.0}}), o)}; }}},
        {"explain",   // one call per function it explains: together they read every option of the row
         {[&](const Options& o) { return std::vector<Arg>{std::string("multiHeadAttention"), std::string("scores"), std::vector<double>{0, 0, 1, 0}, with(with(w, {{"x", x}}), o)}; },
          [&](const Options& o) { return std::vector<Arg>{std::string("sdpa"), std::string("out"), std::vector<double>{1, 0}, with({{"q", m}, {"k", m}, {"v", m}}, o)}; },
          [&](const Options& o) { return std::vector<Arg>{std::string("causalAverage"), std::string("out"), std::vector<double>{1, 0}, with({{"x", m}}, o)}; },
          [&](const Options& o) { return std::vector<Arg>{std::string("softmax"), std::string("weights"), std::vector<double>{1, 0}, with({{"scores", m}}, o)}; },
          [&](const Options& o) { return std::vector<Arg>{std::string("matmul"), std::string("out"), std::vector<double>{1, 1}, with({{"a", m}, {"b", m}}, o)}; },
          [&](const Options& o) { return std::vector<Arg>{std::string("positions"), std::string("out"), std::vector<double>{1, 1},
                                                          with({{"kind", std::string("sinusoidal")}, {"T", 2.0}, {"C", 2.0}}, o)}; },
          [&](const Options& o) { return std::vector<Arg>{std::string("permutationCheck"), std::string("permutedInput"), std::vector<double>{0, 1, 0}, with(with(w, {{"x", x}}), o)}; },
          [&](const Options& o) { return std::vector<Arg>{std::string("gradcheck"), std::string("dq"), std::vector<double>{1, 0}, with({{"q", m}, {"k", m}, {"v", m}}, o)}; },
          [&](const Options& o) { return std::vector<Arg>{std::string("futureProbe"), std::string("change"), std::vector<double>{0, 1, 0}, with(with(w, {{"x", x}, {"t", 0.0}}), o)}; },
          [&](const Options& o) { return std::vector<Arg>{std::string("dropout"), std::string("out"), std::vector<double>{1, 0}, with({{"x", m}}, o)}; }}},
        {"dropout", {[&](const Options& o) { return std::vector<Arg>{m, o}; }}},
        {"dropoutStats", {[&](const Options& o) { return std::vector<Arg>{Tensor{{0.25, 0.75}, {1, 0}}, o}; }}},
        {"createModel", {[&](const Options& o) { return std::vector<Arg>{text, with(small, o)}; }}},
        {"trainSteps", {[&](const Options&) { return std::vector<Arg>{id, 2.0}; }}},
        {"evaluate", {[&](const Options&) { return std::vector<Arg>{id, 1.0}; }}},
        {"sample", {[&](const Options& o) { return std::vector<Arg>{id, with({{"length", 5.0}}, o)}; }}},
        {"attention", {[&](const Options&) { return std::vector<Arg>{id, std::string("abcd")}; }}},
        {"futureCheck", {[&](const Options& o) { return std::vector<Arg>{id, std::string("abcd"), o}; }}},
        {"blockTrace", {[&](const Options& o) { return std::vector<Arg>{id, std::string("abcd"), o}; }}},
        {"headPatterns", {[&](const Options& o) { return std::vector<Arg>{id, with({{"windows", 2.0}}, o)}; },
                          [&](const Options& o) { return std::vector<Arg>{id, with({{"text", std::string("abcd")}}, o)}; }}},
        {"parameters", {[&](const Options&) { return std::vector<Arg>{id}; }}},
        {"gptGradcheck", {[&](const Options&) { return std::vector<Arg>{1.0}; }}},
        {"memoryStats", {[&](const Options&) { return std::vector<Arg>{}; }}},
        {"dispose", {[&](const Options&) { return std::vector<Arg>{id}; }}},   // last: the model's rows run first
    };

    std::vector<const wire::Entry*> rows;
    for (const wire::Entry& e : wire::entries()) rows.push_back(&e);
    std::stable_partition(rows.begin(), rows.end(), [](const wire::Entry* e) { return e->role != wire::Role::release; });
    for (const wire::Entry* e : rows) {
        const std::string name = e->name;
        CAPTURE(name);
        const auto it = calls.find(e->name);
        REQUIRE_MESSAGE(it != calls.end(), "no call for the row in tests/native/test_table.cpp");
        const auto option_args = std::count_if(e->args.begin(), e->args.end(), [](const wire::ArgSpec& a) { return a.kind == wire::Kind::options; });
        CHECK(option_args == (e->options.empty() ? 0 : 1));

        // the result, against the row's documentation
        const Promise p = promised(*e);
        const Outline o = run(e->name, it->second.front()(Options{}));
        CHECK(o.top == p.top);
        std::set<std::string> written(o.keys.begin(), o.keys.end()), expected = p.keys;
        CHECK(written.size() == o.keys.size());   // no key twice
        for (const std::string& k : p.optional)
            if (written.count(k)) expected.insert(k);
        if (name == "memoryStats") written.insert("emvalHandles");   // Embind's count, added by api.js
        CHECK(str(written) == str(expected));

        // the options
        if (e->options.empty()) continue;
        std::set<std::string> known;
        for (const Call& call : it->second) {
            try {
                run(e->name, call(Options{{"bogus", 1.0}}));
                FAIL("an unknown option was accepted");
            } catch (const Error& err) {
                REQUIRE(err.code() == ErrorCode::unknown_option);
                CHECK(std::get<std::string>(err.param("fn")) == e->name);
                CHECK(std::get<std::string>(err.param("arg")) == "opts.bogus");
                for (const std::string& k : std::get<std::vector<std::string>>(err.param("known"))) known.insert(k);
            }
        }
        CHECK(str(known) == str(std::set<std::string>(e->options.begin(), e->options.end())));
    }
    CHECK(calls.size() == wire::entries().size());   // no call for a row that is gone
}

TEST_CASE("table: a disposed model is an error naming the method") {
    std::string text;
    for (int i = 0; i < 40; ++i) text += "abcdefghij";
    const double id = run("createModel", {text, Options{{"C", 8.0}, {"heads", 2.0}, {"layers", 1.0}, {"tMax", 8.0}}}).numbers_.at("id");
    run("dispose", {id});
    run("dispose", {id});   // twice is harmless
    try {
        run("trainSteps", {id, 1.0});
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
