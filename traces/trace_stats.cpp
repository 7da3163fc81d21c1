#include "traces/trace_stats.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace dlsim {

namespace {

/// Linear interpolation between order statistics (numpy's default), as the run summary uses.
double quantile(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) return 0;
    const double pos = q * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

TraceStats compute_stats(const Trace& trace) {
    TraceStats s;
    s.jobs = trace.jobs.size();
    std::vector<double> durations;
    durations.reserve(trace.jobs.size());
    double first = 0, last = 0, sum = 0;
    for (std::size_t i = 0; i < trace.jobs.size(); ++i) {
        const JobRecord& j = trace.jobs[i];
        first = i == 0 ? j.submit_time : std::min(first, j.submit_time);
        last = i == 0 ? j.submit_time : std::max(last, j.submit_time);
        s.gpu_hours += j.num_gpus * j.duration / 3600.0;
        ++s.gpu_histogram[j.num_gpus];
        durations.push_back(j.duration);
        sum += j.duration;
        const double clock = trace.time_origin + j.submit_time;
        const auto hour = static_cast<long long>(std::floor((trace.wall_clock ? clock : j.submit_time) / 3600.0));
        ++s.arrivals_by_hour[static_cast<std::size_t>(((hour % 24) + 24) % 24)];
        ++s.status[trace.strings[j.status]];
        ++s.by_vc[trace.strings[j.vc]];
    }
    s.span = last - first;
    s.arrival_rate = s.span > 0 ? static_cast<double>(s.jobs) / (s.span / 3600.0) : 0;
    std::sort(durations.begin(), durations.end());
    if (!durations.empty()) {
        s.duration_mean = sum / static_cast<double>(durations.size());
        s.duration_p50 = quantile(durations, 0.50);
        s.duration_p90 = quantile(durations, 0.90);
        s.duration_p99 = quantile(durations, 0.99);
        s.duration_max = durations.back();
    }
    return s;
}

std::string stats_table(const Trace& trace, const TraceStats& s) {
    std::string out = fmt::format("trace        {} (format {})\n", trace.path, trace.format);
    const ReadReport& r = trace.report;
    out += fmt::format("rows         {} read, {} kept\n", r.rows_read, r.kept);
    for (const auto& [why, n] : r.dropped) out += fmt::format("  dropped    {:>9}  {}\n", n, why);
    for (const auto& [why, n] : r.repaired) out += fmt::format("  repaired   {:>9}  {}\n", n, why);
    for (const auto& a : r.assumptions) out += fmt::format("  assumed    {}\n", a);
    out += fmt::format("jobs         {}\n", s.jobs);
    out += fmt::format("span         {:.1f} h ({:.2f} days), {:.2f} jobs/hour\n", s.span / 3600, s.span / 86400,
                       s.arrival_rate);
    out += fmt::format("GPU-hours    {:.1f}\n", s.gpu_hours);
    out += "GPUs/job     ";
    for (const auto& [g, n] : s.gpu_histogram)
        out += fmt::format("{}:{} ({:.1f}%)  ", g, n, 100.0 * static_cast<double>(n) / static_cast<double>(s.jobs));
    out += "\n";
    out += fmt::format("duration (s) mean {:.0f}  p50 {:.0f}  p90 {:.0f}  p99 {:.0f}  max {:.0f}\n", s.duration_mean,
                       s.duration_p50, s.duration_p90, s.duration_p99, s.duration_max);
    out += fmt::format("arrivals by hour of day ({}):\n ", trace.wall_clock ? "UTC" : "hours since the trace start, mod 24");
    for (std::size_t h = 0; h < 24; ++h) out += fmt::format(" {:02}h:{}", h, s.arrivals_by_hour[h]);
    out += "\nstatus       ";
    for (const auto& [st, n] : s.status) out += fmt::format("{}:{}  ", st.empty() ? "(none)" : st, n);
    out += fmt::format("\nVCs          {}", s.by_vc.size());
    std::vector<std::pair<std::size_t, std::string>> top;
    for (const auto& [vc, n] : s.by_vc) top.emplace_back(n, vc);
    std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    if (top.size() > 1 || (top.size() == 1 && !top[0].second.empty())) {
        out += " (most jobs: ";
        for (std::size_t i = 0; i < top.size() && i < 5; ++i)
            out += fmt::format("{}{}:{}", i ? ", " : "", top[i].second.empty() ? "(none)" : top[i].second, top[i].first);
        out += ")";
    }
    return out + "\n";
}

std::string stats_json(const Trace& trace, const TraceStats& s) {
    nlohmann::ordered_json j;
    j["schema"] = "dlsim.trace-stats/1";
    j["path"] = trace.path;
    j["format"] = trace.format;
    j["report"] = {{"rows_read", trace.report.rows_read}, {"kept", trace.report.kept},
                   {"dropped", trace.report.dropped},     {"repaired", trace.report.repaired},
                   {"assumptions", trace.report.assumptions}};
    j["jobs"] = s.jobs;
    j["span"] = s.span;
    j["arrival_rate_per_hour"] = s.arrival_rate;
    j["gpu_hours"] = s.gpu_hours;
    nlohmann::ordered_json hist = nlohmann::ordered_json::object();
    for (const auto& [g, n] : s.gpu_histogram) hist[std::to_string(g)] = n;
    j["gpu_histogram"] = hist;
    j["duration"] = {{"mean", s.duration_mean}, {"p50", s.duration_p50}, {"p90", s.duration_p90},
                     {"p99", s.duration_p99},   {"max", s.duration_max}};
    j["arrivals_by_hour"] = s.arrivals_by_hour;
    j["hour_clock"] = trace.wall_clock ? "UTC" : "since trace start";
    j["status"] = s.status;
    j["by_vc"] = s.by_vc;
    return j.dump(1) + "\n";
}

}  // namespace dlsim
