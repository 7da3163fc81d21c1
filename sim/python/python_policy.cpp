#include "sim/python/python_policy.hpp"

#include "models/base/input_error.hpp"

namespace dlsim {

RegistryEntry<Policy> python_policy_entry(const std::string& name, const std::string&,
                                          const std::map<std::string, std::string>&, const std::string&) {
    throw InputError("policy " + name + ": Python policies are not built yet");
}

}  // namespace dlsim
