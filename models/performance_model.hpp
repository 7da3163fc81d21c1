#pragma once
// How fast running jobs progress, given where every job runs (models/README.md). The engine tells the
// model when an allocation appears or disappears; the model answers with the jobs whose rate changed.
// It knows nothing of the engine: jobs are indices, allocations are values, and a model that rates a job
// by its progress (the elastic model: a job's statistical efficiency changes at each epoch) reads the
// work left through a ProgressSource and asks to be told when it crosses a threshold (rerate_when).
//
// The default is `IsolatedPerformance`: n GPUs run n times the single-GPU rate, and a job's speed never
// depends on another's. The network model (contention on shared links) plugs in through this interface.
#include "models/allocation.hpp"
#include "models/base/sim_time.hpp"
#include "models/rate_model.hpp"

#include <vector>

namespace dlsim {

/// A job's new aggregate rate in work units/s (iterations; samples at M0 for a job with goodput data; 0: it
/// makes no progress until the next change), and the total batch size it runs at (0: not modelled).
struct RateChange {
    JobIdx job;
    double rate;
    int batch_size = 0;
};

/// The engine's answer to "how much work has job j left now" (progress is fluid between events).
class ProgressSource {
public:
    virtual ~ProgressSource() = default;
    virtual double remaining_work(JobIdx j) const = 0;
};

/// When a running job's rate changes by itself: once its remaining work drops to `remaining` (> 0; a
/// progress threshold such as an epoch boundary) or at time `at`, whichever comes first. The engine
/// schedules it as an event (stale ones dropped like completions) and then calls `progressed`; between
/// the two nothing is evaluated per iteration.
struct RerateWhen {
    double remaining = -1;  ///< <= 0: no threshold
    Time at = kNever;
};

class PerformanceModel {
public:
    virtual ~PerformanceModel() = default;
    /// Job `j` (of `model`) holds `a` from `now`. Appends every job whose rate changed, `j` first.
    virtual void allocated(Time now, JobIdx j, ModelIdx model, const Allocation& a,
                           std::vector<RateChange>& changed) = 0;
    /// Job `j` gave `a` back at `now` (finished, preempted, or moving). Appends every other job whose
    /// rate changed.
    virtual void released(Time now, JobIdx j, const Allocation& a, std::vector<RateChange>& changed) = 0;
    /// The rate a job of `model` would get on `a` if it started now, given what runs (a placer's question;
    /// no state changes).
    virtual double predicted_rate(ModelIdx model, const Allocation& a) const = 0;

    // Progress-driven rates (optional; the defaults never re-rate by progress).
    /// The engine tells the model once, before the run, where to read the jobs' progress.
    virtual void bind(const ProgressSource&) {}
    /// After job j got its rate (allocated, released or progressed): when it next changes by itself.
    virtual RerateWhen rerate_when(JobIdx) const { return {}; }
    /// Job j reached the point rerate_when named (its remaining work is then exactly the threshold, or
    /// less for a time): appends its new rate, and any other job's that changed with it.
    virtual void progressed(Time, JobIdx, std::vector<RateChange>&) {}
};

/// Every job alone: rate = n x the profile's single-GPU rate on its type; nobody else changes.
class IsolatedPerformance final : public PerformanceModel {
public:
    explicit IsolatedPerformance(const RateModel& rates) : rates_(rates) {}
    void allocated(Time, JobIdx j, ModelIdx model, const Allocation& a, std::vector<RateChange>& changed) override {
        changed.push_back({j, predicted_rate(model, a)});
    }
    void released(Time, JobIdx, const Allocation&, std::vector<RateChange>&) override {}
    double predicted_rate(ModelIdx model, const Allocation& a) const override {
        return rates_.rate(model, a.gpu_type, a.num_gpus());
    }

private:
    const RateModel& rates_;
};

}  // namespace dlsim
