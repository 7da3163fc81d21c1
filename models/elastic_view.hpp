#pragma once
// The elastic job model as a policy sees it (implemented by models/elastic_performance.hpp).
#include "models/allocation.hpp"
#include "models/cluster.hpp"
#include "models/goodput.hpp"

#include <span>

namespace dlsim {

/// The elastic job model as a policy sees it (models/elastic_performance.hpp): what a job with goodput data
/// would achieve on a configuration now. Jobs without goodput data are rigid and have no entry.
class ElasticView {
public:
    virtual ~ElasticView() = default;
    /// Job j's application data, or nullptr for a job without goodput data.
    virtual const GoodputProfile* goodput(JobIdx j) const = 0;
    /// The epoch job j is in (as of its last re-rate; 0 before it first ran).
    virtual int epoch(JobIdx j) const = 0;
    /// True when the run chooses each allocation's batch size (best_batch); false: every job keeps its
    /// trace batch size (fixed_batch).
    virtual bool adapts_batch() const = 0;
    /// What job j would achieve on `gpus` GPUs of type t spread over `nodes` nodes, in its current epoch,
    /// with its batch chosen as the run chooses it; goodput 0 where it cannot run.
    virtual GoodputPoint predict(JobIdx j, GpuTypeIdx t, int nodes, int gpus) const = 0;
    /// Seconds per optimizer step of job j with batch split b on a placement of type t (GPUs on each node):
    /// the measured step time the run progresses jobs at where the profile covers it, else the fitted
    /// model's (an oracle, as Optimus+Oracle in Pollux's artifact reads it; no calibration slowdown).
    virtual double true_step_seconds(JobIdx j, GpuTypeIdx t, std::span<const int> gpus_per_node,
                                     BatchConfig b) const = 0;
    /// The calibration factor job j's progress is divided by (run config `slowdowns`; 1: none).
    virtual double slowdown(JobIdx j) const = 0;
};

}  // namespace dlsim
