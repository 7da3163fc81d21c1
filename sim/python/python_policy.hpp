#pragma once
// `--policy py:FILE.py:CLASS`: a policy written in Python (a subclass of dlsim.Policy), run in-process
// through an embedded interpreter.
#include "policies/registry.hpp"

#include <map>
#include <string>

namespace dlsim {

/// The registry entry of `py:FILE.py:CLASS` (`name` is the whole form, `spec` what follows `py:`).
RegistryEntry<Policy> python_policy_entry(const std::string& name, const std::string& spec,
                                          const std::map<std::string, std::string>& raw_params,
                                          const std::string& params_dir);

}  // namespace dlsim
