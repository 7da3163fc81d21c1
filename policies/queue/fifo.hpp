#pragma once
// `fifo`: strict first-come-first-served. Jobs start in (arrival, trace order);
// nothing overtakes the head of the queue; no preemption; gangs are all-or-nothing.
//
// `backfill=easy` (EASY backfilling, per type pool): the first job that does not fit (the head) reserves
// the earliest instant it could start on one of its types — the running jobs of that type, by estimated
// end, free GPUs until it fits: the shadow time s*, with e* GPUs to spare then. A later job starts now
// if it fits and either takes another type, or on the head's type needs no more than e* GPUs or ends by
// s* (a job that ends after s* uses up e*). A job's estimated run time is its true run time ×
// `estimate_factor` (1 = oracle; a running job's estimated end is its start plus that), so over-estimates
// move the reservation later and let longer jobs in, as user estimates do. `estimate=noisy` multiplies
// the truth by a seeded per-job noisy factor first (Helios's error distribution, policies/queue/runtime_estimate.hpp:
// 1 + u for u >= 0, 1 / (1 + |u|) for u < 0, so estimates stay positive). A running job whose estimated
// end has passed is expected to end now. A job is never killed past its estimate: the reservation is
// recomputed at every call (a soft guarantee, as in classic EASY).
//
// `space_sharing=true` (Gavel's `fifo_packed`, FIFOPolicyWithPacking in stanford-futuredata/gavel
// scheduler/policies/fifo.py): while the head cannot start, it is packed (Decisions::pack) onto the running
// job it pairs best with — the one whose pair's normalised rates (each co-located rate ÷ its rate alone on
// that type) sum highest, if above 1.5, Gavel's packing_threshold — then the next head is tried. Unlike
// Gavel, only single-GPU jobs are packed (dlsim imports the 1-GPU pairs only), partners are jobs already
// running (not those started in the same call), ties go to the lower job index, and looking for a partner
// costs O(running jobs) per call in which the head is blocked.
#include "policies/policy.hpp"
#include "policies/queue/runtime_estimate.hpp"
#include "policies/type_choice.hpp"

#include <deque>
#include <optional>
#include <vector>

namespace dlsim {

class FifoPolicy final : public Policy {
public:
    /// `noise`: EASY's estimates are noisy (drawn from this run's noise), else the truth; both × the factor.
    explicit FifoPolicy(TypeOrder order, bool easy = false, double estimate_factor = 1,
                        std::optional<EstimateNoise> noise = std::nullopt, bool space_sharing = false)
        : order_(order), easy_(easy), factor_(estimate_factor), noise_(noise), space_sharing_(space_sharing) {}

    /// Gavel's fifo_packed packs only if the pair's normalised rates sum above this.
    static constexpr double kPackingThreshold = 1.5;
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

private:
    /// Declined starts and requeued jobs go back to their place in arrival order.
    void take_back(const ClusterView& view, const Changes& changes);

    /// Space sharing: packs the blocked head onto its best running partner, while there is one.
    void pack_heads(const ClusterView& view, Decisions& out);
    /// EASY: starts the later jobs that do not delay the head's reservation.
    void backfill(const ClusterView& view, Decisions& out);
    /// EASY: job j's estimated run time ÷ its true run time.
    double estimate_multiplier(JobIdx j) const { return noise_ ? factor_ * noise_->positive_factor(j) : factor_; }

    TypeOrder order_;
    bool easy_;
    double factor_;
    std::optional<EstimateNoise> noise_;
    bool space_sharing_;
    std::vector<JobIdx> partners_;  // this call's scratch: running jobs already given a partner
    std::deque<JobIdx> queue_;
    std::vector<std::pair<Time, int>> ends_;  // scratch: (estimated end, GPUs) of the running jobs of a type
    std::vector<int> available_;              // per type, this call's scratch (no allocation per call)
};

}  // namespace dlsim
