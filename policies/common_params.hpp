#pragma once
// Parameters that several policy families declare alike.
#include "policies/registry.hpp"

#include <string>

namespace dlsim {

/// The hysteresis every preemptive policy has, so that two jobs never swap back and forth: seconds, 1 ms by
/// default; `description` says what it gates in that policy.
inline ParamSpec margin_param(std::string description) {
    return {"margin", ParamType::Double,
            "0.001",  std::move(description),
            {},       ParamRange{.lo = 0, .hi = 1e9, .noun = "seconds"}};
}

/// The reference switch of the policies with a fast path: the slow walk the fast one is tested against.
inline ParamSpec full_walk_param() {
    return {"full_walk",
            ParamType::Bool,
            "false",
            "walk every running job at every call: the slow reference the incremental path is tested against",
            {}};
}

/// Which GPU type a queue policy gives a job (policies/type_choice.hpp).
inline ParamSpec type_order_param() {
    return {"type_order",
            ParamType::Choice,
            "fastest",
            "which GPU type a job gets: the fastest for its model that has room, or the first in cluster order",
            {"fastest", "spec"}};
}

/// How type_order=fastest breaks a tie between equally fast types (every type, for a job without a model).
inline ParamSpec type_ties_param() {
    return {"type_ties",
            ParamType::Choice,
            "most_free",
            "among GPU types equally fast for a job (all of them for a job without a model): the one with the largest "
            "share of its GPUs free (then the most free GPUs, then cluster order), or the first in cluster order",
            {"most_free", "cluster_order"}};
}

}  // namespace dlsim
