#pragma once
// How fast running jobs progress, given where every job runs (models/README.md). The engine tells the
// model when an allocation appears or disappears; the model answers with the jobs whose rate changed.
// It knows nothing of the engine: jobs are indices, allocations are values.
//
// The default is `IsolatedPerformance`: n GPUs run n times the single-GPU rate, and a job's speed never
// depends on another's. The network model (contention on shared links) plugs in through this interface.
#include "models/allocation.hpp"
#include "models/base/sim_time.hpp"
#include "models/rate_model.hpp"

#include <vector>

namespace dlsim {

/// A job's new aggregate rate in iterations/s (0: it makes no progress until the next change).
struct RateChange {
    JobIdx job;
    double rate;
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
