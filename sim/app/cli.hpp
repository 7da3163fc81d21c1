#pragma once
// The `dlsim` command line (Boost.Program_options). Exit codes: 0 done, 2 bad input, 1 internal error.

#include <string>

namespace dlsim {

/// `dlsim validate FILE`: checks a cluster, profile, run config (by content) or canonical trace (a file not
/// named .json) and returns the one-line description; bad input is an InputError.
std::string validate_file(const std::string& path);

int cli_main(int argc, char** argv);

}  // namespace dlsim
