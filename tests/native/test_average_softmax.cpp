// 18.1 averaging the past, 18.2 masked softmax, and the chapter's exercises 1 and 2.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "attn/attention.hpp"
#include "reference.hpp"

using namespace attn;

TEST_SUITE("18.1 averaging the past") {
    const Tensor X = {{2.0, 0.0}, {0.0, 4.0}, {4.0, 2.0}};   // the chapter's example

    TEST_CASE("the loop average of the chapter's X is (2,0), (1,2), (2,2) exactly") {
        const Tensor y = causal_average(X, AverageMethod::Loop);
        const Tensor want = {{2.0, 0.0}, {1.0, 2.0}, {2.0, 2.0}};
        CHECK(max_abs_diff(y, want) == 0.0);
    }

    TEST_CASE("matrix and softmax averages differ from the loop by at most 2.22e-16") {
        const Tensor loop = causal_average(X, AverageMethod::Loop);
        SUBCASE("matrix") { CHECK(max_abs_diff(causal_average(X, AverageMethod::Matrix), loop) <= 2.22e-16); }
        SUBCASE("softmax") { CHECK(max_abs_diff(causal_average(X, AverageMethod::Softmax), loop) <= 2.22e-16); }
        SUBCASE("on seeded random (B, T, C)") {
            const Tensor x = randn({3, 17, 5}, 11);
            const Tensor l = causal_average(x, AverageMethod::Loop);
            CHECK(max_abs_diff(causal_average(x, AverageMethod::Matrix), l) < 1e-15);
            CHECK(max_abs_diff(causal_average(x, AverageMethod::Softmax), l) < 1e-15);
            CHECK(max_abs_diff(causal_average(x, AverageMethod::Matrix), l) > 0.0);   // rounding is real
        }
    }

    TEST_CASE("the averaging matrix is the chapter's A - without normalizing it sums") {
        const Tensor A = averaging_matrix(3, true);
        const Tensor want = {{1.0, 0.0, 0.0}, {0.5, 0.5, 0.0}, {1.0 / 3, 1.0 / 3, 1.0 / 3}};
        CHECK(max_abs_diff(A, want) == 0.0);
        const Tensor L = averaging_matrix(3, false);
        const Tensor ones = {{1.0, 0.0, 0.0}, {1.0, 1.0, 0.0}, {1.0, 1.0, 1.0}};
        CHECK(max_abs_diff(L, ones) == 0.0);
        // L X: cumulative sums that grow, (2,0), (2,4), (6,6)
        Tensor y = xt::zeros<double>(Shape{3, 2});
        for (int t = 0; t < 3; ++t)
            for (int c = 0; c < 2; ++c)
                for (int j = 0; j < 3; ++j) y(t, c) += L(t, j) * X(j, c);
        const Tensor cums = {{2.0, 0.0}, {2.0, 4.0}, {6.0, 6.0}};
        CHECK(max_abs_diff(y, cums) == 0.0);
    }

    TEST_CASE("one A is broadcast over the batch, not averaged across it") {
        Tensor xb = Tensor::from_shape({2, 3, 2});
        for (int t = 0; t < 3; ++t)
            for (int c = 0; c < 2; ++c) { xb(0, t, c) = X(t, c); xb(1, t, c) = 10 * X(t, c); }
        const Tensor y = causal_average(xb, AverageMethod::Matrix);
        REQUIRE(y.shape() == Tensor::shape_type{2, 3, 2});
        CHECK(y(0, 1, 1) == doctest::Approx(2.0));
        CHECK(y(1, 1, 1) == doctest::Approx(20.0));
        CHECK(y(1, 2, 0) == doctest::Approx(20.0));
    }
}

TEST_SUITE("18.2 masked softmax") {
    TEST_CASE("softmax over any dim of a 4-D tensor matches the reference and sums to 1 along it") {
        const Tensor s = randn({2, 3, 4, 5}, 3);
        for (long dim = -4; dim < 4; ++dim) {
            CAPTURE(dim);
            SoftmaxOptions o;
            o.dim = dim;
            const Tensor w = softmax(s, o).weights;
            const std::size_t a = std::size_t(dim < 0 ? dim + 4 : dim);
            // walk every row along axis a
            std::size_t outer = 1, inner = 1, n = s.shape()[a];
            for (std::size_t i = 0; i < a; ++i) outer *= s.shape()[i];
            for (std::size_t i = a + 1; i < 4; ++i) inner *= s.shape()[i];
            double worst = 0;
            for (std::size_t o2 = 0; o2 < outer; ++o2)
                for (std::size_t in = 0; in < inner; ++in) {
                    std::vector<double> row(n);
                    for (std::size_t j = 0; j < n; ++j) row[j] = s.data()[(o2 * n + j) * inner + in];
                    const auto r = ref::softmax(row);
                    double sum = 0;
                    for (std::size_t j = 0; j < n; ++j) {
                        const double got = w.data()[(o2 * n + j) * inner + in];
                        worst = std::max(worst, std::fabs(got - r[j]));
                        sum += got;
                    }
                    CHECK(sum == doctest::Approx(1.0).epsilon(1e-14));
                }
            CHECK(worst < 1e-15);
        }
    }

    TEST_CASE("a causal mask before the softmax gives the averaging matrix - after, rows sum to less than 1") {
        const Tensor zeros = xt::zeros<double>(Shape{3, 3});
        SoftmaxOptions o;
        o.mask = MaskKind::Causal;
        SUBCASE("before") {
            const Tensor w = softmax(zeros, o).weights;
            CHECK(max_abs_diff(w, averaging_matrix(3, true)) == 0.0);
        }
        SUBCASE("after") {
            o.order = MaskOrder::After;
            const Tensor w = softmax(zeros, o).weights;
            const Tensor want = {{1.0 / 3, 0.0, 0.0}, {1.0 / 3, 1.0 / 3, 0.0}, {1.0 / 3, 1.0 / 3, 1.0 / 3}};
            CHECK(max_abs_diff(w, want) == 0.0);
            CHECK(w(0, 0) + w(0, 1) + w(0, 2) == doctest::Approx(1.0 / 3));
        }
    }

    TEST_CASE("the causal mask is top-left aligned when Tq != Tk, as in PyTorch") {
        const Tensor s = xt::zeros<double>(Shape{2, 4});
        SoftmaxOptions o;
        o.mask = MaskKind::Causal;
        const Tensor w = softmax(s, o).weights;
        const Tensor want = {{1.0, 0.0, 0.0, 0.0}, {0.5, 0.5, 0.0, 0.0}};
        CHECK(max_abs_diff(w, want) == 0.0);
    }

    TEST_CASE("a boolean mask is broadcast over leading axes - a fully masked row is NaN and reported") {
        const Tensor s = randn({2, 3, 3}, 5);
        SoftmaxOptions o;
        o.mask = MaskKind::Explicit;
        o.mask_tensor = BoolTensor{{1, 0, 1}, {0, 0, 0}, {1, 1, 1}};
        const SoftmaxResult r = softmax(s, o);
        for (std::size_t b = 0; b < 2; ++b) {
            CHECK(r.weights(b, 0, 1) == 0.0);
            CHECK(r.weights(b, 0, 0) + r.weights(b, 0, 2) == doctest::Approx(1.0));
            for (std::size_t j = 0; j < 3; ++j) CHECK(std::isnan(r.weights(b, 1, j)));
            const auto want = ref::softmax({s(b, 2, 0), s(b, 2, 1), s(b, 2, 2)});
            for (std::size_t j = 0; j < 3; ++j) CHECK(r.weights(b, 2, j) == doctest::Approx(want[j]));
        }
        REQUIRE(r.masked_rows.size() == 2);
        CHECK(r.masked_rows[0] == std::vector<std::size_t>{0, 1});
        CHECK(r.masked_rows[1] == std::vector<std::size_t>{1, 1});
        SUBCASE("after: the fully masked row is zeros, not NaN") {
            o.order = MaskOrder::After;
            const SoftmaxResult a = softmax(s, o);
            for (std::size_t j = 0; j < 3; ++j) CHECK(a.weights(0, 1, j) == 0.0);
            CHECK(a.masked_rows.size() == 2);
        }
    }

    TEST_CASE("huge scores stay finite: 1e300 takes all the weight") {
        const Tensor s = {1e300, 0.0, -1e300};
        const Tensor w = softmax(s, SoftmaxOptions{}).weights;
        CHECK(w(0) == 1.0);
        CHECK(w(1) == 0.0);
        CHECK(w(2) == 0.0);
        const Tensor w2 = softmax(Tensor{1e300, 1e300}, SoftmaxOptions{}).weights;
        CHECK(w2(0) == 0.5);
        CHECK(w2(1) == 0.5);
        const Tensor w3 = softmax(Tensor{1.7e308, -1.7e308}, SoftmaxOptions{}).weights;
        CHECK(w3(0) == 1.0);
    }

    TEST_CASE("-inf scores act as masked entries") {
        const double ninf = -std::numeric_limits<double>::infinity();
        const Tensor w = softmax(Tensor{0.0, ninf, 0.0}, SoftmaxOptions{}).weights;
        CHECK(w(0) == 0.5);
        CHECK(w(1) == 0.0);
        const SoftmaxResult r = softmax(Tensor{ninf, ninf}, SoftmaxOptions{});
        CHECK(std::isnan(r.weights(0)));
        CHECK(r.masked_rows.size() == 1);
    }

    TEST_CASE("exercise 1: scores [0, log 2, 0] give weights [1/4, 1/2, 1/4] and values 2, 4, 10 give 5, exactly") {
        const Tensor w = softmax(Tensor{0.0, std::log(2.0), 0.0}, SoftmaxOptions{}).weights;
        CHECK(w(0) == 0.25);
        CHECK(w(1) == 0.5);
        CHECK(w(2) == 0.25);
        // The same through sdpa: q = [1], keys [0], [log 2], [0], no scaling.
        SdpaOptions o;
        o.scale.kind = Scale::Kind::None;
        auto column = [](std::vector<double> v) {
            Tensor t = Tensor::from_shape({v.size(), 1});
            std::copy(v.begin(), v.end(), t.begin());
            return t;
        };
        const SdpaResult r = sdpa(column({1.0}), column({0.0, std::log(2.0), 0.0}), column({2.0, 4.0, 10.0}), o);
        CHECK(r.out(0, 0) == 5.0);
    }

    TEST_CASE("exercise 2: softmax over dim 1 of a (B, T, T) tensor normalizes receivers, not sources") {
        const Tensor s = randn({2, 4, 4}, 9);
        SoftmaxOptions last, one;
        last.mask = one.mask = MaskKind::Causal;
        one.dim = 1;
        const Tensor wl = softmax(s, last).weights, w1 = softmax(s, one).weights;
        CHECK(max_abs_diff(wl, w1) > 0.1);
        for (std::size_t b = 0; b < 2; ++b)
            for (std::size_t i = 0; i < 4; ++i) {
                double row = 0, col = 0;
                for (std::size_t j = 0; j < 4; ++j) { row += wl(b, i, j); col += w1(b, j, i); }
                CHECK(row == doctest::Approx(1.0));   // sources of receiver i
                CHECK(col == doctest::Approx(1.0));   // dim 1 sums over receivers instead
            }
        SUBCASE("on (B, H, T, T) a fixed dim 1 mixes the heads") {
            const Tensor s4 = randn({1, 3, 4, 4}, 10);
            SoftmaxOptions h;
            h.dim = 1;
            const Tensor w = softmax(s4, h).weights;
            double heads_sum = w(0, 0, 2, 1) + w(0, 1, 2, 1) + w(0, 2, 2, 1);
            CHECK(heads_sum == doctest::Approx(1.0));
        }
    }
}

TEST_SUITE("tensor operations the page shows") {
    TEST_CASE("sum along a dim: row sums, column sums, NaN kept") {
        const Tensor x = {{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}};
        CHECK(max_abs_diff(sum_along(x, -1), Tensor{6.0, 15.0}) == 0.0);
        CHECK(max_abs_diff(sum_along(x, 0), Tensor{5.0, 7.0, 9.0}) == 0.0);
        const Tensor s3 = randn({2, 3, 4}, 1);
        const Tensor s1 = sum_along(s3, 1);
        REQUIRE(s1.shape() == Tensor::shape_type{2, 4});
        CHECK(s1(1, 2) == doctest::Approx(s3(1, 0, 2) + s3(1, 1, 2) + s3(1, 2, 2)));
        CHECK(sum_along(Tensor{1.0, 2.0}, 0).shape() == Tensor::shape_type{1});
        CHECK(std::isnan(sum_along(Tensor{1.0, std::nan("")}, 0)(0)));
        CHECK_THROWS_WITH_AS(sum_along(x, 2), "sum: opts.dim must be in [-2, 1] for x of shape (2, 3), got 2", Error);
    }

    TEST_CASE("matmul: the plain lower triangle times X gives cumulative sums, broadcast over the batch") {
        Tensor xb = Tensor::from_shape({2, 3, 2});
        const Tensor X = {{2.0, 0.0}, {0.0, 4.0}, {4.0, 2.0}};
        for (int t = 0; t < 3; ++t)
            for (int c = 0; c < 2; ++c) { xb(0, t, c) = X(t, c); xb(1, t, c) = -X(t, c); }
        const Tensor y = matmul(averaging_matrix(3, false), xb);
        REQUIRE(y.shape() == Tensor::shape_type{2, 3, 2});
        CHECK(y(0, 2, 0) == 6.0);
        CHECK(y(0, 1, 1) == 4.0);
        CHECK(y(1, 2, 1) == -6.0);
        const Tensor a = randn({2, 3, 4}, 2), b = randn({2, 4, 5}, 3);
        const Tensor ab = matmul(a, b);
        double s = 0;
        for (int c = 0; c < 4; ++c) s += a(1, 2, c) * b(1, c, 3);
        CHECK(ab(1, 2, 3) == doctest::Approx(s));
        CHECK_THROWS_WITH_AS(matmul(a, a), "matmul: b must have shape (..., k, m) with k = 4 (the last axis of a (2, 3, 4)), got (2, 3, 4)", Error);
    }

    TEST_CASE("mask matrices: causal is top-left aligned, cross is all ones") {
        const Tensor m = mask_matrix(2, 3, true);
        CHECK(max_abs_diff(m, Tensor{{1.0, 0.0, 0.0}, {1.0, 1.0, 0.0}}) == 0.0);
        CHECK(max_abs_diff(mask_matrix(2, 3, false), Tensor{{1.0, 1.0, 1.0}, {1.0, 1.0, 1.0}}) == 0.0);
    }

    TEST_CASE("the plain reference attention agrees with sdpa to rounding, and with the test's reference") {
        for (bool causal : {false, true}) {
            const Tensor q = randn({2, 5, 4}, 31), k = randn({2, 6, 4}, 32), v = randn({2, 6, 3}, 33);
            SdpaOptions o;
            o.causal = causal;
            const SdpaResult fast = sdpa(q, k, v, o), plain = sdpa_reference(q, k, v, o);
            CHECK(max_abs_diff(fast.out, plain.out) <= 4.5e-16);
            CHECK(max_abs_diff(fast.weights, plain.weights) <= 2.3e-16);
            const ref::Attn want = ref::sdpa(q, k, v, causal, 0.5);
            CHECK(ref::max_abs(plain.out, want.out) < 1e-14);
        }
        CHECK_THROWS_WITH_AS(sdpa_reference(Tensor{{1.0, 2.0}}, xt::ones<double>(Shape{1, 1}), xt::ones<double>(Shape{1, 1}), SdpaOptions{}),
                             "sdpaReference: k must have shape (..., Tk, d) with d = 2 (the last axis of q (1, 2)), got (1, 1)", Error);
    }
}
