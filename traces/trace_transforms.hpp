#pragma once
// Filters and transforms common to every reader (applied after reading, in this order): status,
// GPU count, VC, time window, Poisson re-sampling, load scaling, job cap. Each records what it
// dropped in the trace's report, under "filtered: <what>".
#include "traces/job_record.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dlsim {

/// The most jobs --resample-jobs may draw (each is a full record in memory).
inline constexpr std::size_t kMaxResampledJobs = 100'000'000;

struct TraceTransforms {
    std::string status = "all";      ///< all | completed (failed and killed jobs consumed GPUs too)
    int min_gpus = 0, max_gpus = 0;  ///< 0 = no bound
    std::vector<std::string> vcs;    ///< keep only these VCs; empty = all
    double window_start = 0;         ///< s from the trace start: keep jobs submitted in [start, end)
    double window_end = -1;          ///< < 0 = open
    double resample_rate = 0;        ///< jobs/hour: re-sample the trace's jobs with Poisson arrivals; 0 = off
    std::size_t resample_jobs = 0;   ///< how many to draw; 0 = as many as the trace has
    double load_scale = 1;           ///< divide every inter-arrival gap by this
    std::size_t max_jobs = 0;        ///< keep the first N by submit time; 0 = all
    std::uint64_t seed = 0;          ///< for re-sampling (its own stream, "trace/resample")

    bool identity() const;
};

/// Parses "START:END" in seconds (either side may be empty) into the window; an InputError otherwise.
void parse_time_window(const std::string& text, TraceTransforms& t);

/// Applies the transforms; bad values are InputErrors naming the flag.
void apply_transforms(Trace& trace, const TraceTransforms& t);

}  // namespace dlsim
