#pragma once
#include "policies/registry.hpp"

namespace dlsim {

/// Adds the elastic family's entries to `registry` (called by register_builtin_policies).
void register_elastic_policies(PolicyRegistry& registry);

}  // namespace dlsim
