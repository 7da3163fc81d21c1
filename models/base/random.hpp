#pragma once
// Seeded random streams. Each purpose (trace generation, resampling, placement, tie-breaks) draws
// from its own stream derived from the run seed, so a new draw in one place never shifts another.
// Our own xoshiro256** and inversion sampling: the same numbers on every standard library.
#include <cmath>
#include <cstdint>
#include <string_view>

namespace dlsim {

inline std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/// The seed of the stream for one purpose: FNV-1a of its name mixed with the run seed.
inline std::uint64_t derive_seed(std::uint64_t seed, std::string_view purpose) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (char c : purpose) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    std::uint64_t state = seed ^ h;
    return splitmix64(state);
}

class Rng {
public:
    explicit Rng(std::uint64_t seed) {
        for (auto& w : s_) w = splitmix64(seed);
    }
    Rng(std::uint64_t seed, std::string_view purpose) : Rng(derive_seed(seed, purpose)) {}

    std::uint64_t next() {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    /// Uniform in [0, 1) with 53 random bits.
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    /// Exponential with the given rate (mean 1/rate), by inversion.
    double exponential(double rate) { return -std::log1p(-uniform()) / rate; }
    /// Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; the tiny bias is irrelevant here).
    std::uint64_t below(std::uint64_t n) {
        __extension__ using Wide = unsigned __int128;  // GCC and Clang have it; ISO C++ has no 128-bit type
        return static_cast<std::uint64_t>((static_cast<Wide>(next()) * n) >> 64);
    }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t s_[4];
};

}  // namespace dlsim
