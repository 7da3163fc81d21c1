#include "sim/app/progress.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace dlsim {

namespace {

std::string clock_text(double seconds) {
    const auto s = static_cast<long long>(seconds + 0.5);
    return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
}

}  // namespace

bool Progress::stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

Progress::Progress(std::string label, std::uint64_t total, std::uint64_t already_done, double quiet_seconds)
    : label_(std::move(label)), total_(total), already_done_(already_done), terminal_(stderr_is_terminal()),
      quiet_seconds_(quiet_seconds), start_(Clock::now()), last_draw_(start_) {}

void Progress::update(std::uint64_t done, std::string_view detail) {
    const auto now = Clock::now();
    const double since_start = std::chrono::duration<double>(now - start_).count();
    const double since_draw = std::chrono::duration<double>(now - last_draw_).count();
    if (since_start < quiet_seconds_) return;
    if (shown_ && since_draw < (terminal_ ? 0.2 : line_interval_)) return;
    if (!terminal_ && !shown_ && since_start < line_interval_) return;
    last_draw_ = now;
    draw(done, detail, false);
}

void Progress::finish(std::uint64_t done, std::string_view detail) {
    if (!shown_) return;
    draw(done, detail, true);
}

void Progress::draw(std::uint64_t done, std::string_view detail, bool last) {
    shown_ = true;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const double fraction = total_ > 0 ? static_cast<double>(std::min(done, total_)) / static_cast<double>(total_) : 1;
    std::string eta = "ETA --";
    if (last) {
        eta = "took " + clock_text(elapsed);
    } else if (done > already_done_ && done <= total_) {
        const double rate = static_cast<double>(done - already_done_) / elapsed;
        eta = "ETA " + clock_text(static_cast<double>(total_ - done) / rate);
    }
    const std::string counts = fmt::format("{}/{} ({:.0f}%){}{}  {}", done, total_, 100 * fraction,
                                           detail.empty() ? "" : "  ", detail, eta);
    if (terminal_) {
        constexpr int kWidth = 28;
        const int filled = static_cast<int>(fraction * kWidth);
        fmt::print(stderr, "\r{} [{}{}] {}\x1b[K{}", label_, std::string(filled, '#'), std::string(kWidth - filled, '.'),
                   counts, last ? "\n" : "");
    } else {
        fmt::print(stderr, "{}: {}\n", label_, counts);
    }
    std::fflush(stderr);
}

}  // namespace dlsim
