#pragma once
// Gavel's round clock in the compatible mode, shared by the round mechanism (policies/round_scheduler) and
// its space-sharing form (policies/packed_rounds): a round lasts until its longest micro-task ends, so a
// call before that end (an arrival, a job finishing early) only waits for it.
#include "policies/policy.hpp"

#include <algorithm>

namespace dlsim {

/// A micro-task due at a round's end may complete a few µs after it (the engine rounds its own finish
/// time); the round waits for it instead of starting without it.
inline constexpr Time kGavelRoundSlack = 1000;

/// True while the current round (ending at `round_end`) is not over: `out.next_call` is set to its end, or
/// to the finish of a micro-task due within kGavelRoundSlack (which becomes the round's end). False: a new
/// round starts now (`round_end` is cleared).
inline bool gavel_round_running(const ClusterView& view, Time& round_end, Decisions& out) {
    const Time now = view.now();
    if (round_end != kNever && now < round_end) {  // mid-round: arrivals and freed GPUs wait
        out.next_call = round_end;
        return true;
    }
    Time late = kNever;
    for (const JobIdx j : view.running_jobs()) {
        const Time f = view.job(j).finish;
        if (f != kNever && f > now && f - now <= kGavelRoundSlack) late = late == kNever ? f : std::max(late, f);
    }
    if (late != kNever) {
        round_end = late;
        out.next_call = late;
        return true;
    }
    round_end = kNever;
    return false;
}

}  // namespace dlsim
