#pragma once
// `themis`: finish-time-fair GPU leases (Themis, Mahajan et al., NSDI'20). Themis has no public code; every
// peer "Themis" is Gavel's min-max rho LP (`gavel-ftf`), so this is a re-reading of the paper's mechanism:
//   - rho_m = (age_m + its estimated time left) / T_id,m, finish-time fairness now. T_id,m is its run
//     time alone on an equal share of the cluster: its work at its gang's rate on its fastest type,
//     stretched by max(1, g_m N̄_m / W) where W is that type's GPU count and N̄_m the time-average number
//     of jobs in the system since its arrival (the instantaneous count at age 0). This is exactly
//     Metrics::finish_time_fairness's denominator, so the rho the policy equalises is the one reported.
//     Deviation: the share is of W, not of all the cluster's GPUs, so that rho is the one reported
//     (sim/app/RESULTS.md).
//     Time left: running, the rest of its restart plus remaining work at its current gang's rate; holding
//     nothing, remaining work at its gang's rate on its fastest type.
//   - Decisions happen every `lease` seconds (a grid from time 0) and at arrivals and completions: an
//     auction runs when a job waits and GPUs are free, or when leases have expired and a job waits or GPUs
//     are free (expired leases in a full cluster with no job waiting are renewed). A lease granted at t
//     thus holds until the first such decision at or after t + lease. Candidates are the
//     ceil((1 - f) M) jobs with the largest rho (at least 1) among all M jobs in the system; a bidder is a
//     waiting job or a running one whose lease expired. Pool = free GPUs + the expired leases' GPUs.
//   - Greedy auction (approximating the partial-allocation auction's Nash welfare): repeatedly the
//     candidate bidder with the largest log(rho_old / rho_new) gets its gang on the pool type where it
//     would finish soonest. rho_old is its rho if it gets nothing now: it waits one lease, then
//     (re)starts on its fastest type; rho_new counts the restart cost the run's restart model charges
//     there (none when an expired lease is renewed in place). T_id cancels in the ratio. A candidate
//     bids only where it gains (rho_new < rho_old).
//   - Leftover (work conservation): the bidders still without GPUs, by rho descending, take their
//     soonest-finishing type with room; a running job takes its own GPUs back when they are still in the
//     pool (the expired leases are not reshuffled among themselves: moves happen in the auction only).
//     Deviation: Themis gives the leftover to non-candidates only; here candidates whose bids lost (nothing
//     they gained from fitted) come first, so no GPU idles while a job that fits waits.
//   - Winners hold a lease of `lease` seconds; a running job is never preempted before its lease ends.
//     An expired lease that wins again keeps its GPUs (no restart) or moves to a type where it finishes
//     sooner by more than the restart cost plus `margin` (the rule of every preemptive policy); a
//     loser is preempted. The lease is the hysteresis: a job is preempted or moved at most once per lease
//     (without payments).
//     On a heterogeneous cluster the fast GPUs do rotate, lease by lease, among the most unfair jobs (as in
//     Gavel's finish-time-fair rounds): on `dlsim trace generate --jobs 20000 --rate 3 --seed 3` over the
//     bundled 108-GPU cluster of 3 types that is about 20 moves per job.
//   - payments=true (off by default; the hidden payment of Themis's partial-allocation auction, which makes it
//     truthful): an auction winner w keeps its gang for the share c_w = prod_{j != w} v_j(O) / v_j(O_-w) of the lease
//     (v = 1/rho over the candidates that bid, O_-w the greedy auction rerun without w), then its GPUs are auctioned
//     again at that instant. Rigid gangs cannot keep a fraction of their GPUs, so the payment is taken in time, not
//     GPUs. Leftover winners pay nothing. Caveat, measured: on the same 20,000-job trace, lease ends scattered in
//     time rarely free 8 GPUs at once, so 8-GPU gangs starve (their mean JCT 2,984 h against 322 h without payments;
//     rho max 129) and every lease end is a decision (2.7 M calls, 73 s against 87 k and 2 s).
// Not implemented: bundles of several gangs per job (gangs are rigid) and the agents' placement-aware
// bids (the engine's placer places each gang). Ties: earlier submission, then trace order.
// Cost: at most one auction per arrival, completion or `lease` seconds (not one per lease end; with
// payments also one per lease cut short, each rerunning the auction once per auction winner). A call
// with no expired lease and no free GPU is O(changes + expiries x log). When every waiting job's best type
// has room for all who want it and no expired lease would move (the common call of a loaded but not
// saturated cluster), the outcome is known without ranking: O((waiting + expired) x types). Otherwise
// (and always with `full_walk=true`, the reference the fast path is tested against) O(M) for
// every job's rho and the selection of the candidates, O(K log K) to order them (K = ceil((1 - f) M)),
// and O((bids x types + winners) x log M) for the auction and the leftover; no allocation in steady state.
#include "policies/desired_state.hpp"
#include "policies/policy.hpp"

#include <span>
#include <utility>
#include <vector>

namespace dlsim {

class ThemisPolicy final : public Policy {
public:
    /// `fairness`: Themis's f in [0, 1); `lease_s`: seconds, > 0; `margin_s`: a running job moves to
    /// another type only when it finishes sooner there by more than the restart cost plus this;
    /// `payments`: auction winners keep their GPUs for the partial-allocation share of the lease;
    /// `full_walk`: rank every job at every decision (the reference the fast path is tested against).
    ThemisPolicy(double fairness, double lease_s, double margin_s, bool payments = false, bool full_walk = false);
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

private:
    /// One job's standing in this call: its rho, and whether it bids.
    struct Standing {
        double rho;
        Time submit;
        JobIdx job;
        bool bidder;
        bool won = false;
    };
    /// What does not change while a job is in the system, fixed at its arrival.
    struct Arrival {
        double count_integral;  ///< count_integral_ at its arrival
        double fastest_rate;    ///< its gang's rate on its fastest type (iterations/s)
        double alone;           ///< s: its work at that rate
        double type_gpus;       ///< W: GPUs of that type
        GpuTypeIdx fastest;
    };
    /// A job given GPUs by this call, and the length of its lease.
    struct Winner {
        JobIdx job;
        GpuTypeIdx type;
        Time lease;
    };
    /// A bid in the auction: the job's largest gain and the type it is for.
    struct Bid {
        double gain;
        Time submit;
        JobIdx job;
        GpuTypeIdx type;
        std::uint32_t standing;  ///< index in standings_
    };

    void grow(JobIdx j);
    /// Arrivals and completions (the count's integral, the jobs in the system), declines, the waiting set.
    void track_changes(const ClusterView& view, const Changes& changes);
    void collect_expired_leases(const ClusterView& view);
    void grant_lease(Time now, JobIdx j, Time length);
    Standing standing(const ClusterView& view, const RateModel& rates, Time now, JobIdx j) const;
    /// Seconds from job j's arrival to its finish if it gets nothing now (rho_old's numerator).
    double wait_finish(const ClusterView& view, JobIdx j) const;
    /// Candidate i's bid: its gain on the pool type where it finishes soonest, if it gains there at all.
    bool bid(const ClusterView& view, std::uint32_t i, std::span<const int> pool, Bid& out) const;
    /// The greedy auction among the first `candidates` standings (but `excluded`) on `pool`, which it
    /// uses up: calls won(standing, type) for each winner, in winning order.
    template <class Won>
    void greedy_auction(const ClusterView& view, std::uint32_t candidates, std::uint32_t excluded,
                        std::vector<int>& pool, Won won);
    /// Shortens the auction winners' leases by their hidden payments (payments=true).
    void charge_payments(const ClusterView& view, std::uint32_t candidates);
    /// Standing i takes its gang on type t from the pool.
    void take(const ClusterView& view, std::uint32_t i, GpuTypeIdx t);
    /// Standing i won type t (the pool is already charged).
    void record_win(std::uint32_t i, GpuTypeIdx t);
    /// Whether some bidder's gang fits in the pool by count.
    bool pool_fits_smallest_gang() const;
    /// Seconds from now to job j's finish on a gang of type t (restart included).
    double finish_on(const ClusterView& view, JobIdx j, GpuTypeIdx t) const;
    /// Restart seconds the run's model charges job j for a (re)start on type t, from `from` (nullptr: queued).
    double restart_on(const ClusterView& view, JobIdx j, GpuTypeIdx t, const Allocation* from) const;
    /// The pool type where job j finishes soonest, with its finish in s from now; false if none has room.
    bool best_type(const ClusterView& view, JobIdx j, std::span<const int> pool, GpuTypeIdx& type,
                   double& finish) const;
    /// The full decision: every job's rho, the candidates, the auction and the leftover.
    void auction(const ClusterView& view, Decisions& out);
    /// The fast path: true (winners_ filled) when the auction's outcome is known without ranking the jobs.
    bool everyone_gets_the_best_type(const ClusterView& view);
    /// Turns winners_ into actions (starts, renewals, moves; preemption of the expired leases that lost)
    /// and grants the winners their leases. `only_starts`: the fast path's, where every expired lease is
    /// renewed in place.
    void emit_winners(const ClusterView& view, Decisions& out, bool only_starts);
    /// Puts job j in the waiting set or takes it out, as its state says.
    void sync_waiting(const ClusterView& view, JobIdx j);
    /// The auction and the leftover over standings_: fills winners_.
    void choose_winners(const ClusterView& view);

    double fairness_;
    Time lease_;
    double margin_;
    bool payments_;
    bool full_walk_;

    // Jobs in the system (queued or running) and the running integral of their count (job-seconds).
    std::vector<JobIdx> active_;
    std::vector<JobIdx> waiting_;  // those queued
    std::vector<JobIdx> touched_;  // started, renewed or let go by the last call: their state is synced next call
    double count_integral_ = 0;
    Time integral_at_ = 0;

    // Per job (grown on arrival).
    std::vector<std::uint32_t> active_pos_;
    std::vector<Arrival> arrival_;
    std::vector<std::uint32_t> waiting_pos_;
    std::vector<Time> lease_end_;    // kExpired while its expired lease is being auctioned
    std::vector<Time> declined_at_;  // the instant its start was last declined

    // Lease expiries (min-heap of (end, job)); entries of jobs that stopped or were renewed are stale.
    std::vector<std::pair<Time, JobIdx>> leases_;

    // Scratch, reused across calls.
    std::vector<JobIdx> expired_;
    std::vector<Standing> standings_;
    std::vector<Bid> bids_;
    std::vector<int> pool_;
    std::vector<int> demand_;
    std::vector<Winner> winners_;
    // Payments' scratch: the pool before the auction, each candidate's type won (kNoType: none) with and
    // without one winner, its finish time with it, and the auction's winners in winning order.
    std::vector<int> pool_before_, other_pool_;
    std::vector<GpuTypeIdx> auction_type_, other_type_;
    std::vector<double> finish_with_;
    std::vector<std::uint32_t> auction_winners_;
    int smallest_gang_ = 0;  // of this call's bidders
    DesiredState desired_;
    mutable Allocation probe_;  // "g GPUs of type t" for the restart model
};

}  // namespace dlsim
