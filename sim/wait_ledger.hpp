#pragma once
// Why each queued job waits, and for how long per reason: the engine's side of pending reasons.
//
// After every policy call the ledger settles each queued job's reason: the one the policy named for it
// (Decisions::wait), else the policy's common reason for the rest (Decisions::wait_rest), else the default
// rule below. A reason holds until the next call changes it or the job starts; the time between is added
// to the job's total for that reason when the interval closes, so the totals are exact integrals and sum
// to the job's pending time (a job gets its first reason at the instant it is queued, and loses it at the
// instant it starts).
//
// The default rule, for a job the policy says nothing about:
//   - fragmentation: the policy started it in this call and the placer found no placement;
//   - elastic_min (elastic jobs) / resources: no GPU type it may use has as many free GPUs as it needs;
//   - policy: GPUs it could use are free, and the policy left it queued without saying why.
//
// An answer that keeps the reasons (Decisions::keep_waits: a policy between its ticks) settles only the
// jobs queued since the last answer and the ones it names.
//
// The common reason costs O(1) per call however long the queue: the jobs that follow it are not visited
// when it changes. Its history is kept as segments (one per change of the reason itself, not of the job it
// names) with running totals per reason, so a job that leaves the group adds the difference of the totals
// at its leaving and joining times: O(1) when the reason did not change meanwhile.
#include "policies/policy.hpp"
#include "sim/observer.hpp"

#include <array>
#include <span>
#include <vector>

namespace dlsim {

/// Time waited per reason (µs), indexed by WaitReason.
using WaitTotals = std::array<Time, kWaitReasons>;

class WaitLedger {
public:
    WaitLedger(std::size_t jobs, const std::vector<Observer*>& observers);

    /// Job j entered the queue (arrival, preemption): it gets its reason when the call settles.
    void queued(JobIdx j);
    /// Queued job j leaves the queue at `now` (it starts): its current interval closes.
    void started(Time now, JobIdx j, const JobInfo& job);
    /// Settles every queued job's reason after a policy call (`declined`: its starts the placer could not
    /// fit). A note for a job the answer started is ignored. Returns the job of the first note that names
    /// a job neither queued nor just started, or a reason or named job that does not exist (kNobody if
    /// none): an invalid answer.
    JobIdx settle(const ClusterView& view, const Decisions& answer, std::span<const JobIdx> declined);

    /// Time job j waited for reason r in intervals that have closed (all of its waits once it finished).
    Time total(JobIdx j, WaitReason r) const { return totals_[j][static_cast<std::size_t>(r)]; }
    /// Hands every job's totals over once the run is done.
    std::vector<WaitTotals> take_totals() { return std::move(totals_); }

private:
    using Totals = WaitTotals;
    struct Segment {
        Time start;
        WaitReason reason;
        Totals before;  // the common reason's running totals at `start`
    };
    void assign(Time now, JobIdx j, const JobInfo& job, WaitReason r, JobIdx named);
    void join_rest(Time now, JobIdx j, const JobInfo& job);
    void set_rest(Time now, WaitReason r, JobIdx named);
    /// Closes j's current interval (individual or common) at `now`; returns the reason it had.
    WaitReason close(Time now, JobIdx j);
    /// The common reason's running total for each reason at `t`, within segment k (t >= its start).
    Totals rest_totals_at(std::size_t k, Time t) const;
    /// The rule for a job the answer says nothing about (a declined start is settled before it).
    static WaitReason default_reason(const ClusterView& view, const JobInfo& job);

    static constexpr std::uint32_t kNotQueued = UINT32_MAX;
    /// A job's place in the ledger (one record: a call touches one cache line per job).
    struct JobWait {
        Time since = 0;                        // when its current interval began
        JobIdx named = kNobody;                // the job its own reason names
        std::uint32_t stamp = 0;               // the settle() that named it
        std::uint32_t queue_pos = kNotQueued;  // its index in queued_
        std::uint32_t segment = 0;             // following the common reason: the segment it joined in
        WaitReason reason = WaitReason::None;  // its own reason (None: none, or it follows the common one)
        bool in_rest = false;                  // it follows the common reason
    };

    const std::vector<Observer*>& observers_;
    std::vector<Totals> totals_;
    std::vector<JobWait> jobs_;
    std::uint32_t stamp_ = 0;
    std::vector<JobIdx> queued_;          // the queue, in no order that reaches a result
    std::vector<JobIdx> fresh_;           // queued since the last settle
    std::vector<JobIdx> own_, next_own_;  // jobs with a reason of their own after the last settle / this one
    WaitReason rest_reason_ = WaitReason::None;
    JobIdx rest_named_ = kNobody;
    std::uint64_t rest_jobs_ = 0;
    std::vector<Segment> segments_;
};

}  // namespace dlsim
