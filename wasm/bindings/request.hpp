// A call's round trip over the wire, without Emscripten: the request JS wrote decoded into the
// core's types, the table's row run, and its result (or error) written for JS to read. The WASM
// module keeps the buffers in its heap and tells JS where they are (wasm/bindings/bindings.cpp);
// the native suite runs the same code (tests/native/test_request.cpp).
//
// Request layout (in `in`): the number of arguments, then per argument its tag (wire.hpp) and payload:
//   number: value | string: byte offset, length | numbers: count, values | tensor: name (string),
//   rank, dims, length (its data follows the header region, in request order) | boolTensor: name,
//   rank, dims, length, byte offset | options: count, then per option its key (string) and a
//   tagged value | bad: path, expected type, got type (strings) | absent: nothing (the default).
// Strings and boolean masks are bytes in `bytes`.
// The result: `json` describes its structure, in which every tensor is {"$":[offset,length],"s":[shape]},
// every Float64Array {"$":[offset,length]} and every number {"#":index} into `out`; an error is
// status 1 and {code, message, params} in the same form (attn/errors.hpp).
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "wire.hpp"

namespace attn::wire {

struct Buffers {
    std::vector<double> in, out;       // the request's numbers and tensor data; the result's numbers
    std::vector<std::uint8_t> bytes;   // the request's strings and masks
    std::string json;                  // the result's structure
};

// The arguments of a request to e: its first `header` numbers describe them, tensor data follows.
// A malformed request (one JS does not write) is an internal error; a value JS marked bad is the
// wrong_type error it describes; a shape is checked as the core checks every shape.
Args decode(const Entry& e, const Buffers& b, std::size_t header);
// Runs row number fn of the table on the request in b. Status 0: the result is in b.out and
// b.json; 1: the error is.
int handle(Buffers& b, double fn, double header);
// Writes the error for an exception into b (out_of_memory for std::bad_alloc, internal for any
// other that is not an attn::Error); returns 1.
int fail(Buffers& b, double fn, std::exception_ptr ex);
// A 53-bit hash of a result's structure (JS keeps one compiled reader per structure).
double structure_hash(const std::string& json);

}  // namespace attn::wire
