#pragma once
// What a policy sees: a read-only view of the cluster and the jobs (the policy contract: policies/README.md).
// Policies never reach into the engine; the engine implements this interface.
#include "models/allocation.hpp"
#include "models/base/sim_time.hpp"
#include "models/cluster.hpp"
#include "models/elastic_view.hpp"
#include "models/performance_model.hpp"
#include "models/rate_model.hpp"
#include "models/restart_model.hpp"

#include <algorithm>
#include <cstdint>
#include <span>

namespace dlsim {

inline constexpr NodeIdx kNoNode = UINT32_MAX;

enum class JobState : std::uint8_t { Pending, Queued, Running, Finished, Rejected };

/// A job as the engine keeps it. Policies read it; only the engine writes it. Every field is part of
/// the policy contract, with the meaning documented here.
struct JobInfo {
    // What the trace asked for (fixed).
    Time submit = 0;
    double work = 0;  ///< total iterations
    ModelIdx model = kNoModel;
    int num_gpus = 1;                ///< requested gang size (a rigid job always runs on exactly this many)
    int min_gpus = 1, max_gpus = 1;  ///< an elastic job may run on any count in [min_gpus, max_gpus]
    GpuTypeMask runnable = 0;        ///< types it may use, can run on (rate > 0), and that have enough GPUs
    /// Its user and virtual cluster as dense ids (policies/tenants.hpp: 0 = none recorded, 1.. = the
    /// trace's distinct names in order of first appearance); the names reach a policy's factory in
    /// MakeContext::tenants.
    std::uint32_t user = 0, vc = 0;
    /// Its priority weight: the trace's `priority` column (Gavel's priority_weight) when > 0, else 1. The
    /// Gavel max-min policies weigh its share by it (w_m of Gavel's policies/max_min_fairness.py); the others
    /// ignore it.
    double weight = 1;
    /// The total batch size the trace asked for (Pollux/Sia workloads' batch_size); 0 = not given. Jobs with
    /// goodput data run at it unless the run adapts batch sizes (ElasticView::adapts_batch).
    int batch_size = 0;

    // Its history.
    JobState state = JobState::Pending;
    Time first_start = kNever;
    Time finish = kNever;            ///< actual finish once Finished; expected completion while Running (kNever
                                     ///< while its rate is 0); kNever otherwise
    Time attained = 0;               ///< wall-clock time it held GPUs in allocations that ended (µs)
    std::uint32_t preemptions = 0;   ///< times it lost its GPUs before finishing (moves included)
    std::uint32_t migrations = 0;    ///< of those, moves: it held GPUs again at the same instant
    std::uint32_t restarts = 0;      ///< allocations that began with a restart charge (RestartModel cost > 0)
    std::uint32_t resizes = 0;       ///< changes of its GPU count while running (Decisions::resize)
    double resize_gpu_seconds = 0;   ///< of restart_gpu_seconds, the part charged by resizes
    Time restart_time = 0;           ///< µs spent restarting; a restart cut short counts only up to the cut
    double restart_gpu_seconds = 0;  ///< the same times the GPUs held while restarting (GPU-seconds lost)
    /// µs it spent packed (sharing its GPUs with another job, Decisions::pack) in packings that ended;
    /// whether and with whom it is packed now: ClusterView::allocation(j).partner.
    Time packed_time = 0;

    // While Running (mirrors of its allocation and progress; see ClusterView::allocation).
    GpuTypeIdx gpu_type = 0;  ///< type of the current allocation (of the last one once stopped)
    int alloc_gpus = 0;       ///< GPUs held now (0 unless Running)
    double rate = 0;          ///< aggregate iterations/s now, from the performance model; 0 unless Running
    int run_batch_size = 0;   ///< total batch it runs at now (the elastic model's choice); 0 if not modelled
    Time stint_start = 0;     ///< when the current allocation began (of the last one once stopped)
    Time progress_from = 0;   ///< `remaining` falls at `rate` from this instant (later than the
                              ///< allocation's start while a restart is charged)
    double remaining = 0;     ///< iterations left as of progress_from (use remaining_at)

    /// Iterations left at `now` (progress is fluid).
    double remaining_at(Time now) const {
        if (state != JobState::Running || now <= progress_from) return remaining;
        return std::max(0.0, remaining - rate * to_seconds(now - progress_from));
    }
    /// Wall-clock service at `now`, the current allocation included.
    Time attained_at(Time now) const { return attained + (state == JobState::Running ? now - stint_start : 0); }
};

class ClusterView {
public:
    virtual ~ClusterView() = default;
    virtual Time now() const = 0;
    virtual const Cluster& cluster() const = 0;
    /// Single-job rates from the profile (what a job gets alone; the performance model may give less).
    virtual const RateModel& rates() const = 0;
    virtual const JobInfo& job(JobIdx j) const = 0;
    /// Where a job runs now: its GPU type and node shares; empty unless it is Running.
    virtual const Allocation& allocation(JobIdx j) const = 0;
    /// Free GPUs of one type, in the whole cluster.
    virtual int free_gpus(GpuTypeIdx t) const = 0;
    virtual int free_gpus_on(NodeIdx n) const = 0;
    /// The lowest-numbered node of type t with exactly k free GPUs (k >= 1), or kNoNode.
    virtual NodeIdx node_with_free(GpuTypeIdx t, int k) const = 0;
    /// Jobs running now, in an order that depends only on the run's history (deterministic).
    virtual std::span<const JobIdx> running_jobs() const = 0;
    /// What the engine charges for a change of allocation (so a policy can weigh a preemption or a move
    /// against its gain).
    virtual const RestartModel& restart_model() const = 0;
    /// How fast jobs run where they run (the network model when there is one): a placer may ask it what
    /// rate a job would get on a candidate placement, given what runs now.
    virtual const PerformanceModel& performance() const = 0;
    /// The elastic job model, or nullptr when the run has none (no job has goodput data).
    virtual const ElasticView* elastic() const { return nullptr; }
};

}  // namespace dlsim
