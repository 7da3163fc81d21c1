#pragma once
// Child processes, a few at a time, each with its output captured and an optional wall-clock limit.
// A sweep runs every run in one (sweep.cpp): a run that crashes, is killed, exits early or hangs ends
// its own process only, and the pool reports how it ended.
//
// Children are started with fork and exec (no code of this process runs in the child between the
// two but async-signal-safe calls, so threads or an embedded interpreter here cannot deadlock it).
// Each child leads its own process group, which a timeout kills whole, and is killed by the kernel
// when this process dies (PR_SET_PDEATHSIG), so a killed sweep leaves no run writing behind it.
#include <sys/types.h>
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace dlsim {

struct WorkerEnd {
    enum class How { Exited, Signaled, TimedOut };
    How how = How::Exited;
    int code = 0;        ///< the exit code, or the signal that ended it
    double seconds = 0;  ///< wall time from start to end
    std::string output;  ///< the last bytes of its stdout and stderr together (at most kOutputTail)
};

class WorkerPool {
public:
    static constexpr std::size_t kOutputTail = 16384;

    /// At most `slots` children at once; each is killed after `timeout_seconds` (0: no limit).
    WorkerPool(unsigned slots, double timeout_seconds);
    ~WorkerPool();  ///< kills and reaps the children still running
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    bool has_free_slot() const { return workers_.size() < slots_; }
    bool idle() const { return workers_.empty(); }

    /// Starts `argv` (argv[0] the executable's path) with stdin from /dev/null; `tag` comes back from
    /// wait_any. A failed fork or pipe is an InternalError.
    void start(std::size_t tag, const std::vector<std::string>& argv);

    /// Blocks until a child ends; returns its tag and how it ended. Only when !idle().
    std::pair<std::size_t, WorkerEnd> wait_any();

private:
    using Clock = std::chrono::steady_clock;
    struct Worker {
        std::size_t tag = 0;
        pid_t pid = -1;
        int fd = -1;  ///< read end of its stdout+stderr pipe; -1 after end of file
        Clock::time_point start;
        bool reaped = false, timed_out = false;
        int status = 0;
        std::string output;
    };
    void drain(Worker& w);
    void kill_worker(Worker& w);

    unsigned slots_;
    double timeout_seconds_;
    std::vector<Worker> workers_;
};

/// The running executable's own path (/proc/self/exe), for starting copies of it.
std::string self_executable();

/// "SIGSEGV" for 11, or "signal N" for one without a name.
std::string signal_name(int signal);

}  // namespace dlsim
