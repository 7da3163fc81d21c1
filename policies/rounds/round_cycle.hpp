#pragma once
// The cadence of a round mechanism (round_scheduler.hpp, "Two mechanisms"), shared by RoundScheduler and its
// space-sharing form PackedRoundScheduler: when X is recomputed, when the time shares are reset, when a round
// starts and ends, and when the policy is called next. What a walk selects and how a selection becomes
// decisions is the mechanism's own; RoundCycle calls it through these members of the mechanism:
//   void recompute_allocation(const ClusterView&);    X for the active jobs (then allocated())
//   void reset_shares(Time now);                      deficits settled, time shares reseeded
//   void boundary_round(const ClusterView&, Decisions&);  default: the full walk and its decisions
//   void fill_round(const ClusterView&, Decisions&);      default: the walk over the free GPUs, starts only
//   Time renew_only_round(const ClusterView&);        compat: the end of a round that only renews every
//                                                     lease without a walk, or kNever to walk
//   Time compat_round(const ClusterView&, Decisions&);    compat: walk, place, emit; the round's end (the end
//                                                     of its longest micro-task), kNever if nothing placed
#include "models/base/input_error.hpp"
#include "policies/policy.hpp"
#include "policies/rounds/gavel_compat_round.hpp"
#include "policies/rounds/round_shares.hpp"

#include <string>

namespace dlsim {

class RoundCycle {
public:
    /// `round` (τ) and `reset_interval` in engine time; `gavel_compat` picks the mode step() runs; `who` names
    /// the mechanism in errors.
    RoundCycle(Time round, Time reset_interval, bool gavel_compat, const std::string& who)
        : round_(round), reset_interval_(reset_interval), compat_(gavel_compat) {
        if (round_ <= 0) throw InternalError(who + ": the round must be positive");
    }

    Time round() const { return round_; }
    /// A job arrived or finished: X no longer covers the active jobs.
    void invalidate() { stale_ = true; }
    /// X was computed for the active jobs.
    void allocated() { stale_ = false; }

    /// One call of the mechanism, once it has accounted the call's changes: step_compat or step_default.
    /// `timer`: the call is the policy timer's (Changes::timer); `any_active`: a job is active.
    template <class Mechanism>
    void step(Mechanism& m, const ClusterView& view, bool timer, bool any_active, const RoundShares& shares,
              Decisions& out) {
        if (compat_)
            step_compat(m, view, any_active, shares, out);
        else
            step_default(m, view, timer, any_active, shares, out);
    }

    /// Default mode: X is recomputed at once when stale; a round boundary (the first call, or the timer at the
    /// round's end) resets the shares if reset_interval has passed since the last reset (or none happened) and
    /// walks every GPU; any other call fills the free GPUs. The next call is the next boundary.
    template <class Mechanism>
    void step_default(Mechanism& m, const ClusterView& view, bool timer, bool any_active, const RoundShares& shares,
                      Decisions& out) {
        if (!any_active) {
            round_end_ = kNever;
            return;
        }
        const Time now = view.now();
        if (stale_) m.recompute_allocation(view);
        const bool boundary = round_end_ == kNever || (timer && now >= round_end_);
        if (boundary && (!shares.reset_once() || now - shares.last_reset() >= reset_interval_)) m.reset_shares(now);
        if (boundary) {
            m.boundary_round(view, out);
            round_end_ = now + round_;
        } else {
            m.fill_round(view, out);
        }
        out.next_call = round_end_;
    }

    /// Gavel-compatible mode: nothing happens while a round runs; a new round recomputes X (with a reset) only
    /// if a job arrived or finished AND (no reset at a time > 0 yet, or reset_interval since the last one),
    /// then walks. A round that places nothing while X is stale calls again when the gate opens.
    template <class Mechanism>
    void step_compat(Mechanism& m, const ClusterView& view, bool any_active, const RoundShares& shares,
                     Decisions& out) {
        if (gavel_round_running(view, round_end_, out) || !any_active) return;
        const Time now = view.now();
        if (stale_ && (shares.last_reset() == 0 || now - shares.last_reset() >= reset_interval_)) {
            m.reset_shares(now);
            m.recompute_allocation(view);
        }
        Time end = m.renew_only_round(view);
        if (end == kNever) end = m.compat_round(view, out);
        if (end != kNever) {
            round_end_ = end;
            out.next_call = end;
        } else if (stale_ && shares.last_reset() + reset_interval_ > now) {
            out.next_call = shares.last_reset() + reset_interval_;  // nothing placed: try again when the gate opens
        }
    }

private:
    Time round_, reset_interval_;
    bool compat_;
    bool stale_ = true;        // a job arrived or finished since X was computed
    Time round_end_ = kNever;  // default: the next boundary; compat: when the current round ends
};

}  // namespace dlsim
