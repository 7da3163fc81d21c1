#include "sim/app/worker_pool.hpp"

#include "models/base/input_error.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>

namespace dlsim {

std::string self_executable() {
    std::string path(PATH_MAX, '\0');
    const ssize_t n = ::readlink("/proc/self/exe", path.data(), path.size());
    if (n <= 0) throw InternalError("cannot read /proc/self/exe to start worker processes");
    path.resize(static_cast<std::size_t>(n));
    return path;
}

std::string signal_name(int signal) {
    const char* abbrev = ::sigabbrev_np(signal);
    return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", signal);
}

WorkerPool::WorkerPool(unsigned slots, double timeout_seconds)
    : slots_(std::max(1u, slots)), timeout_seconds_(timeout_seconds) {
    workers_.reserve(slots_);
}

WorkerPool::~WorkerPool() {
    for (Worker& w : workers_) {
        if (!w.reaped) {
            kill_worker(w);
            ::waitpid(w.pid, nullptr, 0);
        }
        if (w.fd >= 0) ::close(w.fd);
    }
}

void WorkerPool::kill_worker(Worker& w) {
    ::kill(-w.pid, SIGKILL);  // its process group: whatever it started too
    ::kill(w.pid, SIGKILL);
}

void WorkerPool::start(std::size_t tag, const std::vector<std::string>& argv) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    int pipe_fds[2];
    // Close-on-exec: no child inherits another child's pipe, so each pipe ends when its child does.
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw InternalError(fmt::format("pipe: {}", ::strerror(errno)));
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(pipe_fds[0]);
        ::close(pipe_fds[1]);
        throw InternalError(fmt::format("fork: {}", ::strerror(errno)));
    }
    if (pid == 0) {  // the child: async-signal-safe calls only, then exec
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);  // the parent died before PDEATHSIG was set
        const int null_fd = ::open("/dev/null", O_RDONLY);
        if (null_fd < 0 || ::dup2(null_fd, 0) < 0 || ::dup2(pipe_fds[1], 1) < 0 || ::dup2(pipe_fds[1], 2) < 0)
            ::_exit(127);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    ::setpgid(pid, pid);  // also here, so a timeout cannot find the group not yet made
    ::close(pipe_fds[1]);
    ::fcntl(pipe_fds[0], F_SETFL, ::fcntl(pipe_fds[0], F_GETFL) | O_NONBLOCK);
    Worker w;
    w.tag = tag;
    w.pid = pid;
    w.fd = pipe_fds[0];
    w.start = Clock::now();
    workers_.push_back(std::move(w));
}

void WorkerPool::drain(Worker& w) {
    char buf[8192];
    while (w.fd >= 0) {
        const ssize_t n = ::read(w.fd, buf, sizeof buf);
        if (n > 0) {
            w.output.append(buf, static_cast<std::size_t>(n));
            if (w.output.size() > 2 * kOutputTail) w.output.erase(0, w.output.size() - kOutputTail);
        } else if (n == 0) {
            ::close(w.fd);
            w.fd = -1;
        } else if (errno != EINTR) {
            return;  // EAGAIN: nothing more for now
        }
    }
}

std::pair<std::size_t, WorkerEnd> WorkerPool::wait_any() {
    if (workers_.empty()) throw InternalError("WorkerPool::wait_any with no worker running");
    for (;;) {
        // Reap, enforce time limits, and hand back the first child that has ended.
        const auto now = Clock::now();
        for (std::size_t i = 0; i < workers_.size(); ++i) {
            Worker& w = workers_[i];
            if (!w.reaped) {
                int status = 0;
                const pid_t r = ::waitpid(w.pid, &status, WNOHANG);
                if (r == w.pid) {
                    w.reaped = true;
                    w.status = status;
                } else if (timeout_seconds_ > 0 && !w.timed_out &&
                           std::chrono::duration<double>(now - w.start).count() >= timeout_seconds_) {
                    w.timed_out = true;
                    kill_worker(w);
                }
            }
            if (!w.reaped) continue;
            drain(w);  // what it wrote last; a grandchild holding the pipe does not keep us waiting
            if (w.fd >= 0) {
                ::close(w.fd);
                w.fd = -1;
            }
            WorkerEnd end;
            end.seconds = std::chrono::duration<double>(now - w.start).count();
            if (w.timed_out) {
                end.how = WorkerEnd::How::TimedOut;
            } else if (WIFSIGNALED(w.status)) {
                end.how = WorkerEnd::How::Signaled;
                end.code = WTERMSIG(w.status);
            } else {
                end.code = WEXITSTATUS(w.status);
            }
            if (w.output.size() > kOutputTail) w.output.erase(0, w.output.size() - kOutputTail);
            end.output = std::move(w.output);
            const std::size_t tag = w.tag;
            workers_.erase(workers_.begin() + static_cast<std::ptrdiff_t>(i));
            return {tag, std::move(end)};
        }
        // Sleep until output arrives, a pipe closes (the child is exiting), or the next time limit.
        std::vector<pollfd> fds;
        bool exiting = false;
        double wait = 0.1;
        for (const Worker& w : workers_) {
            if (w.fd >= 0)
                fds.push_back({w.fd, POLLIN, 0});
            else
                exiting = true;  // its pipe closed: it is about to be reapable
            if (timeout_seconds_ > 0 && !w.timed_out)
                wait = std::min(wait, timeout_seconds_ - std::chrono::duration<double>(now - w.start).count());
        }
        if (exiting) wait = std::min(wait, 0.002);
        const int ms = std::max(0, static_cast<int>(wait * 1000 + 0.5));
        const int ready = ::poll(fds.data(), fds.size(), ms);
        if (ready < 0 && errno != EINTR) throw InternalError(fmt::format("poll: {}", ::strerror(errno)));
        for (Worker& w : workers_)
            if (w.fd >= 0) drain(w);
    }
}

}  // namespace dlsim
