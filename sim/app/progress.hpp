#pragma once
// Progress of a long task on stderr: a bar redrawn in place when stderr is a terminal, otherwise a
// plain line now and then (log files and CI get readable lines, not carriage returns).
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace dlsim {

class Progress {
public:
    /// `total` units of work, `already_done` of them done before this process started (a resumed
    /// sweep): they count in the bar but not in the rate behind the ETA. Nothing is shown for the
    /// first `quiet_seconds`, so short tasks stay silent.
    Progress(std::string label, std::uint64_t total, std::uint64_t already_done = 0, double quiet_seconds = 0);

    /// Cheap to call often: draws at most five times a second on a terminal, and a line every
    /// `line_interval` seconds otherwise.
    void update(std::uint64_t done, std::string_view detail = {});
    /// Clears the bar; prints a last line if anything was shown.
    void finish(std::uint64_t done, std::string_view detail = {});

    static bool stderr_is_terminal();

private:
    using Clock = std::chrono::steady_clock;
    void draw(std::uint64_t done, std::string_view detail, bool last);

    std::string label_;
    std::uint64_t total_, already_done_;
    bool terminal_;
    double quiet_seconds_, line_interval_ = 10;
    Clock::time_point start_, last_draw_;
    bool shown_ = false;
};

}  // namespace dlsim
