#pragma once
// What a policy sees: a read-only view of the cluster and the jobs (DESIGN.md "Data flow" step 3).
// Policies never reach into the engine; the engine implements this interface.
#include "models/cluster.hpp"
#include "models/rate_model.hpp"
#include "models/base/sim_time.hpp"

#include <algorithm>
#include <cstdint>
#include <span>

namespace dlsim {

using JobIdx = std::uint32_t;
inline constexpr NodeIdx kNoNode = UINT32_MAX;

enum class JobState : std::uint8_t { Pending, Queued, Running, Finished, Rejected };

/// A job as the engine keeps it. Policies read it; only the engine writes it.
struct JobInfo {
    Time submit = 0;
    Time first_start = kNever;
    Time finish = kNever;        ///< actual finish once Finished; expected completion while Running
    Time progress_from = 0;      ///< while Running: `remaining` falls at `rate` from this instant (after a restart)
    Time stint_start = 0;        ///< while Running: when the current allocation began
    Time attained = 0;           ///< wall-clock service of completed stints (µs)
    double work = 0;             ///< total iterations
    double remaining = 0;        ///< iterations left as of progress_from
    double rate = 0;             ///< aggregate iterations/s while Running, else 0
    GpuTypeMask runnable = 0;    ///< types it may use, can run on (rate > 0), and that have enough GPUs
    ModelIdx model = kNoModel;
    int num_gpus = 1;            ///< requested gang size
    int alloc_gpus = 0;          ///< GPUs held now
    GpuTypeIdx gpu_type = 0;     ///< type of the current allocation
    std::uint32_t preemptions = 0;
    std::uint32_t migrations = 0;
    JobState state = JobState::Pending;

    /// Iterations left at `now` (progress is fluid).
    double remaining_at(Time now) const {
        if (state != JobState::Running || now <= progress_from) return remaining;
        return std::max(0.0, remaining - rate * to_seconds(now - progress_from));
    }
};

class ClusterView {
public:
    virtual ~ClusterView() = default;
    virtual Time now() const = 0;
    virtual const Cluster& cluster() const = 0;
    virtual const RateModel& rates() const = 0;
    virtual const JobInfo& job(JobIdx j) const = 0;
    /// Free GPUs of one type, in the whole cluster.
    virtual int free_gpus(GpuTypeIdx t) const = 0;
    virtual int free_gpus_on(NodeIdx n) const = 0;
    /// The lowest-numbered node of type t with exactly k free GPUs (k >= 1), or kNoNode.
    virtual NodeIdx node_with_free(GpuTypeIdx t, int k) const = 0;
    /// Jobs running now, in an order that depends only on the run's history (deterministic).
    virtual std::span<const JobIdx> running_jobs() const = 0;
};

}  // namespace dlsim
