#include "policies/queue/las.hpp"

#include "models/base/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace dlsim {

LasPolicy::Key LasPolicy::key(const ClusterView& view, JobIdx j) const {
    const JobInfo& job = view.job(j);
    const double wall = to_seconds(job.attained_at(view.now()));
    return {gpu_service_ ? wall * job.num_gpus : wall, job.submit, j};
}

double LasPolicy::hysteresis(const ClusterView& view, JobIdx j) const {
    const double seconds = displacement_.seconds(view, j);
    return gpu_service_ ? seconds * view.job(j).alloc_gpus : seconds;
}

double LasPolicy::slope(const ClusterView& view, JobIdx j) const { return gpu_service_ ? view.job(j).num_gpus : 1; }

double LasPolicy::last_running(const ClusterView& view) const {
    const double now = to_seconds(view.now());
    double last = -std::numeric_limits<double>::infinity();
    for (const auto& [per_second, line] : lines_)
        if (!line.empty()) last = std::max(last, line.rbegin()->first + per_second * now);
    return last;
}

void LasPolicy::forget(JobIdx j) {
    lines_[slope_[j]].erase({intercept_[j], j});
    mirrored_[j] = 0;
    --mirrored_count_;
}

void LasPolicy::sync(const ClusterView& view, const Changes& changes) {
    for (auto list : {changes.finished, changes.declined, changes.requeued})
        for (JobIdx j : list)
            if (j < mirrored_.size() && mirrored_[j]) forget(j);
    for (JobIdx j : started_) {
        if (view.job(j).state != JobState::Running) continue;  // declined, or done already
        if (j >= mirrored_.size()) {
            const std::size_t n = std::max<std::size_t>(j + 1, 2 * mirrored_.size());
            mirrored_.resize(n, 0);
            intercept_.resize(n);
            slope_.resize(n);
        }
        // Its running key (service less its displacement cost) as a line in time.
        slope_[j] = slope(view, j);
        intercept_[j] = std::get<0>(key(view, j)) - hysteresis(view, j) - slope_[j] * to_seconds(view.now());
        lines_[slope_[j]].insert({intercept_[j], j});
        mirrored_[j] = 1;
        ++mirrored_count_;
    }
    started_.clear();
    if (mirrored_count_ != view.running_jobs().size())
        throw InternalError(fmt::format("policy las: {} jobs running, {} known to the policy",
                                        view.running_jobs().size(), mirrored_count_));
}

void LasPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    sync(view, changes);
    for (JobIdx j : changes.arrived) waiting_.insert(key(view, j));
    for (auto list : {changes.declined, changes.requeued})
        for (JobIdx j : list)
            if (view.job(j).state == JobState::Queued) waiting_.insert(key(view, j));

    // A waiting job can displace a running one only if it ranks ahead of the last running job (with a
    // tolerance for the rounding of the lines, so that a near tie takes the full walk).
    const double last = last_running(view);
    const double steepest = lines_.empty() ? 0 : lines_.rbegin()->first;
    const double tolerance = 1e-9 * (1 + std::abs(last)) + 1e-15 * steepest * to_seconds(view.now());
    auto ahead = [&](const Key& k) { return std::get<0>(k) < last + tolerance; };
    auto started = [&](JobIdx j) { started_.push_back(j); };
    if (full_walk_ || !start_in_free_gpus(view, order_, waiting_, fast_, ahead, out, started)) {
        running_.clear();
        for (JobIdx j : view.running_jobs()) {
            Key k = key(view, j);
            std::get<0>(k) -= hysteresis(view, j);
            running_.push_back(k);
        }
        std::sort(running_.begin(), running_.end());
        walk_priority(view, order_, running_, waiting_, capacity_, desired_, to_preempt_, nullptr, [&](JobIdx j) {
            if (view.job(j).state != JobState::Running) started(j);
        });
        for (JobIdx j : to_preempt_) {
            forget(j);
            waiting_.insert(key(view, j));
        }
        desired_.emit(view, out);
    }
    // Re-rank at the next quantum while some job waits (the running ones' service keeps growing).
    if (!waiting_.empty() && quantum_ > 0) out.next_call = view.now() + quantum_;
}

}  // namespace dlsim
