#pragma once
// `--policy exec:'COMMAND ARGS'`: a policy in any language, run as a child process that exchanges one
// JSON object per line per policy call (the pipe protocol).
#include "policies/registry.hpp"

#include <map>
#include <string>

namespace dlsim {

/// The registry entry of `exec:COMMAND` (`name` is the whole form, `command` what follows `exec:`).
RegistryEntry<Policy> pipe_policy_entry(const std::string& name, const std::string& command,
                                        const std::map<std::string, std::string>& raw_params,
                                        const std::string& params_dir);

}  // namespace dlsim
