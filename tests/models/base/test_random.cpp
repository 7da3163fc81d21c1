// The random number generator (models/base/random.hpp): splitmix64 and xoshiro256** against reference values,
// separate streams per purpose, and the distributions' means.
#include "models/base/random.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

using namespace dlsim;

namespace dlsim::test::random_tests {

TEST_CASE("Rng: known values of splitmix64 and xoshiro256**", "[unit]") {
    // splitmix64 from state 0 (reference values of Vigna's splitmix64.c).
    std::uint64_t st = 0;
    CHECK(splitmix64(st) == 0xe220a8397b1dcdafULL);
    CHECK(splitmix64(st) == 0x6e789e6aa1b965f4ULL);
    // xoshiro256** seeded with those four words (computed by an independent Python implementation).
    Rng r(0);
    CHECK(r.next() == 0x99ec5f36cb75f2b4ULL);
    CHECK(r.next() == 0xbf6e1f784956452aULL);
    CHECK(r.next() == 0x1a5f849d4933e6e0ULL);
    // FNV-1a of the purpose, xor the seed, one splitmix64 step.
    CHECK(derive_seed(42, "generate/arrivals") == 0x41064061b916792aULL);
}

TEST_CASE("Rng: deterministic, separate streams per purpose", "[unit]") {
    CHECK(derive_seed(42, "placement") == derive_seed(42, "placement"));
    CHECK(derive_seed(42, "placement") != derive_seed(42, "tie-breaks"));
    CHECK(derive_seed(42, "placement") != derive_seed(43, "placement"));
    CHECK(derive_seed(0, "") != derive_seed(1, ""));

    Rng a(7, "resample"), b(7, "resample"), c(7, "placement"), d(derive_seed(7, "resample"));
    int same_ac = 0;
    for (int i = 0; i < 1000; ++i) {
        const std::uint64_t x = a.next();
        REQUIRE(x == b.next());
        REQUIRE(x == d.next());
        same_ac += x == c.next();
    }
    CHECK(same_ac == 0);
}

TEST_CASE("Rng: uniform in [0, 1), exponential mean, below(n)", "[unit]") {
    Rng r(2024, "test");
    double lo = 1, hi = 0, sum = 0;
    int outside = 0;
    const int n = 200'000;
    for (int i = 0; i < n; ++i) {
        const double u = r.uniform();
        outside += u < 0.0 || u >= 1.0;
        lo = std::min(lo, u);
        hi = std::max(hi, u);
        sum += u;
    }
    CHECK(outside == 0);
    CHECK(lo < 1e-4);
    CHECK(hi > 1 - 1e-4);
    CHECK(sum / n == Approx(0.5).margin(0.005));  // SE = 0.29/sqrt(2e5) = 0.00065
    const double u = r.uniform(3.0, 5.0);
    CHECK(u >= 3.0);
    CHECK(u < 5.0);

    // Exponential with rate 2: mean 0.5, SE of the mean over 1e6 draws = 0.0005 (0.1 %).
    Rng e(99, "exp");
    double esum = 0;
    const int m = 1'000'000;
    for (int i = 0; i < m; ++i) esum += e.exponential(2.0);
    CHECK(esum / m == Approx(0.5).epsilon(0.01));

    Rng b(5, "below");
    std::array<int, 4> counts{};  // counts[3]: out of range
    for (int i = 0; i < 30'000; ++i) ++counts[std::min<std::uint64_t>(b.below(3), 3)];
    CHECK(counts[3] == 0);
    for (std::size_t k = 0; k < 3; ++k) CHECK(std::abs(counts[k] - 10'000) < 500);  // SD = 82
}

}  // namespace dlsim::test::random_tests
