#include "sim/metrics.hpp"

#include "models/base/input_error.hpp"
#include "models/base/parse.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

namespace dlsim {

double percentile(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) return kNoFigure;
    const double pos = q / 100.0 * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

namespace {

/// Splits "A:B" at the colon; a missing colon is an InputError naming the flag.
std::pair<std::string, std::string> split_range(const std::string& text, const char* flag, const char* what) {
    const auto colon = text.find(':');
    if (colon == std::string::npos) throw InputError(fmt::format("{}: expected {}, got '{}'", flag, what, text));
    return {text.substr(0, colon), text.substr(colon + 1)};
}

}  // namespace

MeasureWindow parse_measure_jobs(const std::string& text) {
    constexpr const char* kWhat = "A:B, arrival indices with 0 <= A < B (B may be empty: to the last job)";
    const auto [a, b] = split_range(text, "--measure-jobs", kWhat);
    const auto first = parse_integer(a);
    const auto end = b.empty() ? std::optional<long long>(-1) : parse_integer(b);
    if (!first || !end || *first < 0 || (*end >= 0 && *end <= *first))
        throw InputError(fmt::format("--measure-jobs: expected {}, got '{}'", kWhat, text));
    MeasureWindow w;
    w.by = MeasureWindow::By::Jobs;
    w.first_job = static_cast<std::uint64_t>(*first);
    w.end_job = *end < 0 ? UINT64_MAX : static_cast<std::uint64_t>(*end);
    return w;
}

MeasureWindow parse_measure_time(const std::string& text) {
    constexpr const char* kWhat = "T0:T1, seconds of simulated time with 0 <= T0 < T1 (T1 may be empty: open)";
    const auto [a, b] = split_range(text, "--measure-time", kWhat);
    const auto from = parse_double(a);
    const auto to = b.empty() ? std::optional<double>(-1) : parse_double(b);
    if (!from || !to || !(*from >= 0) || !std::isfinite(*from) || (*to >= 0 && !(*to > *from)) || !std::isfinite(*to))
        throw InputError(fmt::format("--measure-time: expected {}, got '{}'", kWhat, text));
    MeasureWindow w;
    w.by = MeasureWindow::By::SubmitTime;
    w.from = *from;
    w.to = *to;
    return w;
}

Metrics::Metrics(const Cluster& cluster, std::size_t num_jobs, Time origin, std::size_t points)
    : cluster_(cluster),
      types_(cluster.gpu_types.size()),
      width_(types_ + 2 + kWaitReasons),
      origin_(origin),
      last_change_(origin),
      busy_(types_, 0),
      busy_us_(types_, 0),
      points_(points),
      buckets_(points * width_, 0.0),
      longest_type_(num_jobs, 0),
      longest_stint_(num_jobs, -1),
      lifetime_us_(num_jobs, 0) {}

void Metrics::advance(Time t) {
    if (t <= last_change_) return;
    in_system_us_ += static_cast<JobMicros>(queued_ + running_) * (t - last_change_);
    for (std::size_t k = 0; k < types_; ++k) busy_us_[k] += static_cast<std::int64_t>(busy_[k]) * (t - last_change_);
    if (points_ == 0) {
        last_change_ = t;
        return;
    }
    // Widen the buckets until [origin, t) fits: merge neighbours pairwise, double the width.
    while (t - origin_ > bucket_us_ * static_cast<Time>(points_)) {
        for (std::size_t i = 0; i < points_; ++i)
            for (std::size_t v = 0; v < width_; ++v) {
                const std::size_t a = 2 * i, b = 2 * i + 1;
                double sum = a < points_ ? buckets_[a * width_ + v] : 0.0;
                if (b < points_) sum += buckets_[b * width_ + v];
                buckets_[i * width_ + v] = i < (points_ + 1) / 2 ? sum : 0.0;
            }
        bucket_us_ *= 2;
    }
    // Spread [last_change_, t) over the buckets it overlaps.
    Time a = last_change_;
    while (a < t) {
        const auto i = static_cast<std::size_t>((a - origin_) / bucket_us_);
        const Time end = std::min(t, origin_ + static_cast<Time>(i + 1) * bucket_us_);
        const double len = static_cast<double>(end - a);
        double* bucket = &buckets_[i * width_];
        for (std::size_t k = 0; k < types_; ++k) bucket[k] += busy_[k] * len;
        bucket[types_] += queued_ * len;
        bucket[types_ + 1] += running_ * len;
        for (std::uint32_t m = waiting_mask_; m != 0; m &= m - 1) {  // only the reasons some job waits for
            const auto r = static_cast<std::size_t>(std::countr_zero(m));
            bucket[types_ + 2 + r] += static_cast<double>(waiting_[r]) * len;
        }
        a = end;
    }
    last_change_ = t;
}

void Metrics::on_arrival(Time t, JobIdx j, const JobInfo&) {
    advance(t);
    ++queued_;
    lifetime_us_[j] = in_system_us_;
}

void Metrics::on_wait(Time t, JobIdx, const JobInfo&, WaitReason from, WaitReason to, JobIdx, bool) {
    if (from == to) return;  // only the job it names changed
    advance(t);
    if (from != WaitReason::None) count_waiting(from, -1);
    if (to != WaitReason::None) count_waiting(to, 1);
}

void Metrics::count_waiting(WaitReason r, std::int64_t change) {
    const auto i = static_cast<std::size_t>(r);
    waiting_[i] += change;
    const std::uint32_t bit = 1u << i;
    waiting_mask_ = waiting_[i] != 0 ? waiting_mask_ | bit : waiting_mask_ & ~bit;
    reasons_seen_ |= bit;
}

void Metrics::on_wait_rest(Time t, WaitReason from, WaitReason to, JobIdx, std::uint64_t jobs) {
    if (from == to) return;  // only the job it names changed
    advance(t);
    const auto n = static_cast<std::int64_t>(jobs);
    if (from != WaitReason::None) count_waiting(from, -n);
    count_waiting(to, n);
}

void Metrics::on_start(Time t, JobIdx, const JobInfo&, const Allocation& a) {
    advance(t);
    --queued_;
    ++running_;
    if (!a.packed()) busy_[a.gpu_type] += a.num_gpus();  // a job packed onto busy GPUs adds no busy GPU
}

void Metrics::end_allocation(Time t, JobIdx j, const Allocation& a, Time since) {
    // A packed job leaves its partner on the GPUs (made whole again by the engine): they stay busy, and
    // are freed when the survivor leaves unpacked. So a GPU counts once, with one job or two.
    if (!a.packed()) busy_[a.gpu_type] -= a.num_gpus();
    if (t - since > longest_stint_[j]) {
        longest_stint_[j] = t - since;
        longest_type_[j] = a.gpu_type;
    }
}

void Metrics::on_preempt(Time t, JobIdx j, const JobInfo& job, const Allocation& released) {
    advance(t);
    end_allocation(t, j, released, job.stint_start);
    --running_;
    ++queued_;
}

void Metrics::on_finish(Time t, JobIdx j, const JobInfo& job, const Allocation& released) {
    advance(t);
    end_allocation(t, j, released, job.stint_start);
    --running_;
    lifetime_us_[j] = in_system_us_ - lifetime_us_[j];
}

std::vector<double> Metrics::finish_time_fairness(std::span<const JobInfo> jobs, const RateModel& rates,
                                                  const Cluster& cluster) const {
    std::vector<double> rho(jobs.size(), -1.0);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const JobInfo& j = jobs[i];
        if (j.state != JobState::Finished) continue;
        double best = 0;  // single-GPU rate on its fastest allowed type
        GpuTypeIdx fastest = 0;
        for (GpuTypeMask m = j.runnable; m != 0; m &= m - 1) {
            const auto t = static_cast<GpuTypeIdx>(std::countr_zero(m));
            if (const double r = rates.single(j.model, t); r > best) best = r, fastest = t;
        }
        const double alone = j.work / (best * j.num_gpus);  // s, on its own GPU count
        const double jct = to_seconds(j.finish - j.submit);
        const double lifetime = static_cast<double>(lifetime_us_[i]) / kMicrosPerSecond;  // job-seconds
        if (!(lifetime > 0 && alone > 0)) {  // finished at its submit instant (JCT 0): never slowed
            rho[i] = 0.0;
            continue;
        }
        // Its equal share of the cluster is 1/N̄ of its fastest type's GPUs, N̄ = lifetime ÷ JCT. A rigid
        // job cannot use more than its own GPUs; on fewer it time-shares them: T_id = T_alone × max(1,
        // g·N̄/W). On one GPU (W = g = 1) this is Themis's T_alone × N̄.
        const double share_gpus = cluster.gpus_of_type(fastest) * jct / lifetime;
        const double ideal = alone * std::max(1.0, j.num_gpus / share_gpus);
        rho[i] = jct / ideal;
    }
    return rho;
}

void Metrics::on_resize(Time t, JobIdx j, const JobInfo&, const Allocation& from, Time from_since, const Allocation& to,
                        Transition) {
    advance(t);
    end_allocation(t, j, from, from_since);
    if (!to.packed()) busy_[to.gpu_type] += to.num_gpus();
}

std::vector<char> measured_mask(std::span<const JobInfo> jobs, const MeasureWindow& window) {
    // By arrival index, (submit, trace order) as the engine admits them.
    std::vector<char> measured(jobs.size(), window.by == MeasureWindow::By::All);
    if (window.by == MeasureWindow::By::Jobs) {
        if (window.end_job != UINT64_MAX && window.end_job > jobs.size())
            throw InputError(fmt::format("--measure-jobs {}:{}: the trace has only {} jobs (after its filters)",
                                         window.first_job, window.end_job, jobs.size()));
        std::vector<JobIdx> order(jobs.size());
        std::iota(order.begin(), order.end(), JobIdx{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](JobIdx a, JobIdx b) { return jobs[a].submit < jobs[b].submit; });
        const std::size_t end = std::min<std::uint64_t>(window.end_job, jobs.size());
        for (std::size_t i = window.first_job; i < end; ++i) measured[order[i]] = 1;
    } else if (window.by == MeasureWindow::By::SubmitTime) {
        for (std::size_t j = 0; j < jobs.size(); ++j) {
            const double submit = to_seconds(jobs[j].submit);
            measured[j] = submit >= window.from && (window.to < 0 || submit < window.to);
        }
    }
    // A window that selects no job would report statistics over nothing (a mean JCT of 0): an input error.
    if (window.by != MeasureWindow::By::All && !jobs.empty() &&
        std::find(measured.begin(), measured.end(), 1) == measured.end()) {
        if (window.by == MeasureWindow::By::Jobs)
            throw InputError(fmt::format(
                "--measure-jobs {}:{} selects no job: the trace has only {} jobs (after its "
                "filters), arrival indices 0 to {}",
                window.first_job, window.end_job == UINT64_MAX ? std::string() : std::to_string(window.end_job),
                jobs.size(), jobs.size() - 1));
        Time first = kNever, last = -kNever;
        for (const JobInfo& j : jobs) {
            first = std::min(first, j.submit);
            last = std::max(last, j.submit);
        }
        throw InputError(
            fmt::format("--measure-time {}:{} selects no job: the trace's {} jobs are submitted from {} s "
                        "to {} s (after its filters)",
                        window.from, window.to < 0 ? std::string() : fmt::format("{}", window.to), jobs.size(),
                        to_seconds(first), to_seconds(last)));
    }
    return measured;
}

Summary Metrics::summarize(std::span<const JobInfo> jobs, std::uint64_t events, const MeasureWindow& window,
                           const SummaryOptions& options) const {
    Summary s;
    s.jobs = jobs.size();
    s.events = events;
    s.measure = window;
    // Which jobs are measured.
    const std::vector<char> measured = measured_mask(jobs, window);
    std::vector<double> jct, pending;
    jct.reserve(jobs.size());
    pending.reserve(jobs.size());
    double sum_jct = 0, sum_delay = 0, sum_pending = 0;
    WaitTotals waited_us{};
    std::array<double, kWaitReasons> waited_gpu_us{};
    Time last_finish = origin_;
    const bool fairness = options.ftf_rho.size() == jobs.size() && !jobs.empty();
    const bool labelled = options.tenants != nullptr;
    double sum_rho = 0;
    std::uint64_t rho_above_1 = 0;
    std::map<std::uint32_t, std::pair<std::uint64_t, double>> vc_jct, user_jct;  // jobs, sum of JCT
    s.wait_threshold = to_seconds(options.wait_threshold);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const JobInfo& j = jobs[i];
        s.preemptions += j.preemptions;
        s.migrations += j.migrations;
        s.restarts += j.restarts;
        s.restart_gpu_seconds += j.restart_gpu_seconds;
        s.resizes += j.resizes;
        s.resize_gpu_seconds += j.resize_gpu_seconds;
        // Both jobs of a pair count its time (only rigid jobs are packed: num_gpus is what they held).
        s.packed_gpu_seconds += to_seconds(j.packed_time) * j.num_gpus / 2;
        s.measured_jobs += measured[i];
        if (j.state == JobState::Rejected) ++s.rejected;
        if (j.state != JobState::Finished) continue;
        ++s.finished;
        last_finish = std::max(last_finish, j.finish);
        if (!measured[i]) continue;
        ++s.measured_finished;
        jct.push_back(to_seconds(j.finish - j.submit));
        sum_jct += jct.back();
        sum_delay += to_seconds(j.first_start - j.submit);
        pending.push_back(to_seconds(pending_time(j)));
        sum_pending += pending.back();
        if (!options.waited.empty())
            for (std::size_t r = 0; r < kWaitReasons; ++r) {
                waited_us[r] += options.waited[i][r];
                waited_gpu_us[r] += static_cast<double>(options.waited[i][r]) * j.num_gpus;
            }
        if (j.first_start - j.submit > options.wait_threshold) ++s.jobs_waited_over_threshold;
        if (fairness) {
            const double rho = options.ftf_rho[i];
            s.ftf_rho_max = std::max(s.ftf_rho_max, rho);
            sum_rho += rho;
            rho_above_1 += rho > 1;
        }
        if (labelled) {
            for (auto [id, by] : {std::pair{j.vc, &vc_jct}, std::pair{j.user, &user_jct}}) {
                if (id == 0) continue;  // none recorded
                auto& [n, sum] = (*by)[id];
                ++n;
                sum += jct.back();
            }
        }
    }
    s.unfinished = s.jobs - s.finished - s.rejected;
    if (fairness && !jct.empty()) {
        s.ftf_rho_mean = sum_rho / static_cast<double>(jct.size());
        s.ftf_share_above_1 = static_cast<double>(rho_above_1) / static_cast<double>(jct.size());
    } else {
        s.ftf_rho_max = s.ftf_rho_mean = s.ftf_share_above_1 = kNoFigure;
    }
    // By name, not by id order (ids follow first appearance in the trace).
    auto groups = [&](const std::map<std::uint32_t, std::pair<std::uint64_t, double>>& by_id,
                      const std::vector<std::string>& names) {
        std::vector<GroupJct> out;
        for (const auto& [id, acc] : by_id)
            out.push_back({names[id], acc.first, acc.second / static_cast<double>(acc.first)});
        std::sort(out.begin(), out.end(), [](const GroupJct& a, const GroupJct& b) { return a.name < b.name; });
        return out;
    };
    if (labelled) {
        s.by_vc = groups(vc_jct, options.tenants->vc_names);
        s.by_user = groups(user_jct, options.tenants->user_names);
    }
    // Over no measured finished job, each of these is kNoFigure (percentile of nothing, 0 / 0).
    const auto n = static_cast<double>(jct.size());
    std::sort(jct.begin(), jct.end());
    std::sort(pending.begin(), pending.end());
    s.avg_jct = jct.empty() ? kNoFigure : sum_jct / n;
    s.avg_queueing_delay = jct.empty() ? kNoFigure : sum_delay / n;
    s.avg_pending_time = jct.empty() ? kNoFigure : sum_pending / n;
    s.p50_jct = percentile(jct, 50);
    s.p95_jct = percentile(jct, 95);
    s.p99_jct = percentile(jct, 99);
    s.p95_pending_time = percentile(pending, 95);
    for (std::size_t r = 0; r < kWaitReasons; ++r)
        if (waited_us[r] > 0)
            s.pending_reasons.push_back({static_cast<WaitReason>(r), to_seconds(waited_us[r]) / 3600,
                                         waited_gpu_us[r] / kMicrosPerSecond / 3600});
    // No job finished: no makespan, and no time to measure utilisation over.
    s.makespan = s.finished > 0 ? to_seconds(last_finish - origin_) : kNoFigure;
    const bool timed = s.makespan > 0;
    double total = 0;
    for (std::size_t t = 0; t < types_; ++t) {
        const double busy = to_seconds(busy_us_[t]);
        total += busy;
        s.gpu_hours_by_type.emplace_back(cluster_.gpu_types[t].name, busy / 3600.0);
        const int gpus = cluster_.gpus_of_type(static_cast<GpuTypeIdx>(t));
        s.gpu_utilization_by_type.emplace_back(cluster_.gpu_types[t].name,
                                               gpus > 0 && timed ? busy / (gpus * s.makespan) : kNoFigure);
    }
    s.gpu_utilization =
        timed && cluster_.num_gpus() > 0 ? total / (static_cast<double>(cluster_.num_gpus()) * s.makespan) : kNoFigure;
    return s;
}

Timeseries Metrics::timeseries() const {
    Timeseries ts;
    ts.busy.resize(types_);
    // Every change after the last finish is integrated too, but the last change *is* the last finish:
    // after it nothing runs or waits (rejections do not count).
    if (points_ == 0 || last_change_ <= origin_) return ts;
    const auto n = static_cast<std::size_t>((last_change_ - origin_ + bucket_us_ - 1) / bucket_us_);
    for (std::size_t i = 0; i < n; ++i) {
        const Time start = origin_ + static_cast<Time>(i) * bucket_us_;
        const double len = static_cast<double>(std::min(last_change_, start + bucket_us_) - start);
        ts.time.push_back(to_seconds(start));
        for (std::size_t t = 0; t < types_; ++t) ts.busy[t].push_back(buckets_[i * width_ + t] / len);
        ts.queued.push_back(buckets_[i * width_ + types_] / len);
        ts.running.push_back(buckets_[i * width_ + types_ + 1] / len);
    }
    for (std::size_t r = 0; r < kWaitReasons; ++r) {
        if (!((reasons_seen_ >> r) & 1)) continue;
        auto& series = ts.queued_by_reason.emplace_back(static_cast<WaitReason>(r), std::vector<double>());
        for (std::size_t i = 0; i < ts.time.size(); ++i) {
            const Time start = origin_ + static_cast<Time>(i) * bucket_us_;
            const double len = static_cast<double>(std::min(last_change_, start + bucket_us_) - start);
            series.second.push_back(buckets_[i * width_ + types_ + 2 + r] / len);
        }
    }
    return ts;
}

}  // namespace dlsim
