#pragma once
// Run metrics as an observer of engine signals: piecewise-constant counts (busy GPUs by type, from
// allocations; queued and running jobs) integrated as they change, the per-job type of the longest allocation,
// and, at the end, the summary and the time-weighted time series (sim/app/RESULTS.md). For finish-time
// fairness it also integrates the number of jobs in the system, N(t) = queued + running, and keeps per
// job the integral over its lifetime, so N̄_j is exact at O(1) per event.
#include "models/cluster.hpp"
#include "models/network_model.hpp"
#include "policies/tenants.hpp"
#include "sim/observer.hpp"
#include "sim/wait_ledger.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace dlsim {

/// Which jobs the JCT statistics cover (steady-state measurement). Counts and utilization always cover
/// the whole run.
struct MeasureWindow {
    enum class By { All, Jobs, SubmitTime };
    By by = By::All;
    std::uint64_t first_job = 0, end_job = 0;  ///< By::Jobs: arrival index in [first_job, end_job)
    double from = 0, to = -1;                  ///< By::SubmitTime: submit time in [from, to) s; to < 0 = open
};

/// "A:B" (arrival indices, B may be empty for "to the end") for --measure-jobs; an InputError otherwise.
MeasureWindow parse_measure_jobs(const std::string& text);
/// "T0:T1" (seconds of simulated time, T1 may be empty) for --measure-time; an InputError otherwise.
MeasureWindow parse_measure_time(const std::string& text);

/// Per job: 1 when `window` measures it. An end_job past the last job, or a window that selects no job,
/// is an InputError (a window that silently measured fewer jobs would be a wrong number).
std::vector<char> measured_mask(std::span<const JobInfo> jobs, const MeasureWindow& window);

/// A figure over no jobs (a mean JCT when no job finished, a utilisation over no time): NaN, never 0, so
/// that it cannot pass for a measured value. The writers turn it into JSON null, an empty CSV or index
/// cell and "n/a" on the console (sim/app/result_fields.cpp); this is the one place that decides it.
inline constexpr double kNoFigure = std::numeric_limits<double>::quiet_NaN();
/// True unless `x` is kNoFigure.
inline bool has_figure(double x) { return x == x; }

/// Mean JCT of one VC's or user's measured finished jobs.
struct GroupJct {
    std::string name;
    std::uint64_t jobs = 0;
    double avg_jct = 0;  ///< s
};

/// Time the measured finished jobs waited for one reason.
struct ReasonHours {
    WaitReason reason;
    double job_hours = 0;  ///< Σ time waited
    double gpu_hours = 0;  ///< Σ time waited × requested GPUs
};

struct Summary {
    std::uint64_t jobs = 0, finished = 0, rejected = 0, unfinished = 0;
    MeasureWindow measure;
    std::uint64_t measured_jobs = 0, measured_finished = 0;  ///< in the window (all jobs when By::All)
    // The figures over jobs or time below are kNoFigure when there is nothing to measure: no measured
    // finished job (JCT, queueing, pending, fairness), no finished job (makespan), no time (utilisation).
    double avg_jct = 0, p50_jct = 0, p95_jct = 0, p99_jct = 0, avg_queueing_delay = 0;  ///< s
    /// Time a finished job waited for GPUs between submit and finish (before its first start and after
    /// every preemption; restarts excluded): mean and 95th percentile over the measured finished jobs.
    double avg_pending_time = 0, p95_pending_time = 0;  ///< s
    std::vector<ReasonHours> pending_reasons;           ///< the reasons with time > 0, in WaitReason order
    double makespan = 0;                                ///< s
    double gpu_utilization = 0;
    std::vector<std::pair<std::string, double>> gpu_utilization_by_type;  ///< in cluster order
    std::uint64_t preemptions = 0;    ///< times a running job lost its GPUs before finishing (moves included)
    std::uint64_t migrations = 0;     ///< of those, moves: the job ran again elsewhere at the same instant
    std::uint64_t agnostic_jobs = 0;  ///< jobs whose model the profile lacks, run model-agnostic (--unknown-models)
    std::uint64_t events = 0;
    /// The run ended once the window's jobs had finished (stop_after_measured) while others were still
    /// queued, running or not yet arrived; makespan and utilisation then end at that instant.
    bool stopped_early = false;
    std::uint64_t restarts = 0;      ///< restarts charged (a restart model's cost > 0), all jobs
    std::uint64_t resizes = 0;       ///< changes of a running job's GPU count (elastic policies), all jobs
    double resize_gpu_seconds = 0;   ///< of restart_gpu_seconds, the part charged by resizes
    double restart_gpu_seconds = 0;  ///< GPU-seconds spent restarting (cut-short restarts: the part spent)
    double packed_gpu_seconds = 0;   ///< GPU-seconds during which a GPU was shared by two packed jobs
    /// Finish-time fairness ρ over the measured finished jobs (Themis's, as finish_time_fairness); kNoFigure
    /// without rates.
    double ftf_rho_max = 0, ftf_rho_mean = 0, ftf_share_above_1 = 0;
    double wait_threshold = 3600;                  ///< s
    std::uint64_t jobs_waited_over_threshold = 0;  ///< measured finished jobs with queueing delay > threshold
    std::vector<GroupJct> by_vc, by_user;          ///< measured finished jobs by the trace's vc / user, name order
    std::vector<std::pair<std::string, double>> gpu_hours_by_type;  ///< busy GPU-hours, cluster order
    NetworkSummary network;  ///< the contention mode, link utilisation by tier, re-rates
};

struct Timeseries {
    std::vector<double> time;               ///< bucket start, s
    std::vector<std::vector<double>> busy;  ///< [type][bucket], time-weighted mean busy GPUs
    std::vector<double> queued, running;    ///< [bucket]
    /// Per reason that occurred (in WaitReason order): the time-weighted mean of queued jobs waiting for it.
    std::vector<std::pair<WaitReason, std::vector<double>>> queued_by_reason;
};

/// What summarize needs beyond the jobs' states (all optional).
struct SummaryOptions {
    Time wait_threshold = 3'600'000'000;  ///< µs
    std::span<const double> ftf_rho;      ///< per job (Metrics::finish_time_fairness); empty: no ρ figures
    std::span<const WaitTotals> waited;   ///< per job: time queued per wait reason; empty: no pending_reasons
    const Tenants* tenants = nullptr;     ///< the names behind JobInfo::vc and ::user, for by_vc and by_user
};

/// A finished job's pending time: finish − submit − the time it held GPUs (restarts are spent holding
/// them), in µs. Only meaningful once it finished.
inline Time pending_time(const JobInfo& j) { return j.finish - j.submit - j.attained; }

/// Percentile with linear interpolation between order statistics (numpy's default); `sorted` ascending;
/// kNoFigure when it is empty.
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
    void on_wait(Time t, JobIdx j, const JobInfo& job, WaitReason from, WaitReason to, JobIdx named,
                 bool rest) override;
    void on_wait_rest(Time t, WaitReason from, WaitReason to, JobIdx named, std::uint64_t jobs) override;

    /// The GPU type of a job's longest allocation (meaningful once it ran).
    GpuTypeIdx longest_type(JobIdx j) const { return longest_type_[j]; }

    /// JCT and queueing statistics over the finished jobs in `window`; an end_job past the last job is
    /// an InputError (a window that silently measured fewer jobs would be a wrong number).
    Summary summarize(std::span<const JobInfo> jobs, std::uint64_t events, const MeasureWindow& window = {},
                      const SummaryOptions& options = {}) const;
    /// Finish-time fairness per job (Themis, Mahajan et al., NSDI'20): ρ_j = JCT_j ÷ T_id_j, the time it
    /// would take alone on an equal share 1/N̄_j of its fastest allowed type's W GPUs, N̄_j = the time-average
    /// of queued + running jobs over [submit, finish]: T_id = T_alone × max(1, g·N̄/W), T_alone = work ÷ its
    /// rate on its own g GPUs there (a rigid job cannot use more than g; on fewer it time-shares). On one
    /// GPU this is Themis's T_alone × N̄. -1 for a job that did not finish.
    std::vector<double> finish_time_fairness(std::span<const JobInfo> jobs, const RateModel& rates,
                                             const Cluster& cluster) const;
    /// Buckets of equal width from the first submit; the last one ends at the last finish.
    Timeseries timeseries() const;

private:
    /// Adds `change` to the number of jobs waiting for r.
    void count_waiting(WaitReason r, std::int64_t change);
    /// Integrates the current values over [last change, t) before they change at t.
    void advance(Time t);
    /// Busy GPUs follow allocations: `a` stops counting at t; its stint began at `since`.
    void end_allocation(Time t, JobIdx j, const Allocation& a, Time since);

    const Cluster& cluster_;
    std::size_t types_;
    std::size_t width_;  // values per bucket: busy by type, queued, running, queued by wait reason
    Time origin_, last_change_;
    int queued_ = 0, running_ = 0;
    std::array<std::int64_t, kWaitReasons> waiting_{};  // queued jobs per wait reason, now
    std::uint32_t waiting_mask_ = 0;                    // bit per reason with a job now
    std::uint32_t reasons_seen_ = 0;                    // bit per reason that ever had a job
    std::vector<int> busy_;                             // per type, now
    std::vector<std::int64_t> busy_us_;                 // per type, exact busy GPU-µs
    // Time series in O(points) memory: `points_` buckets of width bucket_us_ from origin_, holding
    // value·µs integrals. When time outgrows them, pairs merge and the width doubles, so a run of any
    // length ends with between points/2 and points buckets (no per-event allocation).
    std::size_t points_;
    Time bucket_us_ = 1;
    std::vector<double> buckets_;
    std::vector<GpuTypeIdx> longest_type_;
    std::vector<Time> longest_stint_;
    // ∫ (queued + running) dt in job-µs since the origin (128 bits: a million jobs over years overflow 64),
    // and per job that integral at its arrival, replaced at its finish by the integral over its lifetime.
    __extension__ using JobMicros = __int128;
    JobMicros in_system_us_ = 0;
    std::vector<JobMicros> lifetime_us_;
};

}  // namespace dlsim
