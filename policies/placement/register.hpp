#pragma once
#include "policies/registry.hpp"

namespace dlsim {

/// Adds the placement family's entries to `registry` (called by register_builtin_placers).
void register_placers(PlacerRegistry& registry);

}  // namespace dlsim
