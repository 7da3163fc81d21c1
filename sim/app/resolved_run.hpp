#pragma once
// A run's configuration resolved once: checked against the key table's ranges and the rules that span keys,
// the compatibility preset applied, the policy and placer found and their parameters checked and completed.
// What the sources gave stays apart from what is in effect: the run identity echoes the given config
// (with the preset's effective values where the table says so), the engine reads only what is in effect.
#include "sim/app/policy_source.hpp"
#include "sim/app/run_config.hpp"

namespace dlsim {

struct ResolvedRun {
    RunConfig given;  ///< as the config file, flags, sweep spec or caller gave it (unset keys stay unset)
    // In effect:
    ContentionMode network = ContentionMode::Duty;  ///< the key, else none under compat gavel, else duty
    bool stop_after_measured = false;               ///< the key, else on under compat gavel
    MultiGpuRate rate_mode = MultiGpuRate::Linear;  ///< measured under compat gavel
    PolicySource policy;
    const RegistryEntry<Placer>* placer = nullptr;
    Params policy_params;  ///< defaults filled in, compat gavel's gavel_compat=true added where declared
    Params placer_params;
};

/// Resolves a run's configuration; every error is an InputError naming the key, flag or parameter.
ResolvedRun resolve(const RunConfig& config);

}  // namespace dlsim
