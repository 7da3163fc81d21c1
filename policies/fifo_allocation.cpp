#include "policies/fifo_allocation.hpp"

#include <algorithm>

namespace dlsim {

std::span<const double> FifoAllocation::allocate(const AllocationInput& input, std::span<const Time> submit) {
    const std::size_t types = input.types(), n = input.jobs.size();
    x_.assign(n * types, 0.0);
    room_.assign(input.capacities.begin(), input.capacities.end());
    order_.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) order_[i] = i;
    std::sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) {
        return submit[a] != submit[b] ? submit[a] < submit[b] : input.jobs[a].key < input.jobs[b].key;
    });

    // Agnostic: the jobs that hold a type keep it (finished jobs are simply absent from the input).
    if (!perf_) {
        const std::uint32_t last_key = n == 0 ? 0 : input.jobs[n - 1].key;  // keys ascend
        if (kept_type_.size() <= last_key)
            kept_type_.resize(std::max<std::size_t>(last_key + 1, 2 * kept_type_.size()), kNone);
        for (std::size_t i = 0; i < n; ++i) {
            const std::int32_t t = kept_type_[input.jobs[i].key];
            if (t == kNone) continue;
            x_[i * types + static_cast<std::size_t>(t)] = 1.0;
            room_[static_cast<std::size_t>(t)] -= input.jobs[i].gang;
        }
    }
    for (const std::uint32_t i : order_) {
        const AllocationJob& job = input.jobs[i];
        if (!perf_ && kept_type_[job.key] != kNone) continue;
        fits_.clear();
        for (std::uint32_t t = 0; t < types; ++t)
            if (room_[t] >= job.gang) fits_.push_back(t);
        if (fits_.empty()) break;  // strict: nobody overtakes a job that fits nowhere
        std::uint32_t t = fits_[0];
        if (perf_) {
            for (const std::uint32_t u : fits_)
                if (input.throughput(i, u) > input.throughput(i, t)) t = u;
        } else {
            t = fits_[rng_.below(fits_.size())];
        }
        if (!(input.throughput(i, t) > 0)) continue;  // cannot run on the type it drew: no allocation now
        x_[i * types + t] = 1.0;
        room_[t] -= job.gang;
        if (!perf_) kept_type_[job.key] = static_cast<std::int32_t>(t);
    }
    return x_;
}

}  // namespace dlsim
