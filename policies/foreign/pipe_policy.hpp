#pragma once
// `--policy exec:'COMMAND ARGS'`: a policy in any language, run as a child process that exchanges one
// JSON object per line per policy call (the pipe protocol).
#include "policies/registry.hpp"

#include <map>
#include <string>
#include <string_view>

namespace dlsim {

/// The registry entry of `exec:COMMAND` (`name` is the whole form, `command` what follows `exec:`).
RegistryEntry<Policy> pipe_policy_entry(const std::string& name, const std::string& command,
                                        const std::map<std::string, std::string>& raw_params,
                                        const std::string& params_dir);

/// What one reply line of the pipe protocol said, besides the decisions it put in `out`.
struct PipeReply {
    std::string problem;  ///< empty when the line was a well-formed reply; else what was wrong
    bool has_child_error = false;
    std::string child_error;  ///< the child's own "error" member
};

/// Reads one reply line ({"actions": [...], "next_call": µs or null, "error": text}) into `out`; job and
/// type indices are checked against num_jobs and num_types. Never throws on malformed input.
PipeReply parse_pipe_reply(std::string_view line, Decisions& out, std::size_t num_jobs, std::size_t num_types);

}  // namespace dlsim
