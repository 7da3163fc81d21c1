#pragma once
// Gavel's `isolated` policy (stanford-futuredata/gavel scheduler/policies/isolated.py) as an
// allocation source: every active job gets an equal 1/M share of each GPU type, capped so its time fractions
// sum to at most 1: x_{m,t} = (W_t / (M·g_m)) / max(1, Σ_t' W_t' / (M·g_m)), over the types it can run on
// (where T_{m,t} = 0 the share is 0: dlsim never schedules a job where it cannot run; Gavel would). It is the
// baseline of Gavel's finish-time fairness ρ (JCT under a policy ÷ JCT under `isolated`, from two runs:
// scripts/two_run_rho.py). Recomputed at every call from the active count alone: no LP.
#include "policies/rounds/share_source.hpp"

#include <algorithm>
#include <vector>

namespace dlsim {

class IsolatedShare final : public ShareSource {
public:
    std::span<const double> allocate(const ShareInput& input, std::span<const Time>) override {
        const std::size_t jobs = input.jobs.size(), types = input.types();
        x_.assign(jobs * types, 0.0);
        const double m = static_cast<double>(jobs);
        for (std::size_t i = 0; i < jobs; ++i) {
            const double g = input.jobs[i].gang;
            double total = 0;
            for (std::size_t t = 0; t < types; ++t)
                if (input.throughput(i, t) > 0) total += input.capacities[t] / (m * g);
            const double scale = std::max(1.0, total);
            for (std::size_t t = 0; t < types; ++t)
                if (input.throughput(i, t) > 0) x_[i * types + t] = input.capacities[t] / (m * g) / scale;
        }
        return x_;
    }

private:
    std::vector<double> x_;
};

}  // namespace dlsim
