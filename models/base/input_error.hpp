#pragma once
// The two kinds of failure, kept apart so that a message says whose it is: the user's fault and our bug.
// This header is the one piece of vocabulary shared by every layer, traces/ included.
#include <stdexcept>
#include <string>

namespace dlsim {

/// Bad input: names the file, the line or field, and what was expected. Exit code 2.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A broken invariant inside dlsim (or a policy breaking its contract). Exit code 1.
class InternalError : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

}  // namespace dlsim
