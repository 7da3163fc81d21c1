#pragma once
// Run metrics as an observer of engine signals: piecewise-constant counts (busy GPUs by type, from
// allocations; queued and running jobs) integrated as they change, the per-job type of the longest allocation,
// and, at the end, the summary and the time-weighted time series (DESIGN.md "Outputs").
#include "models/cluster.hpp"
#include "models/network_model.hpp"
#include "sim/observer.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dlsim {

/// Which jobs the JCT statistics cover (steady-state measurement). Counts and utilization always cover
/// the whole run.
struct MeasureWindow {
    enum class By { All, Jobs, Time };
    By by = By::All;
    std::uint64_t first_job = 0, end_job = 0;  ///< By::Jobs: arrival index in [first_job, end_job)
    double from = 0, to = -1;                  ///< By::Time: submit time in [from, to) s; to < 0 = open
};

/// "A:B" (arrival indices, B may be empty for "to the end") for --measure-jobs; an InputError otherwise.
MeasureWindow parse_measure_jobs(const std::string& text);
/// "T0:T1" (seconds of simulated time, T1 may be empty) for --measure-time; an InputError otherwise.
MeasureWindow parse_measure_time(const std::string& text);

struct Summary {
    std::uint64_t jobs = 0, finished = 0, rejected = 0, unfinished = 0;
    MeasureWindow measure;
    std::uint64_t measured_jobs = 0, measured_finished = 0;  ///< in the window (all jobs when By::All)
    double avg_jct = 0, p50_jct = 0, p95_jct = 0, p99_jct = 0, avg_queueing_delay = 0;  ///< s
    double makespan = 0;                                                             ///< s
    double gpu_utilization = 0;
    std::vector<std::pair<std::string, double>> gpu_utilization_by_type;  ///< in cluster order
    std::uint64_t preemptions = 0;  ///< times a running job lost its GPUs before finishing (moves included)
    std::uint64_t migrations = 0;   ///< of those, moves: the job ran again elsewhere at the same instant
    std::uint64_t agnostic_jobs = 0;  ///< jobs whose model the profile lacks, run model-agnostic (--unknown-models)
    std::uint64_t events = 0;
    NetworkSummary network;  ///< the contention mode, link utilisation by tier, re-rates
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
    /// `origin` is the first submit time; the time series has at most `points` buckets.
    Metrics(const Cluster& cluster, std::size_t num_jobs, Time origin, std::size_t points);

    void on_arrival(Time t, JobIdx, const JobInfo&) override;
    void on_start(Time t, JobIdx j, const JobInfo& job, const Allocation& a) override;
    void on_preempt(Time t, JobIdx j, const JobInfo& job, const Allocation& released) override;
    void on_finish(Time t, JobIdx j, const JobInfo& job, const Allocation& released) override;
    void on_resize(Time t, JobIdx j, const JobInfo& job, const Allocation& from, Time from_since, const Allocation& to,
                   Transition why) override;

    /// The GPU type of a job's longest allocation (meaningful once it ran).
    GpuTypeIdx longest_type(JobIdx j) const { return longest_type_[j]; }

    /// JCT and queueing statistics over the finished jobs in `window`; an end_job past the last job is
    /// an InputError (a window that silently measured fewer jobs would be a wrong number).
    Summary summarize(std::span<const JobInfo> jobs, std::uint64_t events, const MeasureWindow& window = {}) const;
    /// Buckets of equal width from the first submit; the last one ends at the last finish.
    Timeseries timeseries() const;

private:
    /// Integrates the current values over [last change, t) before they change at t.
    void advance(Time t);
    /// Busy GPUs follow allocations: `a` stops counting at t; its stint began at `since`.
    void end_allocation(Time t, JobIdx j, const Allocation& a, Time since);

    const Cluster& cluster_;
    std::size_t types_;
    std::size_t width_;                  // values per bucket: busy by type, queued, running
    Time origin_, last_change_;
    int queued_ = 0, running_ = 0;
    std::vector<int> busy_;              // per type, now
    std::vector<std::int64_t> busy_us_;  // per type, exact busy GPU-µs
    // Time series in O(points) memory: `points_` buckets of width bucket_us_ from origin_, holding
    // value·µs integrals. When time outgrows them, pairs merge and the width doubles, so a run of any
    // length ends with between points/2 and points buckets (no per-event allocation).
    std::size_t points_;
    Time bucket_us_ = 1;
    std::vector<double> buckets_;
    std::vector<GpuTypeIdx> longest_type_;
    std::vector<Time> longest_stint_;
};

}  // namespace dlsim
