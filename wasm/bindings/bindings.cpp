// The only file that knows about Emscripten: it carries calls of the entry-point table
// (wire.hpp, table.cpp) across the WebAssembly boundary.
//
// The boundary is a small wire protocol, so a call costs a handful of crossings whatever its
// arguments (per-value Embind marshalling cost more than the math on small inputs):
//   1. JS asks for room (reserve), writes the request into two reused regions of the WASM heap:
//      numbers and tensor data as float64 (`in`), strings and boolean masks as bytes (`bytes`);
//   2. JS calls call(function index); request.cpp decodes the request into the core's own types
//      (Tensor, Options, ...) and runs the table's row, which calls the public C++ API;
//   3. the result comes back as a JSON string describing its structure and one float64 buffer
//      (`out`) that JS slices (request.hpp has both layouts); an error comes back as status 1 and
//      {code, message, params} in the same form (attn/errors.hpp). The structure's hash is
//      published too: JS keeps one compiled reader per structure and reads the JSON only for a
//      structure it has not seen.
// C++ errors never unwind through JS frames (request.cpp catches them), and no Embind class or
// value handle crosses the boundary, so nothing needs .delete() and nothing leaks.
#include <emscripten/bind.h>
#include <malloc.h>

#include <exception>
#include <string>
#include <vector>

#include "request.hpp"

using namespace attn;
using namespace attn::wire;

namespace {

Buffers wire;

// Where things are, for JS to read after each call without another crossing: a fixed block of
// float64 at a stable address (descriptor()), one value per Slot (wire.hpp). reserve() writes the
// request's addresses; call() the status, the result's addresses and lengths and its structure's hash.
double desc[kSlots];

std::uintptr_t addr(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

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
        publish(fail(wire, fn, std::make_exception_ptr(std::bad_alloc())));
        return 1;
    }
    desc[int(Slot::inAddress)] = double(addr(wire.in.data()));
    desc[int(Slot::bytesAddress)] = double(addr(wire.bytes.data()));
    return 0;
}

// Decode the request (its first `header` numbers are the argument descriptions, tensor data follows)
// and run function number `fn`. Status 0: the result is in the wire; 1: an error, in the wire.
int call(double fn, double header) {
    const int status = handle(wire, fn, header);
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
    emscripten::function("wire", &wire_json);
    emscripten::function("reserve", &reserve);
    emscripten::function("call", &call);
}
