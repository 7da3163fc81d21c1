#pragma once
// Why a job waits and why a running job lost its GPUs: the vocabulary a policy answers with, in the spirit
// of Slurm's pending-reason codes (squeue's REASON column) and Kueue's admission conditions. A policy names
// the reason of each job it leaves queued (Decisions::wait, wait_rest) and the cause of each preemption
// (Decisions::preempt); where it says nothing the engine derives one (sim/wait_ledger.hpp).
#include "models/allocation.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dlsim {

/// No job or VC named.
inline constexpr JobIdx kNobody = kNoPartner;

/// Why a queued job is not running. The order is the output order of every table that lists them.
enum class WaitReason : std::uint8_t {
    Resources,          ///< no GPU type it may use has enough free GPUs
    Fragmentation,      ///< enough free GPUs of a type it may use, but the placer found no placement
    Priority,           ///< the jobs ranked before it (or fitting where it does not) hold the GPUs; names the
                        ///< lowest-ranked job that runs
    HeadOfLine,         ///< strict order: behind the named head of the queue, which does not fit
    Quota,              ///< its virtual cluster's (or user's) GPU quota is used up
    Share,              ///< a round-based policy: its time share of this round is spent
    PlacementDeclined,  ///< the policy could place it but declines the placement on offer
    Reserved,           ///< the free GPUs are reserved for the named job (EASY backfilling's shadow)
    PolicyTimer,        ///< the policy decides at its next timer (an interval or round boundary)
    ElasticMin,         ///< an elastic job: fewer GPUs free than its minimum
    Policy,             ///< the policy left it queued while GPUs it may use were free, and gave no reason
    None,               ///< not waiting (not a reason: the sentinel of the enum)
};
inline constexpr std::size_t kWaitReasons = static_cast<std::size_t>(WaitReason::None);
inline constexpr std::string_view kWaitReasonNames[kWaitReasons] = {
    "resources",          "fragmentation", "priority",     "head_of_line", "quota", "share",
    "placement_declined", "reserved",      "policy_timer", "elastic_min",  "policy"};
inline constexpr std::string_view wait_reason_name(WaitReason r) { return kWaitReasonNames[static_cast<int>(r)]; }

/// Why a running job lost its GPUs (or moved, or changed size).
enum class StopCause : std::uint8_t {
    Unstated,   ///< the policy gave none: the engine derives Moved, Displaced or Policy after the call
    Displaced,  ///< the named job took (some of) its GPUs at the same instant
    RoundEnd,   ///< a round-based policy's new round left it out
    Quota,      ///< its GPUs were reclaimed for the named job's virtual cluster (quota borrowing)
    Moved,      ///< it runs again elsewhere at the same instant (a migration; on another type or nodes)
    Resized,    ///< an elastic policy changed its GPU count
    NoPlace,    ///< the engine: a move found no place, so it went back to the queue
    Policy,     ///< the policy stopped it, nothing took its GPUs, and it gave no cause
};
inline constexpr std::string_view kStopCauseNames[] = {"unstated", "displaced", "round_end", "quota",
                                                       "moved",    "resized",   "no_place",  "policy"};
inline constexpr std::string_view stop_cause_name(StopCause c) { return kStopCauseNames[static_cast<int>(c)]; }
/// The causes a policy may state (the others are the engine's own facts), and their names as a message
/// lists them.
inline constexpr StopCause kPolicyStopCauses[] = {StopCause::Displaced, StopCause::RoundEnd, StopCause::Quota,
                                                  StopCause::Resized, StopCause::Policy};
inline constexpr std::string_view kPolicyStopCauseList = "displaced, round_end, quota, resized or policy";
/// The names of the wait reasons as a message lists them ("resources, fragmentation, ...").
inline std::string wait_reason_list() {
    std::string out;
    for (std::string_view n : kWaitReasonNames) out.append(out.empty() ? "" : ", ").append(n);
    return out;
}

/// A wait reason by its name (the names a foreign policy answers with), or none.
inline std::optional<WaitReason> wait_reason_named(std::string_view name) {
    for (std::size_t r = 0; r < kWaitReasons; ++r)
        if (name == kWaitReasonNames[r]) return static_cast<WaitReason>(r);
    return std::nullopt;
}
/// A cause a policy may state, by its name, or none.
inline std::optional<StopCause> policy_stop_cause_named(std::string_view name) {
    for (StopCause c : kPolicyStopCauses)
        if (name == stop_cause_name(c)) return c;
    return std::nullopt;
}

}  // namespace dlsim
