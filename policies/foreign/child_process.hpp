#pragma once
// A child process whose stdin and stdout are pipes to dlsim (its stderr is dlsim's): started without a
// shell, written to and read from line by line under a deadline, so a child that stops reading or
// answering can never hang the run, and always killed and reaped when dropped (no zombie).
#include <sched.h>
#include <chrono>

#include <sys/types.h>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

/// The words of a command line, split as a POSIX shell splits plain words and quotes (no expansion, no
/// operators): blanks separate words, '...' keeps everything literally, "..." keeps everything but
/// \" \\ \$ \` (backslash-escaped), and a backslash outside quotes keeps the next character. An
/// unterminated quote or a trailing backslash is an error (std::invalid_argument saying which).
std::vector<std::string> split_command(std::string_view command);

class ChildProcess {
public:
    using Clock = std::chrono::steady_clock;
    /// TooLong: a line longer than kMaxLine (a child writing without end must not exhaust memory).
    enum class Io { Ok, Closed, TimedOut, TooLong };
    static constexpr std::size_t kMaxLine = std::size_t{1} << 28;

    /// Starts argv[0] (looked up in PATH when it has no '/'). Throws std::system_error when it cannot be
    /// started (e.g. no such program).
    explicit ChildProcess(const std::vector<std::string>& argv);
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;
    /// Kills the child if it still runs, and reaps it.
    ~ChildProcess();

    /// Writes all of `data` to the child's stdin by `deadline`. Closed: the child closed its stdin (or exited).
    Io write_all(std::string_view data, Clock::time_point deadline);
    /// Reads the next line of the child's stdout (without its '\n') into `line`, valid until the next read.
    /// Closed: end of file before a whole line.
    Io read_line(std::string_view& line, Clock::time_point deadline);

    /// Closes the child's stdin (it sees end of file), waits up to `grace` for it to exit, then kills it.
    /// Returns how it ended (see describe_exit).
    std::string finish(std::chrono::milliseconds grace);
    /// Kills the child now and reaps it; returns how it ended.
    std::string kill_now();

    /// "exited with status 3", "was killed by signal 11 (Segmentation fault)"; "" while still running.
    const std::string& exit_description() const { return exit_; }

private:
    /// Reaps the child if it has exited (blocking when `block`); true once reaped.
    bool reap(bool block);
    void close_fd(int& fd);
    /// Pins the calling thread and the child to the CPU the thread runs on (see the .cpp for why).
    void share_cpu();

    pid_t pid_ = -1;
    int to_child_ = -1, from_child_ = -1;
    std::string in_;            // bytes read and not yet returned as lines (reused: no allocation per call)
    std::size_t in_begin_ = 0;  // the first unread byte of in_
    std::string exit_;
    bool restore_affinity_ = false;
    cpu_set_t saved_affinity_{};  // the calling thread's affinity before share_cpu
};

}  // namespace dlsim
