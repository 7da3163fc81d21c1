#pragma once
// The Gittins index of a job's attained service under an estimated service distribution, for
// `tiresias-gittins`. Textbook form (Gittins; Aalto, Ayesta & Righter):
//   G(a, Δ) = P(S − a ≤ Δ | S > a) / E[min(S − a, Δ) | S > a],
// the rate at which the next Δ of service completes jobs that have attained a. Over a sample
// d_0 ≤ … ≤ d_{n−1} kept sorted with prefix sums, with i = #{d ≤ a} and k = #{d ≤ a + Δ}:
//   G = (k − i) / (Σ_{i≤l<k} (d_l − a) + Δ·(n − k)),
// two binary searches. G = 0 when no sample point exceeds a (nothing is known to run longer). `compat`
// gives Tiresias's simulator's E, which sums the raw d_l instead of d_l − a.
//
// The estimate: the total services of the jobs finished so far. Until 100 jobs have finished
// it is a prior "uniform over the thresholds": uniform on [0, prior_max] (the policy passes twice its
// last queue threshold), represented by 1,000 evenly spaced points (m + ½)·prior_max/1000. Finished
// jobs are merged in batches, when 100 have finished and then each time their number has grown by an
// eighth, so an index changes only at a refresh (the policy then re-keys its waiting jobs: about 70
// times in a million-job run) and the estimate lags the finished jobs by at most one batch.
#include <cstddef>
#include <vector>

namespace dlsim {

class ServiceDistribution {
public:
    static constexpr std::size_t kMinFinished = 100;
    static constexpr std::size_t kPriorPoints = 1000;

    explicit ServiceDistribution(double prior_max);
    /// A finished job's total service.
    void add(double service) { pending_.push_back(service); }
    /// Merges the finished jobs into the sample when a batch is due; true if the sample changed.
    bool refresh();
    /// G(a, Δ); Δ may be infinite (the rest of the job).
    double gittins(double attained, double delta, bool compat = false) const;
    /// Points in the sample (the prior's until the first refresh).
    std::size_t size() const { return sample_.size(); }
    bool is_prior() const { return prior_; }

private:
    std::vector<double> sample_;  // sorted
    std::vector<double> prefix_;  // prefix_[l] = d_0 + … + d_{l−1}
    std::vector<double> pending_;
    std::size_t finished_ = 0;  // jobs in the sample once the prior is gone
    bool prior_ = true;
};

}  // namespace dlsim
