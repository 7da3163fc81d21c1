#include "sim/metrics.hpp"

#include <algorithm>
#include <cmath>

namespace dlsim {

double percentile(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) return 0;
    const double pos = q / 100.0 * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

Metrics::Metrics(const Cluster& cluster, std::size_t num_jobs)
    : cluster_(cluster), types_(cluster.gpu_types.size()), busy_(types_, 0), longest_type_(num_jobs, 0),
      longest_stint_(num_jobs, -1) {}

void Metrics::on_start(Time, JobIdx, const JobInfo& job, std::span<const NodeShare>) {
    --queued_;
    ++running_;
    busy_[job.gpu_type] += job.alloc_gpus;
}

void Metrics::end_stint(Time t, JobIdx j, const JobInfo& job) {
    --running_;
    busy_[job.gpu_type] -= job.alloc_gpus;
    if (t - job.stint_start > longest_stint_[j]) {
        longest_stint_[j] = t - job.stint_start;
        longest_type_[j] = job.gpu_type;
    }
}

void Metrics::on_preempt(Time t, JobIdx j, const JobInfo& job) {
    end_stint(t, j, job);
    ++queued_;
}

void Metrics::on_finish(Time t, JobIdx j, const JobInfo& job) { end_stint(t, j, job); }

void Metrics::on_instant_end(Time t) {
    const std::size_t width = types_ + 2;
    if (!log_time_.empty()) {
        const int* last = log_values_.data() + log_values_.size() - width;
        bool same = last[types_] == queued_ && last[types_ + 1] == running_;
        for (std::size_t k = 0; same && k < types_; ++k) same = last[k] == busy_[k];
        if (same) return;
    }
    log_time_.push_back(t);
    log_values_.insert(log_values_.end(), busy_.begin(), busy_.end());
    log_values_.push_back(queued_);
    log_values_.push_back(running_);
}

std::pair<Time, Time> Metrics::window(std::span<const JobInfo> jobs) const {
    Time first = kNever, last = -1;
    for (const auto& j : jobs) {
        first = std::min(first, j.submit);
        if (j.state == JobState::Finished) last = std::max(last, j.finish);
    }
    return {first, last};
}

Summary Metrics::summarize(std::span<const JobInfo> jobs, std::uint64_t events) const {
    Summary s;
    s.jobs = jobs.size();
    s.events = events;
    std::vector<double> jct;
    jct.reserve(jobs.size());
    double sum_jct = 0, sum_delay = 0;
    for (const auto& j : jobs) {
        s.preemptions += j.preemptions;
        if (j.state == JobState::Rejected) ++s.rejected;
        if (j.state != JobState::Finished) continue;
        ++s.finished;
        jct.push_back(to_seconds(j.finish - j.submit));
        sum_jct += jct.back();
        sum_delay += to_seconds(j.first_start - j.submit);
    }
    s.unfinished = s.jobs - s.finished - s.rejected;
    if (!jct.empty()) {
        std::sort(jct.begin(), jct.end());
        s.avg_jct = sum_jct / static_cast<double>(jct.size());
        s.avg_queueing_delay = sum_delay / static_cast<double>(jct.size());
        s.p50_jct = percentile(jct, 50);
        s.p95_jct = percentile(jct, 95);
        s.p99_jct = percentile(jct, 99);
    }
    const auto [first, last] = window(jobs);
    // Busy GPU-seconds per type, integrated over the change log.
    std::vector<double> busy_seconds(types_, 0.0);
    const std::size_t width = types_ + 2;
    for (std::size_t k = 0; k < log_time_.size(); ++k) {
        const Time end = k + 1 < log_time_.size() ? log_time_[k + 1] : log_time_[k];
        for (std::size_t t = 0; t < types_; ++t)
            busy_seconds[t] += log_values_[k * width + t] * to_seconds(end - log_time_[k]);
    }
    if (last > first) {
        s.makespan = to_seconds(last - first);
        double total = 0;
        for (std::size_t t = 0; t < types_; ++t) {
            total += busy_seconds[t];
            const int gpus = cluster_.gpus_of_type(static_cast<GpuTypeIdx>(t));
            s.gpu_utilization_by_type.emplace_back(cluster_.gpu_types[t].name,
                                                   gpus > 0 ? busy_seconds[t] / (gpus * s.makespan) : 0.0);
        }
        s.gpu_utilization = total / (static_cast<double>(cluster_.num_gpus()) * s.makespan);
    } else {
        for (std::size_t t = 0; t < types_; ++t) s.gpu_utilization_by_type.emplace_back(cluster_.gpu_types[t].name, 0.0);
    }
    return s;
}

Timeseries Metrics::timeseries(std::span<const JobInfo> jobs, std::size_t points) const {
    Timeseries ts;
    ts.busy.resize(types_);
    const auto [first, last] = window(jobs);
    if (last <= first || points == 0 || log_time_.empty()) return ts;
    const std::size_t buckets = static_cast<std::size_t>(std::min<Time>(static_cast<Time>(points), last - first));
    const double span = static_cast<double>(last - first);
    const double width_us = span / static_cast<double>(buckets);
    const std::size_t width = types_ + 2;
    std::vector<double> acc(buckets * width, 0.0);  // integrals in value·µs
    for (std::size_t k = 0; k < log_time_.size(); ++k) {
        // Segment k, clipped to the window, spread over the buckets it overlaps.
        double a = static_cast<double>(std::max(log_time_[k], first) - first);
        const double b = static_cast<double>(std::min(k + 1 < log_time_.size() ? log_time_[k + 1] : last, last) - first);
        std::size_t bucket = std::min(buckets - 1, static_cast<std::size_t>(a / width_us));
        while (a < b) {
            const double bucket_end = bucket + 1 == buckets ? span : static_cast<double>(bucket + 1) * width_us;
            if (bucket_end <= a) { ++bucket; continue; }  // a rounding step onto the boundary
            const double piece = std::min(b, bucket_end) - a;
            for (std::size_t v = 0; v < width; ++v) acc[bucket * width + v] += log_values_[k * width + v] * piece;
            a += piece;
        }
    }
    for (std::size_t i = 0; i < buckets; ++i) {
        const double start = static_cast<double>(i) * width_us;
        const double len = (i + 1 == buckets ? span : static_cast<double>(i + 1) * width_us) - start;
        ts.time.push_back(to_seconds(first) + start / kMicrosPerSecond);
        for (std::size_t t = 0; t < types_; ++t) ts.busy[t].push_back(acc[i * width + t] / len);
        ts.queued.push_back(acc[i * width + types_] / len);
        ts.running.push_back(acc[i * width + types_ + 1] / len);
    }
    return ts;
}

}  // namespace dlsim
