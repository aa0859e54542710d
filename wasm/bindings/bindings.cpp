// The only file that knows about Emscripten: it carries calls of the entry-point table
// (wire.hpp, table.cpp) across the WebAssembly boundary.
//
// The boundary is a small wire protocol, so a call costs a handful of crossings whatever its
// arguments (per-value Embind marshalling cost more than the math on small inputs):
//   1. JS asks for room (reserve), writes the request into two reused regions of the WASM heap:
//      numbers and tensor data as float64 (`in`), strings and boolean masks as bytes (`bytes`);
//   2. JS calls call(function index); this file decodes the request into the core's own types
//      (Tensor, Options, ...) and runs the table's row, which calls the public C++ API;
//   3. the result comes back as a JSON string describing its structure, in which every tensor is
//      {"$":[offset,length],"s":[shape]} and every number {"#":index} into one float64 buffer
//      (`out`) that JS slices; an error comes back as status 1 and {code, message, params} in the
//      same form (attn/errors.hpp). The structure's hash is published too: JS keeps one compiled
//      reader per structure and reads the JSON only for a structure it has not seen.
// Request layout (in `in`): the number of arguments, then per argument its tag and payload:
//   number: value | string: byte offset, length | numbers: count, values | tensor: name (string),
//   rank, dims, length (its data follows the header region, in request order) | boolTensor: name,
//   rank, dims, length, byte offset | options: count, then per option its key (string) and a
//   tagged value | bad: path, expected type, got type (strings) | absent: nothing (the default).
// C++ errors never unwind through JS frames (they are caught here), and no Embind class or value
// handle crosses the boundary, so nothing needs .delete() and nothing leaks.
#include <emscripten/bind.h>
#include <malloc.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "wire.hpp"

using namespace attn;
using namespace attn::wire;

namespace {

struct Wire {
    std::vector<double> in, out;
    std::vector<std::uint8_t> bytes;
    std::string json;
} wire;

// Where things are, for JS to read after each call without another crossing: a fixed block of
// float64 at a stable address (descriptor()), one value per Slot (wire.hpp). reserve() writes the
// request's addresses; call() the status, the result's addresses and lengths and its structure's hash.
double desc[kSlots];

std::uintptr_t addr(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

[[noreturn]] void internal(std::string_view fn, const std::string& detail) {
    throw Error(ErrorCode::internal, {{"fn", fn}, {"detail", detail}});
}

// Decodes a request into the core's types.
class Reader {
public:
    Reader(const Entry& e, std::size_t header) : e_(e), data_(header) {}
    double next() {
        if (pos_ >= wire.in.size()) internal(e_.name, "the request ended early");
        return wire.in[pos_++];
    }
    std::size_t index() { return std::size_t(next()); }
    std::string text() {
        const std::size_t off = index(), len = index();
        if (off + len > wire.bytes.size()) internal(e_.name, "a string is outside the request");
        return std::string(reinterpret_cast<const char*>(wire.bytes.data() + off), len);
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
            if (off + length > wire.bytes.size()) internal(e_.name, "a mask is outside the request");
            std::copy_n(wire.bytes.begin() + long(off), length, t.data());
        } else {
            if (data_ + length > wire.in.size()) internal(e_.name, "tensor data is outside the request");
            std::copy_n(wire.in.begin() + long(data_), length, t.data());
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
    std::size_t pos_ = 0, data_;
};

// Appends a whole number to the JSON without a temporary string.
void put(std::size_t v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    wire.json.append(buf, r.ptr);
}

// Writes a result into the wire: JSON for the structure, numbers and tensor data in wire.out.
class WireWriter final : public Writer {
public:
    WireWriter() { wire.out.clear(); wire.json.clear(); }
    Writer& begin() override { sep(); wire.json += '{'; first_ = true; return *this; }
    Writer& end() override { wire.json += '}'; first_ = false; return *this; }
    Writer& begin_list() override { sep(); wire.json += '['; first_ = true; return *this; }
    Writer& end_list() override { wire.json += ']'; first_ = false; return *this; }
    Writer& key(const char* k) override { sep(); wire.json += '"'; wire.json += k; wire.json += "\":"; first_ = true; return *this; }
    Writer& number(double v) override {
        sep();
        wire.json += "{\"#\":";
        put(wire.out.size());
        wire.json += '}';
        wire.out.push_back(v);
        return *this;
    }
    Writer& boolean(bool b) override { sep(); wire.json += b ? "true" : "false"; return *this; }
    Writer& string(const std::string& s) override {
        sep();
        wire.json += '"';
        for (unsigned char c : s) {
            if (c == '"' || c == '\\') { wire.json += '\\'; wire.json += char(c); }
            else if (c < 0x20) { char buf[8]; std::snprintf(buf, sizeof buf, "\\u%04x", c); wire.json += buf; }
            else wire.json += char(c);
        }
        wire.json += '"';
        return *this;
    }
    Writer& tensor(const Tensor& t) override {
        values(t.data(), t.size());
        wire.json.pop_back();   // reopen {"$":[...]} to add the shape
        wire.json += ",\"s\":[";
        for (std::size_t i = 0; i < t.dimension(); ++i) {
            if (i) wire.json += ',';
            put(t.shape()[i]);
        }
        wire.json += "]}";
        return *this;
    }
    Writer& values(const double* p, std::size_t n) override {
        sep();
        wire.json += "{\"$\":[";
        put(wire.out.size());
        wire.json += ',';
        put(n);
        wire.json += "]}";
        wire.out.insert(wire.out.end(), p, p + n);
        return *this;
    }
private:
    bool first_ = true;
    void sep() { if (!first_) wire.json += ','; first_ = false; }
};

// A 53-bit hash of the result's structure (JS keys its compiled readers by it): FNV-1a over
// 8-byte words, cheap next to building the JSON.
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

const Entry* entry(double fn) { return fn >= 0 && fn < double(entries().size()) ? &entries()[std::size_t(fn)] : nullptr; }

// Writes the error for any exception; status 1.
int fail(double fn, std::exception_ptr ex) {
    const std::string_view name = entry(fn) ? entry(fn)->name : "";
    try {
        try {
            std::rethrow_exception(ex);
        } catch (const Error& e) {
            WireWriter w;
            write(w, e);
        } catch (const std::bad_alloc&) {
            WireWriter w;
            write(w, Error(ErrorCode::out_of_memory, {{"fn", name}}));
        } catch (const std::exception& e) {
            WireWriter w;
            write(w, Error(ErrorCode::internal, {{"fn", name}, {"detail", e.what()}}));
        }
    } catch (...) {   // no memory even for the message
        wire.out.clear();
        wire.json = "{}";
    }
    return 1;
}

// Where the result (or the error) is, for JS.
void publish(int status) {
    desc[int(Slot::status)] = status;
    desc[int(Slot::outAddress)] = double(addr(wire.out.data()));
    desc[int(Slot::outLength)] = double(wire.out.size());
    desc[int(Slot::jsonAddress)] = double(addr(wire.json.data()));
    desc[int(Slot::jsonLength)] = double(wire.json.size());
    desc[int(Slot::structure)] = status == 0 ? structure_hash(wire.json) : 0.0;
}

// ---- entry points -------------------------------------------------------------------------------
double descriptor() { return double(addr(desc)); }

// Room for a request to function number `fn`: `numbers` float64 values and `bytes` bytes (the
// addresses move when the vectors grow, so they are written to the descriptor each time).
// 0: done; 1: no memory for it, and the error is in the wire as after call().
int reserve(double fn, double numbers, double bytes) {
    // a large result from the last call has been copied out by now
    if (wire.out.capacity() > (std::size_t(1) << 20)) std::vector<double>().swap(wire.out);
    try {
        if (!(numbers >= 0 && bytes >= 0 && numbers <= 2e8 && bytes <= 2e9)) throw std::bad_alloc();
        wire.in.resize(std::size_t(numbers));
        wire.bytes.resize(std::size_t(bytes));
    } catch (const std::exception&) {
        std::vector<double>().swap(wire.in);   // give back what a failed growth may hold
        std::vector<std::uint8_t>().swap(wire.bytes);
        publish(fail(fn, std::make_exception_ptr(std::bad_alloc())));
        return 1;
    }
    desc[int(Slot::inAddress)] = double(addr(wire.in.data()));
    desc[int(Slot::bytesAddress)] = double(addr(wire.bytes.data()));
    return 0;
}

// Decode the request (its first `header` numbers are the argument descriptions, tensor data follows)
// and run function number `fn`. Status 0: the result is in the wire; 1: an error, in the wire.
int call(double fn, double header) {
    int status = 1;
    try {
        const Entry* e = entry(fn);
        if (!e) internal("", "unknown function " + std::to_string(fn));
        Reader in{*e, std::size_t(header)};
        Args args{*e, {}};
        const std::size_t n = in.index();
        if (n != e->args.size()) internal(e->name, "the request has " + std::to_string(n) + " arguments");
        for (std::size_t i = 0; i < n; ++i) args.v.push_back(in.argument(i));
        WireWriter w;
        e->run(args, w);
        status = 0;
    } catch (...) {
        status = fail(fn, std::current_exception());
    }
    // Keep small buffers for the next call; give big ones back (JS copies the result out first,
    // so only the request can go now: a very large call should not hold memory for the tab's life).
    if (wire.in.capacity() > (std::size_t(1) << 20)) std::vector<double>().swap(wire.in);
    if (wire.bytes.capacity() > (std::size_t(8) << 20)) std::vector<std::uint8_t>().swap(wire.bytes);
    publish(status);
    return status;
}

// the wire's own buffers, for memoryStats
double wire_bytes() { return double((wire.in.capacity() + wire.out.capacity()) * 8 + wire.bytes.capacity() + wire.json.capacity()); }

}  // namespace

MemoryStats attn::wire::memory_stats() {
    return {double(mallinfo().uordblks), double(__builtin_wasm_memory_size(0)) * 65536.0, wire_bytes()};
}

EMSCRIPTEN_BINDINGS(attention_lab) {
    emscripten::function("descriptor", &descriptor);
    emscripten::function("describe", &describe_json);
    emscripten::function("reserve", &reserve);
    emscripten::function("call", &call);
}
