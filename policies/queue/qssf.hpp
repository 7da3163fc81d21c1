#pragma once
// `qssf`: quasi-shortest-service-first (Helios, Hu et al., SC'21; github.com/S-Lab-System-Group/HeliosArtifact
// `framework/QSSF Service/policies/qssf.py`). Non-preemptive: queued jobs are ranked by a predicted GPU
// time (GPU-seconds), ties by (arrival, trace order), and started in that order while they fit; the walk
// is strict by default (`strict=true`, as Helios: the first job that does not fit blocks the rest). A job
// takes the GPU type `type_order` gives it (Helios's VCs are homogeneous; it ignores types).
//
// Estimators (`estimator`):
//   - history (default): the mean reference-type duration of the finished jobs with the same key, × the
//     job's GPUs. The key is (user, model, num_gpus) (`history_key=user+model+gpus`),
//     (model, num_gpus) (`model+gpus`) or num_gpus alone (`gpus`). A trace without users or models (such
//     as pollux/philly.csv) groups all its jobs under one "no user" or "no model", so the key keeps what
//     the trace has; a job without a user (JobInfo::user 0) skips the user level rather than pooling with
//     every other job without one. A key without history yet falls back to coarser ones:
//     (user, model, gpus) -> (model, gpus) -> (model) -> (gpus) -> all jobs -> `prior` seconds (so before
//     any job has finished, jobs rank by GPU count, then arrival, the order Helios gives jobs without a
//     priority). Helios keys its naive estimator on (user, job name, GPU count) with name similarity;
//     JobInfo has no job name, so the model stands in for it.
//     A finished job contributes its work ÷ its rate on the reference type on its gang (what it takes on
//     the reference type, the trace's duration for a job run on its original type), not the time it
//     happened to take: history and oracle share one basis, and a job that got a slow type or a congested
//     network does not inflate its key's mean.
//   - oracle: the job's reference-type duration × its GPUs.
//   - helios-noise: Helios's PhillyEstimator, that × (1 + u) with u from the seeded per-job error
//     distribution of policies/queue/runtime_estimate.hpp. It may be negative (u < −1), which puts the job
//     first, as in Helios. Helios looks the estimate up by job name (jobs sharing a name share one); dlsim
//     draws one per job.
// A job's estimate is fixed when it enters the queue (Helios assigns a priority once): the queue is an
// ordered set keyed by (estimate, arrival, job), so a call costs O(changes × log n) plus the jobs it starts,
// although later finishes change the history.
//
// `lazy_priority=true` (Helios's quirk): at a call where no job was waiting before this instant's
// arrivals, the arrivals are not given a priority but walked by GPU count (then arrival), strict, and
// start at once if they fit; those left get their priority at the next call (Helios's next tick with
// older jobs pending). Helios also runs each virtual cluster separately on its own nodes: that is the
// vc-quota policy's business, not qssf's.
#include "policies/policy.hpp"
#include "policies/queue/runtime_estimate.hpp"
#include "policies/type_choice.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace dlsim {

enum class QssfEstimator { History, Oracle, HeliosNoise };
enum class QssfHistoryKey { UserModelGpus, ModelGpus, Gpus };

QssfEstimator parse_qssf_estimator(const std::string& value);
QssfHistoryKey parse_qssf_history_key(const std::string& value);

class QssfPolicy final : public Policy {
public:
    QssfPolicy(TypeOrder order, QssfEstimator estimator, QssfHistoryKey history_key, double prior_s, bool strict,
               bool lazy_priority, std::uint64_t seed);
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

private:
    /// A history bucket: the fields a level keeps, the others 0 (level tells the levels apart).
    struct HistoryKey {
        std::uint8_t level;
        std::uint32_t user;
        ModelIdx model;
        int gpus;
        auto operator<=>(const HistoryKey&) const = default;
    };
    struct Mean {
        double sum = 0;
        std::uint64_t count = 0;
    };
    /// Which fields each level keeps, richest first (a new field is one more flag).
    struct Level {
        bool user, model, gpus;
    };
    /// Whether a level applies to the job: one keyed on the user does not to a job without one.
    bool applies(std::uint8_t level, const JobInfo& job) const { return !levels_[level].user || job.user != 0; }
    HistoryKey history_key(std::uint8_t level, const JobInfo& job) const;
    /// GPU-seconds predicted for job j now.
    double estimate(const ClusterView& view, JobIdx j) const;
    /// Queues job j under its fixed estimate (made now if it has none yet).
    void enqueue(const ClusterView& view, JobIdx j);
    /// Walks `queue_` from the head and starts what fits (stops at the first misfit when strict).
    void walk(const ClusterView& view, Decisions& out, int free);
    /// lazy_priority: starts this instant's arrivals by GPU count; the rest wait without a priority.
    void walk_new(const ClusterView& view, const Changes& changes, Decisions& out, int free);

    TypeOrder order_;
    QssfEstimator estimator_;
    std::vector<Level> levels_;
    double prior_;
    bool strict_;
    bool lazy_;
    EstimateNoise noise_;
    std::map<HistoryKey, Mean> history_;
    std::set<std::tuple<double, Time, JobIdx>> queue_;  // (estimate, arrival, job)
    std::vector<double> fixed_;                         // per job: its estimate once queued (NaN: none yet)
    std::vector<JobIdx> unprioritised_;                 // lazy_priority: left waiting without a priority
    std::vector<std::tuple<int, Time, JobIdx>> fresh_;  // lazy_priority: scratch, arrivals by GPU count
    std::vector<int> available_;                        // per type, this call's scratch
};

}  // namespace dlsim
