#pragma once
// CPython's random.Random (Modules/_randommodule.c and Lib/random.py, 3.x): MT19937 seeded from an integer by
// init_by_array over its 32-bit words, random() from two draws (53 bits), getrandbits(k <= 32), randbelow by
// rejection over bit_length(n) bits, and uniform(a, b) = a + (b - a) * random(). Written from the published
// Mersenne Twister reference (Matsumoto & Nishimura, 1998) and Python's documented seeding, so a generator
// that follows a Python simulator draw for draw (Gavel's job stream) produces its exact numbers.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dlsim {

class PythonRandom {
public:
    /// random.Random(seed) for an integer seed >= 0.
    explicit PythonRandom(std::uint64_t seed) {
        std::vector<std::uint32_t> key;
        do {  // little-endian 32-bit words; 0 is one word of 0, as in CPython
            key.push_back(static_cast<std::uint32_t>(seed & 0xffffffffU));
            seed >>= 32;
        } while (seed != 0);
        init_by_array(key);
    }

    std::uint32_t next_uint32() {
        if (index_ >= kN) twist();
        std::uint32_t y = mt_[index_++];
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c5680U;
        y ^= (y << 15) & 0xefc60000U;
        y ^= y >> 18;
        return y;
    }
    /// random(): uniform in [0, 1) with 53 bits.
    double random() {
        const std::uint32_t a = next_uint32() >> 5, b = next_uint32() >> 6;
        return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
    }
    double uniform(double a, double b) { return a + (b - a) * random(); }
    /// getrandbits(k) for 1 <= k <= 32.
    std::uint32_t getrandbits(int k) { return next_uint32() >> (32 - k); }
    /// _randbelow(n), n >= 1 (what choice() indexes with).
    std::uint32_t randbelow(std::uint32_t n) {
        int k = 0;
        while (k < 32 && (n >> k) != 0) ++k;  // n.bit_length()
        std::uint32_t r = getrandbits(k);
        while (r >= n) r = getrandbits(k);
        return r;
    }

private:
    static constexpr int kN = 624, kM = 397;

    void init_genrand(std::uint32_t s) {
        mt_[0] = s;
        for (int i = 1; i < kN; ++i)
            mt_[i] = 1812433253U * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + static_cast<std::uint32_t>(i);
        index_ = kN;
    }
    void init_by_array(const std::vector<std::uint32_t>& key) {
        init_genrand(19650218U);
        int i = 1;
        std::size_t j = 0;
        for (std::size_t k = std::max<std::size_t>(kN, key.size()); k > 0; --k) {
            mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525U)) + key[j] + static_cast<std::uint32_t>(j);
            ++i;
            ++j;
            if (i >= kN) {
                mt_[0] = mt_[kN - 1];
                i = 1;
            }
            if (j >= key.size()) j = 0;
        }
        for (int k = kN - 1; k > 0; --k) {
            mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941U)) - static_cast<std::uint32_t>(i);
            ++i;
            if (i >= kN) {
                mt_[0] = mt_[kN - 1];
                i = 1;
            }
        }
        mt_[0] = 0x80000000U;
    }
    void twist() {
        auto mix = [this](int a, int b, int c) {
            const std::uint32_t y = (mt_[a] & 0x80000000U) | (mt_[b] & 0x7fffffffU);
            mt_[a] = mt_[c] ^ (y >> 1) ^ ((y & 1U) ? 0x9908b0dfU : 0U);
        };
        int k = 0;
        for (; k < kN - kM; ++k) mix(k, k + 1, k + kM);
        for (; k < kN - 1; ++k) mix(k, k + 1, k + kM - kN);
        mix(kN - 1, 0, kM - 1);
        index_ = 0;
    }

    std::array<std::uint32_t, kN> mt_{};
    int index_ = kN;
};

}  // namespace dlsim
