#pragma once
// The `dlsim` command line (Boost.Program_options). Exit codes: 0 done, 2 bad input, 1 internal error.

namespace dlsim {

int cli_main(int argc, char** argv);

}  // namespace dlsim
