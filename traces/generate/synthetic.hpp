#pragma once
// Synthetic traces from published statistics. The default is the Gavel paper's Philly-derived mix
// (Narayanan et al., OSDI'20, §7; Gavel scheduler/utils.py): GPUs 1/2/4/8 w.p. 70/10/15/5 %;
// duration 60·10^U(1.5,3) s w.p. 0.8, else 60·10^U(3,4) s; Poisson arrivals. Sizes and durations
// may instead come from a lognormal or from a real trace (empirical).
#include "traces/job_record.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dlsim {

/// The most jobs a generator makes (`trace generate --jobs`): the cap of `--resample-jobs`, a hundred times
/// the million-job benchmark; 1e8 records alone take about 11 GB.
inline constexpr std::size_t kMaxGeneratedJobs = 100'000'000;

enum class SizeDistribution { Gavel, Empirical };
enum class DurationDistribution { Gavel, Lognormal, Empirical };

struct GavelMixOptions {
    std::size_t num_jobs = 1000;
    double jobs_per_hour = 1.0;  ///< Poisson arrival rate
    std::uint64_t seed = 0;
    std::vector<std::string> models;  ///< drawn uniformly; empty = jobs without a model
    SizeDistribution sizes = SizeDistribution::Gavel;
    DurationDistribution durations = DurationDistribution::Gavel;
    double lognormal_mu = 0, lognormal_sigma = 1;  ///< of ln(duration in s)
    /// (num_gpus, duration) of a real trace's jobs, for the empirical distributions. When both are
    /// empirical a job's pair is drawn together, keeping their correlation.
    std::vector<std::pair<int, double>> empirical;
};

/// Generates the trace; the first job arrives at t = 0. Deterministic in the options.
Trace generate_gavel_mix(const GavelMixOptions& options);

}  // namespace dlsim
