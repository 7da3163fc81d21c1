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

}  // namespace dlsim
