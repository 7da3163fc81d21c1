#pragma once
// Runtime estimates of the queue policies that rank or reserve by a job's length (sjf, qssf, EASY
// backfilling): the oracle basis, and Helios's noisy model of a user's estimate.
//
// Oracle basis: a job's run time on the cluster's reference type on its own gang (work ÷ its rate there;
// on its fastest runnable type when it cannot run on the reference type). For a job that ran on the
// reference type in the trace (or has no model) this is exactly the trace's duration.
//
// Noise (Helios, Hu et al., SC'21: PhillyEstimator in github.com/S-Lab-System-Group/HeliosArtifact): an
// error factor u with |u| uniform in [0, 0.1] w.p. 0.1, [0.1, 0.5] w.p. 0.4, [0.5, 1] w.p. 0.2, [1, 10]
// w.p. 0.2, [10, 100] w.p. 0.1, and a fair random sign. (Uniform within a band is dlsim's reading of the
// bands.) Each job's u comes from its own sub-stream of the run seed's "policy/estimate-noise" stream,
// keyed by the job's index: a job's draw does not depend on the order in which a policy asks, and a job gets
// the same u under every policy of a run with the same seed (common random numbers when comparing policies).
#include "models/base/random.hpp"
#include "policies/cluster_view.hpp"
#include "policies/type_choice.hpp"

#include <cstdint>

namespace dlsim {

/// Seconds job `job` takes on the reference type on its own gang (the oracle duration of sjf and qssf).
inline double reference_duration(const ClusterView& view, const JobInfo& job) {
    const GpuTypeIdx ref = view.cluster().reference_gpu_type;
    const GpuTypeIdx t = (job.runnable >> ref) & 1 ? ref : fastest_type(view, job);
    return job.work / view.rates().rate(job.model, t, job.num_gpus);
}

/// Helios's error factor u, per job, from the run seed.
class EstimateNoise {
public:
    explicit EstimateNoise(std::uint64_t run_seed) : base_(derive_seed(run_seed, "policy/estimate-noise")) {}

    /// Job j's error factor u in [-100, 100] (the same value at every call).
    double error(JobIdx j) const {
        std::uint64_t mix = base_ ^ (static_cast<std::uint64_t>(j) * 0xd1342543de82ef95ULL);
        Rng rng(splitmix64(mix));
        const double band = rng.uniform();
        double lo = 10, hi = 100;
        if (band < 0.1)
            lo = 0, hi = 0.1;
        else if (band < 0.5)
            lo = 0.1, hi = 0.5;
        else if (band < 0.7)
            lo = 0.5, hi = 1;
        else if (band < 0.9)
            lo = 1, hi = 10;
        const double magnitude = rng.uniform(lo, hi);
        return rng.uniform() < 0.5 ? -magnitude : magnitude;
    }

    /// A positive multiplier of the truth from u: 1 + u for u >= 0, 1 / (1 + |u|) for u < 0, so an
    /// under-estimate by |u| is the mirror image of an over-estimate in log scale (EASY needs a positive
    /// run time; Helios's own 1 + u goes negative for u < -1).
    double positive_factor(JobIdx j) const {
        const double u = error(j);
        return u >= 0 ? 1 + u : 1 / (1 - u);
    }

private:
    std::uint64_t base_;
};

}  // namespace dlsim
