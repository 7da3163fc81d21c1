#pragma once
#include "policies/registry.hpp"

namespace dlsim {

/// Adds the queue family's entries to `registry` (called by register_builtin_policies).
void register_queue_policies(PolicyRegistry& registry);

}  // namespace dlsim
