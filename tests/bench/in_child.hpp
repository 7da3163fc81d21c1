#pragma once
// Each benchmark case in its own process, so peak RSS is that case's alone and one case's heap does not
// warm the next. Exits 1 from the child (message on stderr) when the case throws.
#include <fmt/format.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <string_view>

namespace dlsim::bench {

/// Runs `body` in a forked child and waits for it; false if the fork failed or the child did not exit 0.
template <class Body>
bool run_in_child(std::string_view program, std::string_view label, Body body) {
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) {
        std::perror("fork");
        return false;
    }
    if (pid == 0) {
        try {
            body();
        } catch (const std::exception& e) {
            fmt::print(stderr, "{}: {}: {}\n", program, label, e.what());
            std::fflush(stderr);
            _exit(1);
        }
        std::fflush(stdout);
        _exit(0);
    }
    int child = 0;
    waitpid(pid, &child, 0);
    return WIFEXITED(child) && WEXITSTATUS(child) == 0;
}

}  // namespace dlsim::bench
