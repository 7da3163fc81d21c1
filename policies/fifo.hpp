#pragma once
// `fifo`: strict first-come-first-served (POLICIES.md §2). Jobs start in (arrival, trace order);
// nothing overtakes the head of the queue; no preemption; gangs are all-or-nothing.
//
// `backfill=easy` (EASY backfilling, per type pool): the first job that does not fit (the head) reserves
// the earliest instant it could start on one of its types — the running jobs of that type, by estimated
// end, free GPUs until it fits: the shadow time s*, with e* GPUs to spare then. A later job starts now
// if it fits and either takes another type, or on the head's type needs no more than e* GPUs or ends by
// s* (a job that ends after s* uses up e*). A job's estimated run time is its true run time ×
// `estimate_factor` (1 = oracle; a running job's estimated end is its start plus that), so over-estimates
// move the reservation later and let longer jobs in, as user estimates do. `estimate=noisy` multiplies
// the truth by a seeded per-job noisy factor first (Helios's error distribution, policies/runtime_estimate.hpp:
// 1 + u for u >= 0, 1 / (1 + |u|) for u < 0, so estimates stay positive). A running job whose estimated
// end has passed is expected to end now. A job is never killed past its estimate: the reservation is
// recomputed at every call (a soft guarantee, as in classic EASY).
#include "policies/policy.hpp"
#include "policies/runtime_estimate.hpp"
#include "policies/type_choice.hpp"

#include <deque>
#include <optional>
#include <vector>

namespace dlsim {

class FifoPolicy final : public Policy {
public:
    /// `noise`: EASY's estimates are noisy (drawn from this run's noise), else the truth; both × the factor.
    explicit FifoPolicy(TypeOrder order, bool easy = false, double estimate_factor = 1,
                        std::optional<EstimateNoise> noise = std::nullopt)
        : order_(order), easy_(easy), factor_(estimate_factor), noise_(noise) {}
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

private:
    /// Declined starts and requeued jobs go back to their place in arrival order.
    void take_back(const ClusterView& view, const Changes& changes);

    /// EASY: starts the later jobs that do not delay the head's reservation.
    void backfill(const ClusterView& view, Decisions& out);
    /// EASY: job j's estimated run time ÷ its true run time.
    double estimate_multiplier(JobIdx j) const { return noise_ ? factor_ * noise_->positive_factor(j) : factor_; }

    TypeOrder order_;
    bool easy_;
    double factor_;
    std::optional<EstimateNoise> noise_;
    std::deque<JobIdx> queue_;
    std::vector<std::pair<Time, int>> ends_;  // scratch: (estimated end, GPUs) of the running jobs of a type
    std::vector<int> available_;  // per type, this call's scratch (no allocation per call)
};

}  // namespace dlsim
