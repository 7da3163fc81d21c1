#pragma once
// Engine signals: metrics and the event log observe the engine; no metric code
// lives inside the event loop. Every change of a job's allocation goes through the engine's one
// transition (Simulator::reallocate), which raises exactly one of start, preempt, finish or resize.
#include "policies/cluster_view.hpp"

namespace dlsim {

/// Why a job's allocation changed.
enum class Transition : std::uint8_t { Start, Preempt, Finish, Resize, Migrate };

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
};

}  // namespace dlsim
