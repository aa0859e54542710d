// 18.7: dropout statistics in evaluation mode are evaluation statistics. Dropout is then the
// identity, so one sample's row sums and the mean over any number of samples are the weights'
// own row sums (1 for softmax rows), whatever p and the seed; in training they are not.
#include <doctest/doctest.h>

#include <cmath>

#include "attn/attention.hpp"

using namespace attn;

TEST_SUITE("18.7 counterexample checks") {
    TEST_CASE("dropoutStats in evaluation: every sample is the weights, so every row sums to exactly its own sum") {
        SoftmaxOptions so;
        so.mask = MaskKind::Causal;
        const Tensor w = softmax(randn({2, 5, 5}, 121), so).weights;   // (B, T, T)
        const Tensor sums = sum_along(w, -1);
        for (double p : {0.1, 0.5, 0.9}) {
            const DropoutStats ev = dropout_stats(w, p, 2000, 7, false);
            CHECK(max_abs_diff(ev.sample_row_sums, sums) == 0.0);
            CHECK(max_abs_diff(ev.mean_row_sums, sums) <= 1e-12);   // 2000 additions of sum / 2000
            const DropoutStats tr = dropout_stats(w, p, 2000, 7, true);
            CHECK(max_abs_diff(tr.sample_row_sums, sums) > 1e-3);
        }
        // through the options, as the page calls it
        const DropoutStats ev = dropout_stats(w, Options{{"p", 0.5}, {"samples", 2000.0}, {"seed", 1.0}, {"training", false}});
        CHECK(max_abs_diff(ev.sample_row_sums, sums) == 0.0);
        const DropoutStats tr = dropout_stats(w, Options{{"p", 0.5}, {"samples", 2000.0}, {"seed", 1.0}});   // training by default
        CHECK(max_abs_diff(tr.mean_row_sums, sums) > 1e-4);
        CHECK_THROWS_AS(dropout_stats(w, Options{{"training", 1.0}}), Error);
    }
}
