#pragma once
// `dlsim trace stats`: what a trace holds, as a table and as JSON.
#include "traces/job_record.hpp"

#include <array>
#include <map>
#include <string>

namespace dlsim {

struct TraceStats {
    std::size_t jobs = 0;
    double span = 0;                          ///< s, first to last submit
    double gpu_hours = 0;                     ///< sum of num_gpus x duration
    double arrival_rate = 0;                  ///< jobs/hour over the span
    std::map<int, std::size_t> gpu_histogram; ///< num_gpus -> jobs
    double duration_mean = 0, duration_p50 = 0, duration_p90 = 0, duration_p99 = 0, duration_max = 0;
    /// Arrivals by hour of day: UTC for wall-clock traces, else hours since the trace start, modulo 24.
    std::array<std::size_t, 24> arrivals_by_hour{};
    std::map<std::string, std::size_t> status;  ///< raw status word ("" = none recorded) -> jobs
    std::map<std::string, std::size_t> by_vc;   ///< VC ("" = none recorded) -> jobs
};

TraceStats compute_stats(const Trace& trace);

/// A human-readable table (with the reader's report).
std::string stats_table(const Trace& trace, const TraceStats& stats);
/// The same as JSON (`dlsim.trace-stats/1`).
std::string stats_json(const Trace& trace, const TraceStats& stats);

}  // namespace dlsim
