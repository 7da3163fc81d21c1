#pragma once
// Simulated time: an integer count of microseconds inside the engine, seconds in every file.
#include <cmath>
#include <cstdint>
#include <limits>

namespace dlsim {

/// Microseconds since the trace start.
using Time = std::int64_t;

inline constexpr Time kNever = std::numeric_limits<Time>::max();
inline constexpr double kMicrosPerSecond = 1e6;
/// The largest submit time and the longest run time (s) an input may give: their sum, plus every
/// later delay, stays far inside Time (about 9.2e12 s). Readers and trace transforms check against it.
inline constexpr double kMaxInputSeconds = 1e12;

/// Seconds (from a file) to engine time, rounded to the nearest microsecond.
inline Time to_time(double seconds) { return static_cast<Time>(std::llround(seconds * kMicrosPerSecond)); }

/// Engine time to seconds, for output.
inline double to_seconds(Time t) { return static_cast<double>(t) / kMicrosPerSecond; }

}  // namespace dlsim
