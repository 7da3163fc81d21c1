#pragma once
// Where a run's policy comes from: a built-in by its registry name, or code written outside dlsim,
// `py:FILE.py:CLASS` (a Python class run in-process, policies/foreign/python_policy.hpp) or
// `exec:COMMAND ARGS` (a child process speaking the pipe protocol, policies/foreign/pipe_policy.hpp).
#include "policies/registry.hpp"

#include <map>
#include <memory>
#include <string>

namespace dlsim {

struct PolicySource {
    /// The registry's entry, or one built for this run (an external policy's parameters are declared
    /// from those given, and its identity parameters, e.g. the file's sha256, are added).
    std::shared_ptr<const RegistryEntry<Policy>> entry;
    /// Code written outside dlsim: an invalid decision is the user's input error (exit 2, naming the job),
    /// not a broken invariant of dlsim (exit 1).
    bool external = false;
};

/// True for the `py:` and `exec:` forms.
bool is_external_policy(const std::string& name);

/// The entry for `name`; `raw_params` are the run's policy parameters (an external policy declares them)
/// and `params_dir` the folder relative paths in them are read from ("" = the working folder). Unknown
/// names and malformed external forms are InputErrors.
PolicySource find_policy(const std::string& name, const std::map<std::string, std::string>& raw_params,
                         const std::string& params_dir);

}  // namespace dlsim
