#include "models/measured_steps.hpp"

#include <algorithm>
#include <array>

namespace dlsim {

std::optional<StepSync> StepTable::at(double b) const {
    if (local_bsz.empty() || b < local_bsz.front() || b > local_bsz.back()) return std::nullopt;
    const auto hi =
        static_cast<std::size_t>(std::lower_bound(local_bsz.begin(), local_bsz.end(), b) - local_bsz.begin());
    if (local_bsz[hi] == b) return StepSync{step[hi], sync[hi]};
    const std::size_t lo = hi - 1;  // b > front, so hi >= 1
    const double w = (b - local_bsz[lo]) / (local_bsz[hi] - local_bsz[lo]);
    return StepSync{step[lo] + w * (step[hi] - step[lo]), sync[lo] + w * (sync[hi] - sync[lo])};
}

std::uint64_t placement_key(std::span<const int> gpus_per_node) {
    constexpr std::size_t kMaxDigits = 19;  // 10^19 - 1 fits in 64 bits
    std::array<int, kMaxDigits> d{};
    std::size_t n = 0;
    for (const int g : gpus_per_node) {
        if (g == 0) continue;
        if (g < 0 || g > 9 || n == kMaxDigits) return 0;
        d[n++] = g;
    }
    if (n == 0) return 0;
    // The smallest rotation, compared digit by digit.
    std::size_t best = 0;
    for (std::size_t r = 1; r < n; ++r)
        for (std::size_t i = 0; i < n; ++i) {
            const int a = d[(r + i) % n], b = d[(best + i) % n];
            if (a != b) {
                if (a < b) best = r;
                break;
            }
        }
    std::uint64_t key = 0;
    for (std::size_t i = 0; i < n; ++i) key = key * 10 + static_cast<std::uint64_t>(d[(best + i) % n]);
    return key;
}

std::optional<StepSync> MeasuredSteps::at(std::span<const int> gpus_per_node, double b) const {
    const std::uint64_t key = placement_key(gpus_per_node);
    if (key != 0) {
        const auto p = placements.find(key);
        if (p != placements.end())
            if (auto s = p->second.at(b)) return s;
    }
    int nodes = 0, replicas = 0;
    for (const int g : gpus_per_node)
        if (g > 0) {
            ++nodes;
            replicas += g;
        }
    const auto s = shapes.find({std::min(nodes, kMaxNodes), replicas});
    if (s == shapes.end()) return std::nullopt;
    return s->second.at(b);
}

}  // namespace dlsim
