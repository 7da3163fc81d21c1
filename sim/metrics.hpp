#pragma once
// Run metrics as an observer of engine signals: piecewise-constant counts (busy GPUs by type,
// queued and running jobs) logged once per instant at which they change, the per-job type of the
// longest allocation, and, at the end, the summary and the time-weighted time series (DESIGN.md "Outputs").
#include "models/cluster.hpp"
#include "sim/observer.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dlsim {

struct Summary {
    std::uint64_t jobs = 0, finished = 0, rejected = 0, unfinished = 0;
    double avg_jct = 0, p50_jct = 0, p95_jct = 0, p99_jct = 0, avg_queueing_delay = 0;  ///< s
    double makespan = 0;                                                             ///< s
    double gpu_utilization = 0;
    std::vector<std::pair<std::string, double>> gpu_utilization_by_type;  ///< in cluster order
    std::uint64_t preemptions = 0, events = 0;
};

struct Timeseries {
    std::vector<double> time;               ///< bucket start, s
    std::vector<std::vector<double>> busy;  ///< [type][bucket], time-weighted mean busy GPUs
    std::vector<double> queued, running;    ///< [bucket]
};

/// Percentile with linear interpolation between order statistics (numpy's default); `sorted` ascending.
double percentile(const std::vector<double>& sorted, double q);

class Metrics final : public Observer {
public:
    Metrics(const Cluster& cluster, std::size_t num_jobs);

    void on_arrival(Time, JobIdx, const JobInfo&) override { ++queued_; }
    void on_start(Time t, JobIdx j, const JobInfo& job, std::span<const NodeShare>) override;
    void on_preempt(Time t, JobIdx j, const JobInfo& job) override;
    void on_finish(Time t, JobIdx j, const JobInfo& job) override;
    void on_instant_end(Time t) override;

    /// The GPU type of a job's longest allocation (meaningful once it ran).
    GpuTypeIdx longest_type(JobIdx j) const { return longest_type_[j]; }

    Summary summarize(std::span<const JobInfo> jobs, std::uint64_t events) const;
    /// Splits [first submit, last finish] evenly into at most `points` buckets.
    Timeseries timeseries(std::span<const JobInfo> jobs, std::size_t points) const;

private:
    void end_stint(Time t, JobIdx j, const JobInfo& job);
    /// The window [first submit, last finish] in µs; empty when nothing finished.
    std::pair<Time, Time> window(std::span<const JobInfo> jobs) const;

    const Cluster& cluster_;
    std::size_t types_;
    int queued_ = 0, running_ = 0;
    std::vector<int> busy_;                 // per type, now
    // Change log: row k holds the values from log_time_[k] until the next row.
    std::vector<Time> log_time_;
    std::vector<int> log_values_;           // per row: busy by type, then queued, then running
    std::vector<GpuTypeIdx> longest_type_;
    std::vector<Time> longest_stint_;
};

}  // namespace dlsim
