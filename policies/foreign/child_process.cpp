#include "policies/foreign/child_process.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace dlsim {

std::vector<std::string> split_command(std::string_view s) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == ' ' || c == '\t' || c == '\n') {
            if (in_word) words.push_back(std::move(word));
            word.clear();
            in_word = false;
            continue;
        }
        in_word = true;
        if (c == '\\') {
            if (++i == s.size()) throw std::invalid_argument("a trailing backslash");
            word += s[i];
        } else if (c == '\'') {
            const std::size_t end = s.find('\'', i + 1);
            if (end == std::string_view::npos) throw std::invalid_argument("an unterminated ' quote");
            word.append(s.substr(i + 1, end - i - 1));
            i = end;
        } else if (c == '"') {
            for (++i;; ++i) {
                if (i == s.size()) throw std::invalid_argument("an unterminated \" quote");
                if (s[i] == '"') break;
                if (s[i] == '\\' && i + 1 < s.size() && std::strchr("\"\\$`", s[i + 1]) != nullptr) ++i;
                word += s[i];
            }
        } else {
            word += c;
        }
    }
    if (in_word) words.push_back(std::move(word));
    return words;
}

namespace {

std::string describe_status(int status) {
    if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        const char* name = sigdescr_np(WTERMSIG(status));  // strsignal is not thread-safe (sweeps run threads)
        return fmt::format("was killed by signal {} ({})", WTERMSIG(status), name ? name : "unknown");
    }
    return fmt::format("ended with wait status {}", status);
}

/// Milliseconds left until `deadline` for poll(), at least 0, rounded up (never a busy loop).
int millis_left(ChildProcess::Clock::time_point deadline) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - ChildProcess::Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

/// Waits until fd is ready for `events` or the deadline passes (false).
bool wait_ready(int fd, short events, ChildProcess::Clock::time_point deadline) {
    for (;;) {
        pollfd p{fd, events, 0};
        const int r = ::poll(&p, 1, millis_left(deadline));
        if (r > 0) return true;
        if (r == 0) return false;
        if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "poll");
    }
}

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv) {
    if (argv.empty()) throw std::invalid_argument("an empty command");
    // Every descriptor close-on-exec: a child started at the same time by another thread inherits none.
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
    if (::pipe2(out, O_CLOEXEC) != 0) {
        const int e = errno;
        ::close(in[0]);
        ::close(in[1]);
        throw std::system_error(e, std::generic_category(), "pipe");
    }
    // dup2 onto the same number keeps close-on-exec (glibc 2.36): when dlsim runs with stdin or stdout
    // closed, a pipe can get descriptor 0 or 1, so every end is moved to 3 or above first.
    for (int* fd : {&in[0], &in[1], &out[0], &out[1]})
        if (*fd < 3) {
            const int moved = ::fcntl(*fd, F_DUPFD_CLOEXEC, 3);
            if (moved < 0) {
                const int e = errno;
                for (int x : {in[0], in[1], out[0], out[1]}) ::close(x);
                throw std::system_error(e, std::generic_category(), "fcntl");
            }
            ::close(*fd);
            *fd = moved;
        }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);  // dup2 clears close-on-exec on 0 and 1
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, pipe_only;
    sigemptyset(&none);
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    posix_spawnattr_setsigmask(&attr, &none);          // the child starts with no signal blocked
    posix_spawnattr_setsigdefault(&attr, &pipe_only);  // and SIGPIPE at its default, even if dlsim ignores it
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int err = ::posix_spawnp(&pid_, args[0], &actions, &attr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(in[0]);
    ::close(out[1]);
    to_child_ = in[1];
    from_child_ = out[0];
    if (err != 0) {
        pid_ = -1;
        close_fd(to_child_);
        close_fd(from_child_);
        throw std::system_error(err, std::generic_category());
    }
    // Non-blocking ends: every wait goes through poll() with the deadline.
    ::fcntl(to_child_, F_SETFL, ::fcntl(to_child_, F_GETFL) | O_NONBLOCK);
    ::fcntl(from_child_, F_SETFL, ::fcntl(from_child_, F_GETFL) | O_NONBLOCK);
    share_cpu();
}

// dlsim and the child hand the turn back and forth twice per policy call, and neither works while the other
// does. On two CPUs each hand-over wakes an idle core: on an otherwise idle 2-core machine here a call took
// 156 µs instead of 27 µs on one CPU (tests/bench/bench_pipe, README "Pipe protocol"). So the calling thread
// and the child share the CPU the thread runs on; the thread gets its own affinity back when the child ends.
// (A sweep's worker threads each pin their own child to their own CPU.)
void ChildProcess::share_cpu() {
    cpu_set_t mine;
    CPU_ZERO(&mine);
    if (::pthread_getaffinity_np(::pthread_self(), sizeof mine, &mine) != 0 || CPU_COUNT(&mine) < 2) return;
    const int cpu = ::sched_getcpu();
    if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &mine)) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (::pthread_setaffinity_np(::pthread_self(), sizeof one, &one) != 0) return;
    ::sched_setaffinity(pid_, sizeof one, &one);  // if this fails the child keeps running anywhere
    restore_affinity_ = true;
    saved_affinity_ = mine;
}

ChildProcess::~ChildProcess() {
    if (pid_ > 0) kill_now();
    close_fd(to_child_);
    close_fd(from_child_);
    if (restore_affinity_) ::pthread_setaffinity_np(::pthread_self(), sizeof saved_affinity_, &saved_affinity_);
}

void ChildProcess::close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

ChildProcess::Io ChildProcess::write_all(std::string_view data, Clock::time_point deadline) {
    if (to_child_ < 0) return Io::Closed;
    // A write to a pipe nobody reads raises SIGPIPE, which would end dlsim: block it for this thread and
    // take back the one this write raised, so the caller sees EPIPE instead.
    sigset_t pipe_only, old, pending;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
    sigpending(&pending);
    const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
    Io result = Io::Ok;
    while (!data.empty()) {
        const ssize_t n = ::write(to_child_, data.data(), data.size());
        if (n >= 0) {
            data.remove_prefix(static_cast<std::size_t>(n));
            continue;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (!wait_ready(to_child_, POLLOUT, deadline)) {
                result = Io::TimedOut;
                break;
            }
            continue;
        }
        if (errno == EPIPE) {
            if (!was_pending) {
                const timespec zero{};
                sigtimedwait(&pipe_only, nullptr, &zero);
            }
            result = Io::Closed;
            break;
        }
        const int e = errno;
        pthread_sigmask(SIG_SETMASK, &old, nullptr);
        throw std::system_error(e, std::generic_category(), "write to the child");
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return result;
}

ChildProcess::Io ChildProcess::read_line(std::string_view& line, Clock::time_point deadline) {
    if (in_begin_ == in_.size()) {
        in_.clear();
        in_begin_ = 0;
    }
    std::size_t scanned = in_begin_;
    for (;;) {
        const std::size_t nl = in_.find('\n', scanned);
        if (nl != std::string::npos) {
            line = std::string_view(in_).substr(in_begin_, nl - in_begin_);
            in_begin_ = nl + 1;
            return Io::Ok;
        }
        scanned = in_.size();
        if (in_begin_ > 0) {  // keep the unread bytes at the front (the buffer only grows to the longest line)
            in_.erase(0, in_begin_);
            scanned -= in_begin_;
            in_begin_ = 0;
        }
        if (from_child_ < 0) return Io::Closed;
        if (in_.size() > kMaxLine) return Io::TooLong;
        // Wait first: the answer is rarely there yet, and a read that finds nothing costs a system call.
        if (!wait_ready(from_child_, POLLIN, deadline)) return Io::TimedOut;
        const std::size_t old = in_.size();
        constexpr std::size_t kChunk = 1 << 16;
        in_.resize(old + kChunk);
        const ssize_t n = ::read(from_child_, in_.data() + old, kChunk);
        in_.resize(old + (n > 0 ? static_cast<std::size_t>(n) : 0));
        if (n > 0) continue;
        if (n == 0) return Io::Closed;
        if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
        throw std::system_error(errno, std::generic_category(), "read from the child");
    }
}

bool ChildProcess::reap(bool block) {
    if (pid_ <= 0) return true;
    int status = 0;
    for (;;) {
        const pid_t r = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
        if (r == pid_) {
            exit_ = describe_status(status);
            pid_ = -1;
            return true;
        }
        if (r == 0) return false;
        if (errno == EINTR) continue;
        pid_ = -1;  // not our child any more (ECHILD): nothing to reap
        exit_ = "ended (its status is unknown)";
        return true;
    }
}

std::string ChildProcess::finish(std::chrono::milliseconds grace) {
    close_fd(to_child_);
    const auto deadline = Clock::now() + grace;
    // A child that exits at once is reaped within a millisecond; a slow one costs at most `grace`.
    while (!reap(false)) {
        if (Clock::now() >= deadline) return kill_now();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    close_fd(from_child_);
    return exit_;
}

std::string ChildProcess::kill_now() {
    if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
        reap(true);
    }
    close_fd(to_child_);
    close_fd(from_child_);
    return exit_;
}

}  // namespace dlsim
