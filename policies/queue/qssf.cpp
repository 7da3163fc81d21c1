#include "policies/queue/qssf.hpp"

#include "models/base/input_error.hpp"
#include "policies/queue/queue_walk.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dlsim {

QssfEstimator parse_qssf_estimator(const std::string& value) {
    if (value == "history") return QssfEstimator::History;
    if (value == "oracle") return QssfEstimator::Oracle;
    if (value == "helios-noise") return QssfEstimator::HeliosNoise;
    throw InputError("parameter estimator: expected history, oracle or helios-noise, got '" + value + "'");
}

QssfHistoryKey parse_qssf_history_key(const std::string& value) {
    if (value == "user+model+gpus") return QssfHistoryKey::UserModelGpus;
    if (value == "model+gpus") return QssfHistoryKey::ModelGpus;
    if (value == "gpus") return QssfHistoryKey::Gpus;
    throw InputError("parameter history_key: expected user+model+gpus, model+gpus or gpus, got '" + value + "'");
}

QssfPolicy::QssfPolicy(TypeOrder order, QssfEstimator estimator, QssfHistoryKey key, double prior_s, bool strict,
                       bool lazy_priority, std::uint64_t seed)
    : order_(order), estimator_(estimator), prior_(prior_s), strict_(strict), lazy_(lazy_priority), noise_(seed) {
    // Richest key first; each later level drops a field, the last one keeps none (all finished jobs).
    switch (key) {
        case QssfHistoryKey::UserModelGpus:
            levels_ = {{true, true, true},
                       {false, true, true},
                       {false, true, false},
                       {false, false, true},
                       {false, false, false}};
            break;
        case QssfHistoryKey::ModelGpus:
            levels_ = {{false, true, true}, {false, true, false}, {false, false, true}, {false, false, false}};
            break;
        case QssfHistoryKey::Gpus:
            levels_ = {{false, false, true}, {false, false, false}};
            break;
    }
}

QssfPolicy::HistoryKey QssfPolicy::history_key(std::uint8_t level, const JobInfo& job) const {
    const Level& l = levels_[level];
    return {level, l.user ? job.user : 0, l.model ? job.model : 0, l.gpus ? job.num_gpus : 0};
}

double QssfPolicy::estimate(const ClusterView& view, JobIdx j) const {
    const JobInfo& job = view.job(j);
    switch (estimator_) {
        case QssfEstimator::Oracle:
            return reference_duration(view, job) * job.num_gpus;
        case QssfEstimator::HeliosNoise:
            return reference_duration(view, job) * (1 + noise_.error(j)) * job.num_gpus;
        case QssfEstimator::History:
            break;
    }
    for (std::uint8_t level = 0; level < levels_.size(); ++level) {
        if (!applies(level, job)) continue;
        const auto it = history_.find(history_key(level, job));
        if (it != history_.end()) return it->second.sum / static_cast<double>(it->second.count) * job.num_gpus;
    }
    return prior_ * job.num_gpus;
}

void QssfPolicy::enqueue(const ClusterView& view, JobIdx j) {
    if (j >= fixed_.size())
        fixed_.resize(std::max<std::size_t>(j + 1, 2 * fixed_.size()), std::numeric_limits<double>::quiet_NaN());
    if (std::isnan(fixed_[j])) fixed_[j] = estimate(view, j);
    queue_.emplace(fixed_[j], view.job(j).submit, j);
}

void QssfPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    if (estimator_ == QssfEstimator::History)
        for (JobIdx j : changes.finished) {
            const JobInfo& job = view.job(j);
            const double duration = reference_duration(view, job);
            for (std::uint8_t level = 0; level < levels_.size(); ++level) {
                if (!applies(level, job)) continue;
                Mean& m = history_[history_key(level, job)];
                m.sum += duration;
                ++m.count;
            }
        }
    // Jobs a lazy call left without a priority get it now, with what has finished since (Helios: the next
    // tick that finds older jobs pending).
    for (JobIdx j : unprioritised_) enqueue(view, j);
    unprioritised_.clear();
    for (auto list : {changes.declined, changes.requeued})
        for (JobIdx j : list)
            if (view.job(j).state == JobState::Queued) enqueue(view, j);

    const std::size_t types = view.cluster().gpu_types.size();
    available_.resize(types);
    int free = 0;
    for (GpuTypeIdx t = 0; t < types; ++t) free += available_[t] = view.free_gpus(t);
    if (lazy_ && queue_.empty() && !changes.arrived.empty()) {
        walk_new(view, changes, out, free);
        return;
    }
    for (JobIdx j : changes.arrived) enqueue(view, j);
    walk(view, out, free);
}

void QssfPolicy::walk(const ClusterView& view, Decisions& out, int free) {
    start_in_order(view, queue_, order_, available_, free, strict_, out);
}

void QssfPolicy::walk_new(const ClusterView& view, const Changes& changes, Decisions& out, int free) {
    fresh_.clear();
    for (JobIdx j : changes.arrived) fresh_.emplace_back(view.job(j).num_gpus, view.job(j).submit, j);
    std::sort(fresh_.begin(), fresh_.end());
    bool blocked = false;
    for (const auto& [gpus, submit, j] : fresh_) {
        const auto t = blocked || free == 0 ? std::nullopt : pick_type(view, view.job(j), order_, available_);
        if (!t) {
            blocked = blocked || strict_;
            unprioritised_.push_back(j);
            continue;
        }
        out.start(j, *t, gpus);
        available_[*t] -= gpus;
        free -= gpus;
    }
}

}  // namespace dlsim
