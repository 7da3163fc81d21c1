#pragma once
// `drf`: dominant resource fairness by progressive filling (Ghodsi et al., NSDI'11) over
// the trace's VCs (default), users, or single jobs. Resources = GPUs only: the cluster model has no CPU or
// memory, so a principal's dominant share is its GPUs held ÷ the cluster's GPUs (all types counted alike).
//   - Progressive filling: repeatedly the principal with the lowest weighted share (GPUs held ÷ its
//     weight; ties to the lower principal id) starts its next job that fits; inside a principal, FIFO by
//     (submit, trace order), SKIP walk (a job that does not fit is passed over); a principal none of whose
//     jobs fits is passed over for the rest of the call. The GPU type comes from `type_order`.
//   - share=demand (Synergy's `drf`, per=job only): a job's share is static, its own demand (GPUs ÷ the
//     cluster's GPUs), so jobs run smallest gang first, then by arrival. Deviations from Synergy: event-
//     driven instead of 300 s rounds, no CPU/memory terms, no 1000 h starvation bump.
//   - preempt=true: when the lowest-share principal's head job cannot start, running jobs of principals
//     that stay at or above it after the swap are evicted youngest first (latest start) until the job fits
//     on one type: (held_p + g_j)/w_p <= (held_q − g_v)/w_q. To evict back, q would need to end at or below
//     p again, which needs q strictly below p now: no back-and-forth. And a job is evicted only once its current stint
//     has run at least its restart cost elsewhere plus `margin` (the rule of every preemptive policy: a preemption pays
//     for its restart); the policy asks to be called when a younger victim becomes eligible.
// Cost per call: O(changes × log n) bookkeeping, plus the SKIP walk over the queues of principals that
// have nothing that fits while GPUs are free (as every SKIP walk), plus O(running × log running) when
// preempt=true and a principal waits.
#include "policies/policy.hpp"
#include "policies/queue/displacement_cost.hpp"
#include "policies/type_choice.hpp"

#include <set>
#include <utility>
#include <vector>

namespace dlsim {

enum class DrfPrincipal { Vc, User, Job };

class DrfPolicy final : public Policy {
public:
    /// `weights`: per principal id (VC or user id; missing = 1); per=job ignores it.
    DrfPolicy(TypeOrder order, DrfPrincipal per, bool demand_share, std::vector<double> weights, bool preempt,
              double margin_s);
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

private:
    static constexpr JobIdx kNoJob = UINT32_MAX;
    struct Principal {
        int held = 0;                             // GPUs its running jobs hold (incl. this call's starts)
        std::set<std::pair<Time, JobIdx>> queue;  // waiting jobs by (submit, trace order)
        double key = 0;                           // its key in active_ while it waits
    };
    std::uint32_t principal_of(const JobInfo& job, JobIdx j) const;
    Principal& principal(std::uint32_t p);
    double weight(std::uint32_t p) const { return p < weights_.size() ? weights_[p] : 1.0; }
    /// The walk order of a waiting principal: weighted share held, or (share=demand) its one job's demand.
    double key_of(const ClusterView& view, std::uint32_t p) const;
    void enqueue(const ClusterView& view, JobIdx j);
    /// Its GPUs given back (finished, requeued, declined, evicted): no-op unless it held them.
    void release(const ClusterView& view, JobIdx j);
    /// Takes principal p out of active_, lets `change` alter it, puts it back if it still waits.
    template <class F>
    void update(const ClusterView& view, std::uint32_t p, F change);
    void fill(const ClusterView& view, Decisions& out);
    void evict_for_waiting(const ClusterView& view, Decisions& out);
    /// The first job of p's queue that fits `available_` on some type, and that type (kNoJob: none).
    std::pair<JobIdx, GpuTypeIdx> first_fit(const ClusterView& view, const Principal& p) const;
    void start(const ClusterView& view, JobIdx j, GpuTypeIdx t, Decisions& out);

    TypeOrder order_;
    DrfPrincipal per_;
    bool demand_;
    std::vector<double> weights_;
    bool preempt_;
    DisplacementCost displacement_;
    double total_gpus_ = 0;
    std::vector<Principal> principals_;
    std::set<std::pair<double, std::uint32_t>> active_;  // principals with waiting jobs, by (key, id)
    std::vector<std::uint8_t> holding_;     // per job: 1 while this policy counts its GPUs for its principal
    std::vector<int> available_;            // scratch: free GPUs per type in this call
    std::vector<JobIdx> victims_, by_age_;  // scratch for evictions
    std::vector<int> room_;                 // scratch: per type, GPUs free once its evictions are done
    std::vector<std::uint32_t> evicted_;    // per job: the eviction pass (call_) that evicted it
    std::uint32_t call_ = 0;
    Time next_call_ = kNever;
};

}  // namespace dlsim
