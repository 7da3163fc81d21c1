#pragma once
// `afs`: Apathetic Future Share (Hwang et al., "Elastic Resource Sharing for Distributed Deep Learning",
// NSDI'21): GPUs handed out one at a time by a pairwise tournament that weighs each job's relative speed-up
// from one more GPU, assuming today's allocation lasts. policies/elastic/README.md gives the rule.
#include "models/base/sim_time.hpp"
#include "policies/elastic/elastic_jobs.hpp"
#include "policies/policy.hpp"

#include <vector>

namespace dlsim {

enum class AfsVariant {
    Concept,  ///< every GPU by the tournament, from 0 (alg_c_concept)
    OneEach   ///< first one step to every job by shortest r, then the tournament on the surplus (alg_c)
};

class AfsPolicy final : public Policy {
public:
    AfsPolicy(AfsVariant variant, double eps, Time interval) : variant_(variant), eps_(eps), interval_(interval) {}
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

private:
    /// The GPU count after job i's next step from k: its first count from 0, then one more (an elastic job),
    /// or nothing (a rigid job holding its gang): 0.
    int next_count(std::size_t i, int k) const;
    /// r_i(k): seconds to finish the remaining work on k GPUs (+ eps); infinity on 0 GPUs or where it cannot run.
    double time_on(const ClusterView& view, std::size_t i, int k) const;
    /// Whether job l (the one with the shorter r now) wins the next GPU against job h (the tournament's rule).
    bool first_wins(std::size_t a, std::size_t b) const;
    /// Refreshes job i's r now and after its next step; `eligible_` says whether that step fits in `free`.
    void refresh(const ClusterView& view, std::size_t i, int free);
    void tournament(const ClusterView& view, int free);

    AfsVariant variant_;
    double eps_;
    Time interval_;
    ActiveJobs active_;
    CountApplier applier_;
    GpuTypeIdx type_ = 0;
    int per_node_ = 1;
    Time now_ = 0;
    // Per active job (same index), reused across calls.
    std::vector<int> counts_, first_, cap_;
    std::vector<double> remaining_, r_now_, r_next_;
    std::vector<char> elastic_, eligible_;
    std::vector<std::size_t> order_;  ///< indices by (submit time, job index): the tournament's list order
    std::vector<std::size_t> by_r_;   ///< one-each: indices by r after the first step
};

}  // namespace dlsim
