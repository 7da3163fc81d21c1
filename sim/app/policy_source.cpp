#include "sim/app/policy_source.hpp"

#include "policies/foreign/pipe_policy.hpp"
#include "policies/foreign/python_policy.hpp"

namespace dlsim {

namespace {
constexpr std::string_view kPython = "py:", kPipe = "exec:";
}

bool is_external_policy(const std::string& name) { return name.starts_with(kPython) || name.starts_with(kPipe); }

PolicySource find_policy(const std::string& name, const std::map<std::string, std::string>& raw_params,
                         const std::string& params_dir) {
    if (name.starts_with(kPython))
        return {std::make_shared<const RegistryEntry<Policy>>(
                    python_policy_entry(name, name.substr(kPython.size()), raw_params, params_dir)),
                true};
    if (name.starts_with(kPipe))
        return {std::make_shared<const RegistryEntry<Policy>>(
                    pipe_policy_entry(name, name.substr(kPipe.size()), raw_params, params_dir)),
                true};
    // A built-in entry lives as long as the registry: the shared_ptr does not own it.
    return {std::shared_ptr<const RegistryEntry<Policy>>(std::shared_ptr<void>(), &builtin_policies().find(name)),
            false};
}

}  // namespace dlsim
