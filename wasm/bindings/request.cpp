// A call's round trip over the wire (request.hpp): the request decoded, the row run, the result
// or the error written into the buffers JS reads.
#include <charconv>
#include <cstdio>
#include <cstring>

#include "request.hpp"

namespace attn::wire {

namespace {

[[noreturn]] void internal(std::string_view fn, const std::string& detail) {
    throw Error(ErrorCode::internal, {{"fn", fn}, {"detail", detail}});
}

// Decodes a request into the core's types.
class Reader {
public:
    Reader(const Entry& e, const Buffers& b, std::size_t header) : e_(e), b_(b), data_(header) {}
    double next() {
        if (pos_ >= b_.in.size()) internal(e_.name, "the request ended early");
        return b_.in[pos_++];
    }
    std::size_t index() { return std::size_t(next()); }
    std::string text() {
        const std::size_t off = index(), len = index();
        if (off + len > b_.bytes.size()) internal(e_.name, "a string is outside the request");
        return std::string(reinterpret_cast<const char*>(b_.bytes.data() + off), len);
    }
    // dims and data of a tensor; float data follows the header region in request order, boolean
    // data is in the bytes
    template <class T>
    T tensor(bool boolean) {
        const std::string name = text();
        const std::size_t rank = index();
        std::vector<double> dims;   // read one by one: a rank past the request is a malformed request
        for (std::size_t i = 0; i < rank; ++i) dims.push_back(next());
        const std::size_t length = index();
        const Shape s = checked_shape(e_.name, name, dims, length);   // the C++ API checks the shape
        T t = T::from_shape(s);
        if (boolean) {
            const std::size_t off = index();
            if (off + length > b_.bytes.size()) internal(e_.name, "a mask is outside the request");
            std::copy_n(b_.bytes.begin() + long(off), length, t.data());
        } else {
            if (data_ + length > b_.in.size()) internal(e_.name, "tensor data is outside the request");
            std::copy_n(b_.in.begin() + long(data_), length, t.data());
            data_ += length;
        }
        return t;
    }
    std::vector<double> numbers() {
        std::vector<double> v(index());
        for (double& x : v) x = next();
        return v;
    }
    [[noreturn]] void bad() {
        const std::string arg = text(), expected = text(), got = text();
        throw Error(ErrorCode::wrong_type, {{"fn", e_.name}, {"arg", arg}, {"expectedType", expected}, {"gotType", got}});
    }
    Options options() {
        Options o;
        const std::size_t n = index();
        for (std::size_t i = 0; i < n; ++i) {
            const std::string key = text();
            switch (Tag(int(next()))) {
                case Tag::number: o[key] = next(); break;
                case Tag::string: o[key] = text(); break;
                case Tag::boolean: o[key] = next() != 0.0; break;
                case Tag::tensor: o[key] = this->tensor<Tensor>(false); break;
                case Tag::boolTensor: o[key] = this->tensor<BoolTensor>(true); break;
                case Tag::bad: this->bad();
                default: internal(e_.name, "option '" + key + "' has an unknown tag");
            }
        }
        return o;
    }
    // argument i, as the table declares it
    Arg argument(std::size_t i) {
        switch (Tag(int(next()))) {
            case Tag::number: return next();
            case Tag::string: return text();
            case Tag::numbers: return this->numbers();
            case Tag::tensor: return this->tensor<Tensor>(false);
            case Tag::options: return this->options();
            case Tag::absent: return default_arg(e_, i);
            case Tag::bad: this->bad();
            default: internal(e_.name, "argument " + std::to_string(i) + " has an unknown tag");
        }
    }
private:
    const Entry& e_;
    const Buffers& b_;
    std::size_t pos_ = 0, data_;
};

// Writes a result into the buffers: JSON for the structure, numbers and tensor data in `out`.
class WireWriter final : public Writer {
public:
    explicit WireWriter(Buffers& b) : b_(b) { b_.out.clear(); b_.json.clear(); }
    Writer& begin() override { sep(); b_.json += '{'; first_ = true; return *this; }
    Writer& end() override { b_.json += '}'; first_ = false; return *this; }
    Writer& begin_list() override { sep(); b_.json += '['; first_ = true; return *this; }
    Writer& end_list() override { b_.json += ']'; first_ = false; return *this; }
    Writer& key(const char* k) override { sep(); b_.json += '"'; b_.json += k; b_.json += "\":"; first_ = true; return *this; }
    Writer& number(double v) override {
        sep();
        b_.json += "{\"#\":";
        put(b_.out.size());
        b_.json += '}';
        b_.out.push_back(v);
        return *this;
    }
    Writer& boolean(bool b) override { sep(); b_.json += b ? "true" : "false"; return *this; }
    Writer& string(const std::string& s) override {
        sep();
        b_.json += '"';
        for (unsigned char c : s) {
            if (c == '"' || c == '\\') { b_.json += '\\'; b_.json += char(c); }
            else if (c < 0x20) { char buf[8]; std::snprintf(buf, sizeof buf, "\\u%04x", c); b_.json += buf; }
            else b_.json += char(c);
        }
        b_.json += '"';
        return *this;
    }
    Writer& tensor(const Tensor& t) override {
        values(t.data(), t.size());
        b_.json.pop_back();   // reopen {"$":[...]} to add the shape
        b_.json += ",\"s\":[";
        for (std::size_t i = 0; i < t.dimension(); ++i) {
            if (i) b_.json += ',';
            put(t.shape()[i]);
        }
        b_.json += "]}";
        return *this;
    }
    void reserve(std::size_t n) override { b_.out.reserve(b_.out.size() + n); }
    Writer& values(const double* p, std::size_t n) override {
        sep();
        b_.json += "{\"$\":[";
        put(b_.out.size());
        b_.json += ',';
        put(n);
        b_.json += "]}";
        b_.out.insert(b_.out.end(), p, p + n);
        return *this;
    }
private:
    Buffers& b_;
    bool first_ = true;
    void sep() { if (!first_) b_.json += ','; first_ = false; }
    // Appends a whole number to the JSON without a temporary string.
    void put(std::size_t v) {
        char buf[24];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        b_.json.append(buf, r.ptr);
    }
};

const Entry* entry(double fn) { return fn >= 0 && fn < double(entries().size()) ? &entries()[std::size_t(fn)] : nullptr; }

}  // namespace

Args decode(const Entry& e, const Buffers& b, std::size_t header) {
    Reader in{e, b, header};
    Args args{e, {}};
    const std::size_t n = in.index();
    if (n != e.args.size()) internal(e.name, "the request has " + std::to_string(n) + " arguments");
    for (std::size_t i = 0; i < n; ++i) args.v.push_back(in.argument(i));
    return args;
}

int handle(Buffers& b, double fn, double header) {
    try {
        const Entry* e = entry(fn);
        if (!e) internal("", "unknown function " + std::to_string(fn));
        const Args args = decode(*e, b, std::size_t(header));
        WireWriter w(b);
        e->run(args, w);
        return 0;
    } catch (...) {
        return fail(b, fn, std::current_exception());
    }
}

int fail(Buffers& b, double fn, std::exception_ptr ex) {
    const std::string_view name = entry(fn) ? entry(fn)->name : "";
    try {
        try {
            std::rethrow_exception(ex);
        } catch (const Error& e) {
            WireWriter w(b);
            write(w, e);
        } catch (const std::bad_alloc&) {
            WireWriter w(b);
            write(w, Error(ErrorCode::out_of_memory, {{"fn", name}}));
        } catch (const std::exception& e) {
            WireWriter w(b);
            write(w, Error(ErrorCode::internal, {{"fn", name}, {"detail", e.what()}}));
        }
    } catch (...) {   // no memory even for the message
        b.out.clear();
        b.json = "{}";
    }
    return 1;
}

// FNV-1a over 8-byte words (cheap next to building the JSON), its bits mixed at the end.
double structure_hash(const std::string& s) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
    }
    for (; i < s.size(); ++i) h = (h ^ static_cast<unsigned char>(s[i])) * 0x100000001b3ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return double(h >> 11);
}

}  // namespace attn::wire
