#pragma once
// The benchmarks' workload: `jobs` jobs of the synthetic Gavel mix (traces/generate/synthetic.hpp) over every model of
// `profiles`, Poisson arrivals at `jobs_per_hour`, seed 42.
#include "models/profile.hpp"
#include "traces/generate/synthetic.hpp"

#include <cstddef>

namespace dlsim::bench {

inline Trace gavel_mix_trace(const ProfileSet& profiles, std::size_t jobs, double jobs_per_hour) {
    GavelMixOptions g;
    g.num_jobs = jobs;
    g.jobs_per_hour = jobs_per_hour;
    g.seed = 42;
    for (const auto& m : profiles.models) g.models.push_back(m.name);
    return generate_gavel_mix(g);
}

}  // namespace dlsim::bench
