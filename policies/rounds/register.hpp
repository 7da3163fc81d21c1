#pragma once
#include "policies/registry.hpp"

namespace dlsim {

/// Adds the rounds family's entries to `registry` (called by register_builtin_policies).
void register_round_policies(PolicyRegistry& registry);

}  // namespace dlsim
