#pragma once
// Synthetic traces from published statistics. The default is the Gavel paper's Philly-derived mix
// (Narayanan et al., OSDI'20, §7; Gavel scheduler/utils.py): GPUs 1/2/4/8 w.p. 70/10/15/5 %;
// duration 60·10^U(1.5,3) s w.p. 0.8, else 60·10^U(3,4) s; Poisson arrivals.
#include "traces/job_record.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dlsim {

struct GavelMixOptions {
    std::size_t num_jobs = 1000;
    double jobs_per_hour = 1.0;     ///< Poisson arrival rate
    std::uint64_t seed = 0;
    std::vector<std::string> models;  ///< drawn uniformly; empty = jobs without a model
};

/// Generates the trace; the first job arrives at t = 0. Deterministic in the options.
Trace generate_gavel_mix(const GavelMixOptions& options);

}  // namespace dlsim
