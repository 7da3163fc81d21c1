#pragma once
// Wall-time percentiles of many short calls (the policy's, in `run`) in fixed memory: a log-spaced
// histogram of 20 bins per decade from 10 ns to 1000 s, so a million-job run keeps no per-call vector.
// A percentile is the upper edge of the bin that holds it (at most 12.2% above the true value, never
// above the exact maximum, which is kept as is).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace dlsim {

class DurationHistogram {
public:
    static constexpr int kBinsPerDecade = 20;
    static constexpr double kLowest = 1e-8;                ///< s: the first bin holds everything up to here
    static constexpr int kBins = 11 * kBinsPerDecade + 2;  ///< up to 1e3 s, then one bin for longer

    void add(double seconds) {
        ++count_;
        max_ = std::max(max_, seconds);
        int bin = 0;
        if (seconds > kLowest)
            bin = std::min(kBins - 1, 1 + static_cast<int>(std::floor(std::log10(seconds / kLowest) * kBinsPerDecade)));
        ++bins_[static_cast<std::size_t>(bin)];
    }
    std::uint64_t count() const { return count_; }
    double max() const { return max_; }
    /// The q-th percentile (q in [0, 100]) by nearest rank, as the upper edge of its bin; 0 when empty.
    double percentile(double q) const {
        if (count_ == 0) return 0;
        const auto rank =
            std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(q / 100.0 * static_cast<double>(count_))));
        std::uint64_t seen = 0;
        for (int b = 0; b < kBins; ++b) {
            seen += bins_[static_cast<std::size_t>(b)];
            if (seen >= rank) return std::min(max_, upper_edge(b));
        }
        return max_;
    }

private:
    static double upper_edge(int bin) { return kLowest * std::pow(10.0, static_cast<double>(bin) / kBinsPerDecade); }

    std::array<std::uint64_t, kBins> bins_{};
    std::uint64_t count_ = 0;
    double max_ = 0;
};

}  // namespace dlsim
