#pragma once
// Engine signals: metrics and the event log observe the engine, as SimGrid's metric plugins do; no metric code
// lives inside the event loop. Every change of a job's allocation goes through the engine's one
// transition (Simulator::reallocate), which raises exactly one of start, preempt, finish or resize.
#include "policies/cluster_view.hpp"
#include "policies/reasons.hpp"

#include <span>

namespace dlsim {

/// Why a job's allocation changed.
enum class Transition : std::uint8_t { Start, Preempt, Finish, Resize, Migrate };

/// Why a preemption of the last policy call happened (the cause is settled once the call's actions are all
/// applied: which job took the GPUs is known only then).
struct StopNote {
    JobIdx job;
    StopCause cause;
    JobIdx by = kNobody;  ///< Displaced: the job that took its GPUs; Quota: the job reclaiming for its VC
};

class Observer {
public:
    virtual ~Observer() = default;
    virtual void on_arrival(Time, JobIdx, const JobInfo&) {}
    virtual void on_reject(Time, JobIdx, const JobInfo&) {}
    /// A queued job got GPUs (`job` is already Running with its new rate).
    virtual void on_start(Time, JobIdx, const JobInfo&, const Allocation&) {}
    /// A running job gave `released` back and went back to the queue (`job.stint_start` is when it got them).
    virtual void on_preempt(Time, JobIdx, const JobInfo&, const Allocation& /*released*/) {}
    /// A running job finished and gave `released` back.
    virtual void on_finish(Time, JobIdx, const JobInfo&, const Allocation& /*released*/) {}
    /// A running job moved from `from` (held since `from_since`) to `to` without going back to the queue:
    /// a resize or a migration (`why`); `job.stint_start` is now.
    virtual void on_resize(Time, JobIdx, const JobInfo&, const Allocation& /*from*/, Time /*from_since*/,
                           const Allocation& /*to*/, Transition /*why*/) {}
    /// Another job's change altered this running job's rate (`job.rate`); progress is up to date.
    virtual void on_rate_change(Time, JobIdx, const JobInfo&) {}
    /// The causes of the preemptions of the policy call just applied, in the order they happened (every
    /// preemption comes from a policy call; one on_stop_causes follows each call that had any).
    virtual void on_stop_causes(Time, std::span<const StopNote>) {}
    /// A queued job's reason changed from `from` (None: it just entered the queue) to `to` (None: it left the
    /// queue, i.e. it starts), naming job `named` (kNobody: none). `rest`: it now follows the queue's common
    /// reason (on_wait_rest), which is `to`.
    virtual void on_wait(Time, JobIdx, const JobInfo&, WaitReason /*from*/, WaitReason /*to*/, JobIdx /*named*/,
                         bool /*rest*/) {}
    /// The common reason of the `jobs` queued jobs that follow it changed from `from` to `to` (naming `named`).
    virtual void on_wait_rest(Time, WaitReason /*from*/, WaitReason /*to*/, JobIdx /*named*/, std::uint64_t /*jobs*/) {}
};

}  // namespace dlsim
