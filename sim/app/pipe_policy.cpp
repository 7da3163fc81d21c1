#include "sim/app/pipe_policy.hpp"

#include "models/base/input_error.hpp"

namespace dlsim {

RegistryEntry<Policy> pipe_policy_entry(const std::string& name, const std::string&,
                                        const std::map<std::string, std::string>&, const std::string&) {
    throw InputError("policy " + name + ": the pipe protocol is not built yet");
}

}  // namespace dlsim
