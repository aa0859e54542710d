// The chapter's exercise 1 through the installed core: scores [0, ln 2, 0] give the weights
// [1/4, 1/2, 1/4], and the values [2, 4, 10] give 2/4 + 4/2 + 10/4 = 5. Exit status 0 when the
// numbers are right, 1 otherwise; and a wrong shape is an attn::Error that names the argument.
#include <cmath>
#include <cstdio>

#include "attn/attention.hpp"

int main() {
    const attn::Tensor scores = attn::Tensor{0.0, std::log(2.0), 0.0};   // one row, as a 1-D tensor
    const attn::Tensor w = attn::softmax(scores, attn::SoftmaxOptions{}).weights;
    const double want[3] = {0.25, 0.5, 0.25};
    int bad = 0;
    for (std::size_t j = 0; j < 3; ++j) bad += std::abs(w(j) - want[j]) > 1e-15;
    attn::Tensor row = w;
    row.reshape({1, 3});
    attn::Tensor v = attn::Tensor::from_shape({3, 1});
    v(0, 0) = 2.0, v(1, 0) = 4.0, v(2, 0) = 10.0;
    const double y = attn::matmul(row, v)(0, 0);
    bad += std::abs(y - 5.0) > 1e-14;
    try {
        attn::matmul(row, attn::Tensor::from_shape({1, 2}));   // (1, 3) x (1, 2) must be refused
        bad += 1;
    } catch (const attn::Error& e) {
        std::printf("refused as expected: %s\n", e.what());
    }
    std::printf("weights %.17g %.17g %.17g, y = %.17g: %s\n", w(0), w(1), w(2), y, bad ? "WRONG" : "right");
    return bad ? 1 : 0;
}
