// The request decoder and the wire writer (wasm/bindings/request.cpp) natively: a request written
// as wasm/js/api.js writes one (its Request class) decodes into the core's types, runs the row and
// comes back as the JSON structure and float64 buffer api.js reads; bad values and malformed
// requests are coded errors, written in the same form.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "attn/attention.hpp"
#include "request.hpp"

using namespace attn;
using wire::Tag;

namespace {

double tag(Tag t) { return double(int(t)); }

// A request in api.js's layout (request.hpp): the argument descriptions, then tensor data.
class Request {
public:
    explicit Request(std::size_t args) { head_.push_back(double(args)); }
    Request& number(double v) { return push({tag(Tag::number), v}); }
    Request& string(const std::string& s) { push({tag(Tag::string)}); return text(s); }
    Request& numbers(const std::vector<double>& v) {
        push({tag(Tag::numbers), double(v.size())});
        return push(v);
    }
    Request& tensor(const std::string& name, const std::vector<double>& shape, const std::vector<double>& data) {
        push({tag(Tag::tensor)});
        text(name).push({double(shape.size())}).push(shape).push({double(data.size())});
        data_.insert(data_.end(), data.begin(), data.end());
        return *this;
    }
    Request& mask(const std::string& name, const std::vector<double>& shape, const std::vector<std::uint8_t>& data) {
        push({tag(Tag::boolTensor)});
        text(name).push({double(shape.size())}).push(shape).push({double(data.size()), double(bytes_.size())});
        bytes_.insert(bytes_.end(), data.begin(), data.end());
        return *this;
    }
    Request& options(std::size_t n) { return push({tag(Tag::options), double(n)}); }
    Request& key(const std::string& k) { return text(k); }
    Request& boolean(bool b) { return push({tag(Tag::boolean), b ? 1.0 : 0.0}); }
    Request& bad(const std::string& arg, const std::string& expected, const std::string& got) {
        push({tag(Tag::bad)});
        return text(arg).text(expected).text(got);
    }
    Request& absent() { return push({tag(Tag::absent)}); }
    Request& raw(double v) { return push({v}); }   // anything, for malformed requests
    // the buffers JS would fill: the header region, then the tensor data
    wire::Buffers buffers() const {
        wire::Buffers b;
        b.in = head_;
        b.in.insert(b.in.end(), data_.begin(), data_.end());
        b.bytes = bytes_;
        return b;
    }
    std::size_t header() const { return head_.size(); }
    Request& text(const std::string& s) {
        push({double(bytes_.size()), double(s.size())});
        bytes_.insert(bytes_.end(), s.begin(), s.end());
        return *this;
    }
private:
    std::vector<double> head_, data_;
    std::vector<std::uint8_t> bytes_;
    Request& push(const std::vector<double>& v) {
        head_.insert(head_.end(), v.begin(), v.end());
        return *this;
    }
};

std::size_t row(const char* name) { return std::size_t(wire::find(name) - wire::entries().data()); }

wire::Args decoded(const char* fn, const Request& r, wire::Buffers& b) {
    b = r.buffers();
    return wire::decode(*wire::find(fn), b, r.header());
}

// The decoding error of a request, as "code: detail" (internal) or "code: message".
std::string error_of(const char* fn, const Request& r) {
    wire::Buffers b;
    try {
        decoded(fn, r, b);
    } catch (const Error& e) {
        return std::string(e.code_name()) + ": " + (e.code() == ErrorCode::internal ? std::get<std::string>(e.param("detail")) : std::string(e.what()));
    }
    return "no error";
}

bool same_bits(const double* a, const double* b, std::size_t n) { return std::memcmp(a, b, n * sizeof(double)) == 0; }

}  // namespace

TEST_SUITE("request") {
    TEST_CASE("request: strings, numbers and options decode into the core's types, and the result comes back as JSON and numbers") {
        Request r(4);
        r.string("learned").number(3).number(2).options(2).key("tMax").number(8).key("seed").number(1);
        wire::Buffers b;
        const wire::Args a = decoded("positions", r, b);
        CHECK(a.text(0) == "learned");
        CHECK(a.number(1) == 3);
        CHECK(a.number(2) == 2);
        CHECK(a.options(3) == Options{{"tMax", 8.0}, {"seed", 1.0}});
        CHECK(wire::handle(b, double(row("positions")), double(r.header())) == 0);
        CHECK(b.json == R"({"$":[0,6],"s":[3,2]})");
        const Tensor want = positions("learned", 3, 2, Options{{"tMax", 8.0}, {"seed", 1.0}});
        REQUIRE(b.out.size() == 6);
        CHECK(same_bits(b.out.data(), want.data(), 6));
    }

    TEST_CASE("request: tensors take their data in request order after the header, masks their bytes from the strings") {
        Request r(2);
        r.tensor("x", {1, 2, 2}, {1, 2, 3, 4}).options(4);
        r.key("wq").tensor("opts.wq", {2, 2}, {5, 6, 7, 8}).key("wk").tensor("opts.wk", {2, 2}, {9, 10, 11, 12});
        r.key("wv").tensor("opts.wv", {2, 2}, {13, 14, 15, 16}).key("causal").boolean(true);
        wire::Buffers b;
        const wire::Args a = decoded("multiHeadAttention", r, b);
        CHECK(a.tensor(0) == Tensor{{{1, 2}, {3, 4}}});
        const Options& o = a.options(1);
        CHECK(std::get<Tensor>(o.at("wq")) == Tensor{{5, 6}, {7, 8}});
        CHECK(std::get<Tensor>(o.at("wk")) == Tensor{{9, 10}, {11, 12}});
        CHECK(std::get<Tensor>(o.at("wv")) == Tensor{{13, 14}, {15, 16}});
        CHECK(std::get<bool>(o.at("causal")));

        Request s(2);
        s.tensor("scores", {2, 2}, {1, 2, 3, 4}).options(2).key("mask").mask("opts.mask", {2, 2}, {1, 0, 0, 0}).key("maskOrder").string("after");
        const wire::Args sa = decoded("softmax", s, b);
        CHECK(std::get<BoolTensor>(sa.options(1).at("mask")) == BoolTensor{{1, 0}, {0, 0}});
        CHECK(std::get<std::string>(sa.options(1).at("maskOrder")) == "after");
        CHECK(wire::handle(b, double(row("softmax")), double(s.header())) == 0);
        CHECK(b.json == R"({"shape":[{"#":0},{"#":1}],"data":{"$":[2,4]},"maskedRows":[[{"#":6}]]})");
        const SoftmaxResult want = softmax(Tensor{{1, 2}, {3, 4}}, sa.options(1));
        REQUIRE(b.out.size() == 7);
        CHECK(b.out[0] == 2);
        CHECK(b.out[1] == 2);
        CHECK(same_bits(b.out.data() + 2, want.weights.data(), 4));
        CHECK(b.out[6] == 1);   // row 1 has nothing allowed: it is zeros after the softmax
    }

    TEST_CASE("request: an absent argument takes its default, one without a default is a wrong_type error") {
        Request r(3);
        r.numbers({2, 3}).absent().absent();
        wire::Buffers b;
        const wire::Args a = decoded("randn", r, b);
        CHECK(a.numbers(0) == std::vector<double>{2, 3});
        CHECK(a.number(1) == 0);
        CHECK(a.number(2) == 1);
        CHECK(wire::handle(b, double(row("randn")), double(r.header())) == 0);
        const Tensor want = randn({2, 3}, 0);
        CHECK(same_bits(b.out.data(), want.data(), 6));
        Request t(2);
        t.absent().absent();
        CHECK(error_of("softmax", t) == "wrong_type: softmax: scores must be a tensor {shape: number[], data: Float64Array}, got undefined");
    }

    TEST_CASE("request: a value JS marked bad is the wrong_type error it names, written as {code, message, params}") {
        Request r(2);
        r.tensor("scores", {1, 2}, {1, 2}).options(1).key("dim").bad("opts.dim", "number", "bigint");
        CHECK(error_of("softmax", r) == "wrong_type: softmax: opts.dim must be a number, got a bigint");
        wire::Buffers b = r.buffers();
        CHECK(wire::handle(b, double(row("softmax")), double(r.header())) == 1);
        CHECK(b.json ==
              R"({"code":"wrong_type","message":"softmax: opts.dim must be a number, got a bigint","params":{"fn":"softmax","arg":"opts.dim",)"
              R"("expectedType":"number","gotType":"bigint"}})");
        Request s(2);
        s.bad("a", "tensor", "string").tensor("b", {1}, {1});
        CHECK(error_of("maxAbsDiff", s) == "wrong_type: maxAbsDiff: a must be a tensor {shape: number[], data: Float64Array}, got a string");
    }

    TEST_CASE("request: a shape that does not fit its data is the core's shape error, numbers in the error's params written as numbers") {
        Request r(2);
        r.tensor("a", {2, 2}, {1, 2, 3}).tensor("b", {1}, {1});
        CHECK(error_of("maxAbsDiff", r) == "shape_data: maxAbsDiff: a: shape (2, 2) needs 4 values, data has 3");
        wire::Buffers b = r.buffers();
        CHECK(wire::handle(b, double(row("maxAbsDiff")), double(r.header())) == 1);
        CHECK(b.json == R"({"code":"shape_data","message":"maxAbsDiff: a: shape (2, 2) needs 4 values, data has 3","params":{"fn":"maxAbsDiff",)"
                        R"("arg":"a","shape":[{"#":0},{"#":1}],"elements":{"#":2},"length":{"#":3}}})");
        CHECK(b.out == std::vector<double>{2, 2, 4, 3});
    }

    TEST_CASE("request: a malformed request is an internal error naming what is wrong") {
        Request early(2);
        early.tensor("a", {1}, {1});
        CHECK(error_of("maxAbsDiff", early) == "internal: the request ended early");
        Request count(1);
        count.tensor("a", {1}, {1});
        CHECK(error_of("maxAbsDiff", count) == "internal: the request has 1 arguments");
        Request string(4);
        string.raw(tag(Tag::string)).raw(0).raw(99);
        CHECK(error_of("positions", string) == "internal: a string is outside the request");
        Request mask(2);
        mask.tensor("scores", {1, 1}, {1}).options(1).key("mask").raw(tag(Tag::boolTensor)).text("opts.mask").raw(2).raw(1).raw(1).raw(1).raw(50);
        CHECK(error_of("softmax", mask) == "internal: a mask is outside the request");
        Request option(2);
        option.tensor("scores", {1}, {1}).options(1).key("dim").raw(99);
        CHECK(error_of("softmax", option) == "internal: option 'dim' has an unknown tag");
        Request argument(2);
        argument.raw(99);
        CHECK(error_of("softmax", argument) == "internal: argument 0 has an unknown tag");
        wire::Buffers b = Request(0).buffers();
        CHECK(wire::handle(b, double(wire::entries().size()), 1) == 1);
        CHECK(b.json.find(R"("code":"internal")") != std::string::npos);
        CHECK(b.json.find("unknown function") != std::string::npos);
    }

    TEST_CASE("request: tensor data past the request is an internal error, and failures are written for JS") {
        Request r(2);
        r.tensor("a", {3}, {1, 2, 3}).tensor("b", {3}, {1, 2, 3});
        wire::Buffers b = r.buffers();
        b.in.resize(b.in.size() - 2);   // the second tensor's data cut short
        try {
            wire::decode(*wire::find("maxAbsDiff"), b, r.header());
            FAIL("a cut request was decoded");
        } catch (const Error& e) {
            CHECK(e.code() == ErrorCode::internal);
            CHECK(std::get<std::string>(e.param("detail")) == "tensor data is outside the request");
        }
        CHECK(wire::fail(b, double(row("maxAbsDiff")), std::make_exception_ptr(std::bad_alloc())) == 1);
        CHECK(b.json == R"({"code":"out_of_memory","message":"maxAbsDiff: the arguments or the result are too large for this tab's WebAssembly memory",)"
                        R"("params":{"fn":"maxAbsDiff"}})");
        CHECK(wire::fail(b, -1, std::make_exception_ptr(std::runtime_error("boom"))) == 1);
        CHECK(b.json == R"({"code":"internal","message":": internal error: boom","params":{"fn":"","detail":"boom"}})");
    }

    TEST_CASE("request: the structure hash is the same for the same structure and differs for another") {
        Request r(2);
        r.tensor("a", {2}, {1, 2}).tensor("b", {2}, {1, 3});
        wire::Buffers b = r.buffers();
        REQUIRE(wire::handle(b, double(row("maxAbsDiff")), double(r.header())) == 0);
        CHECK(b.json == R"({"#":0})");
        CHECK(b.out == std::vector<double>{1});
        const double h = wire::structure_hash(b.json);
        CHECK(h == wire::structure_hash(R"({"#":0})"));
        CHECK(h != wire::structure_hash(R"({"#":1})"));
        CHECK(h == std::floor(h));
        CHECK(h < 9007199254740992.0);   // 53 bits: a JS number holds it exactly
        CHECK(wire::structure_hash(R"({"$":[0,6],"s":[3,2]})") != wire::structure_hash(R"({"$":[0,6],"s":[2,3]})"));
    }
}
