#pragma once
// Gavel's rounds in the compatible mode (policies/rounds/README.md), the pieces shared by the round mechanism
// (policies/round_scheduler) and its space-sharing form (policies/packed_rounds): the round clock (a round
// lasts until its longest micro-task ends), a micro-task's end, and the strided worker walk.
#include "policies/policy.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

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

/// When a micro-task of a job at `rate` iterations/s with `remaining` iterations, started at `now`, ends:
/// min(⌊rate·τ⌋, remaining) iterations at `rate` (Gavel's `int(thr·360)` steps); a job too slow for one
/// iteration per round gets the whole round.
inline Time gavel_micro_task_end(Time now, double rate, double remaining, double tau_seconds, Time round) {
    const double steps = std::min(std::floor(rate * tau_seconds), remaining);
    return now + (steps > 0 ? to_time(steps / rate) : round);
}

/// Gavel's strided worker walk (scheduler.py _assign_workers_to_job): `need` GPUs from the lowest free ones
/// of `nodes` (one type's nodes, in order), per node's planned free count `plan_free`, from `cursor` on (moved
/// past nodes it fills, as Gavel's walk never goes back); appends the shares to `out`. False when they do not
/// fit.
inline bool gavel_take_lowest_free(std::span<const NodeIdx> nodes, std::size_t& cursor, std::vector<int>& plan_free,
                                   int need, std::vector<NodeShare>& out) {
    for (std::size_t i = cursor; need > 0 && i < nodes.size(); ++i) {
        const int take = std::min(plan_free[nodes[i]], need);
        if (take == 0) {
            if (i == cursor) ++cursor;
            continue;
        }
        out.push_back({nodes[i], take});
        plan_free[nodes[i]] -= take;
        need -= take;
        if (plan_free[nodes[i]] == 0 && i == cursor) ++cursor;
    }
    return need == 0;
}

}  // namespace dlsim
