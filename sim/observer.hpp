#pragma once
// Engine signals (STYLE.md lesson 7): metrics and the event log observe the engine; no metric code
// lives inside the event loop.
#include "policies/cluster_view.hpp"
#include "policies/policy.hpp"

#include <span>

namespace dlsim {

class Observer {
public:
    virtual ~Observer() = default;
    virtual void on_arrival(Time, JobIdx, const JobInfo&) {}
    virtual void on_reject(Time, JobIdx, const JobInfo&) {}
    /// After the job got its GPUs (job.gpu_type, job.alloc_gpus are set).
    virtual void on_start(Time, JobIdx, const JobInfo&, std::span<const NodeShare>) {}
    /// Before the job gives its GPUs back.
    virtual void on_preempt(Time, JobIdx, const JobInfo&) {}
    virtual void on_finish(Time, JobIdx, const JobInfo&) {}
};

}  // namespace dlsim
