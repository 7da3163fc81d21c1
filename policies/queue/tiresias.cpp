#include "policies/queue/tiresias.hpp"

#include "models/base/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace dlsim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// `seconds` from now as an engine instant, rounded up to the µs and at least 1 µs ahead.
Time after(Time now, double seconds) {
    return now + std::max<Time>(1, static_cast<Time>(std::ceil(seconds * kMicrosPerSecond)));
}

}  // namespace

TiresiasPolicy::TiresiasPolicy(TypeOrder order, std::vector<double> thresholds, bool gpu_service, double knob,
                               DemotionTimer timer, bool full_walk)
    : order_(order),
      thresholds_(std::move(thresholds)),
      gpu_service_(gpu_service),
      knob_(knob),
      timer_(timer),
      full_walk_(full_walk) {}

TiresiasPolicy::State& TiresiasPolicy::state(JobIdx j) {
    if (j >= states_.size()) states_.resize(std::max<std::size_t>(j + 1, 2 * states_.size()));
    return states_[j];
}

double TiresiasPolicy::service(const ClusterView& view, JobIdx j) const {
    const JobInfo& job = view.job(j);
    const double wall = to_seconds(job.attained_at(view.now()) - states_[j].service_from);
    return gpu_service_ ? wall * job.num_gpus : wall;
}

double TiresiasPolicy::total_service(const ClusterView& view, JobIdx j) const {
    const JobInfo& job = view.job(j);
    const double wall = to_seconds(job.attained_at(view.now()));
    return gpu_service_ ? wall * job.num_gpus : wall;
}

double TiresiasPolicy::to_threshold(const ClusterView& view, JobIdx j) const {
    const std::uint32_t q = states_[j].queue;
    return q < thresholds_.size() ? thresholds_[q] - service(view, j) : kInf;
}

TiresiasPolicy::Key TiresiasPolicy::key(const ClusterView&, JobIdx j, bool) const {
    return {Rank{states_[j].queue, 0.0}, static_cast<std::int64_t>(states_[j].entry), j};
}

void TiresiasPolicy::enter(JobIdx j, std::uint32_t queue) {
    State& s = state(j);
    s.queue = queue;
    s.entry = entries_++;
}

void TiresiasPolicy::wait(const ClusterView& view, JobIdx j) {
    State& s = states_[j];
    s.key = key(view, j, false);
    waiting_.insert(s.key);
    s.waiting = true;
}

void TiresiasPolicy::unwait(JobIdx j) {
    State& s = states_[j];
    waiting_.erase(s.key);
    s.waiting = false;
}

Time TiresiasPolicy::crossing(const ClusterView& view, JobIdx j) const {
    if (states_[j].queue >= thresholds_.size()) return kNever;
    const double per_second = gpu_service_ ? view.job(j).num_gpus : 1;
    return after(view.now(), to_threshold(view, j) / per_second);
}

void TiresiasPolicy::run(const ClusterView& view, JobIdx j) {
    State& s = states_[j];
    s.waiting = false;  // the walk took it out of waiting_
    s.running = true;
    if (s.count_from == kNever) s.count_from = view.now();
    s.key = key(view, j, true);
    running_.insert(s.key);
    s.crossing = crossing(view, j);
    if (s.crossing != kNever) crossings_.insert({s.crossing, j});
    if (timer_ == DemotionTimer::TiresiasSim && s.queue < thresholds_.size()) {
        const double run = to_seconds(view.job(j).attained_at(view.now()) - s.service_from);
        s.late = {gpu_service_ ? view.job(j).num_gpus : 1, thresholds_[s.queue] - run + to_seconds(view.now()), j};
        late_.insert(s.late);
    }
}

void TiresiasPolicy::unrun(JobIdx j) {
    State& s = states_[j];
    running_.erase(s.key);
    if (s.crossing != kNever) crossings_.erase({s.crossing, j});
    if (std::get<0>(s.late) > 0) late_.erase(s.late);
    s.crossing = kNever;
    s.late = {};
    s.running = false;
}

void TiresiasPolicy::demote_crossed(const ClusterView& view) {
    const std::uint32_t last = static_cast<std::uint32_t>(thresholds_.size());
    while (!crossings_.empty() && crossings_.begin()->first <= view.now()) {
        const JobIdx j = crossings_.begin()->second;
        unrun(j);
        State& s = states_[j];
        while (s.queue < last && service(view, j) >= thresholds_[s.queue] * (1 - 1e-12)) enter(j, s.queue + 1);
        run(view, j);
    }
}

void TiresiasPolicy::promote_starved(const ClusterView& view) {
    const Time now = view.now();
    promoted_.clear();
    for (const Key& k : waiting_) {
        const JobIdx j = std::get<2>(k);
        const State& s = states_[j];
        if (s.queue == 0 || s.count_from == kNever) continue;
        const Time ran = view.job(j).attained_at(now) - s.service_from;
        if (to_seconds(now - s.count_from - ran) >= knob_ * to_seconds(ran) * (1 - 1e-12)) promoted_.push_back(j);
    }
    for (JobIdx j : promoted_) {
        unwait(j);
        enter(j, 0);
        State& s = states_[j];
        s.service_from = view.job(j).attained_at(now);
        s.count_from = kNever;
        wait(view, j);
    }
}

Time TiresiasPolicy::next_call(const ClusterView& view) const {
    const Time now = view.now();
    Time next = kNever;
    if (timer_ == DemotionTimer::Exact) {
        if (!crossings_.empty()) next = crossings_.begin()->first;
    } else {
        // Tiresias's simulator: (θ_q − wall seconds run)/g from now, for every running job. With D = θ_q −
        // wall seconds run + now (fixed while it runs) that is now + (D − now)/g: the least D per g decides.
        const double now_s = to_seconds(now);
        for (auto it = late_.begin(); it != late_.end(); it = late_.lower_bound({std::get<0>(*it) + 1, -kInf, 0})) {
            const int per_second = std::get<0>(*it);
            next = std::min(next, after(now, (std::get<1>(*it) - now_s) / per_second));
        }
    }
    if (knob_ > 0)
        for (const Key& k : waiting_) {
            const JobIdx j = std::get<2>(k);
            const State& s = states_[j];
            if (s.queue == 0 || s.count_from == kNever) continue;
            const double ran = to_seconds(view.job(j).attained_at(now) - s.service_from);
            next = std::min(next, after(now, knob_ * ran - to_seconds(now - s.count_from) + ran));
        }
    return next;
}

void TiresiasPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    // The jobs it last saw running or starting that no longer run.
    for (auto list : {changes.finished, changes.declined, changes.requeued})
        for (JobIdx j : list)
            if (j < states_.size() && states_[j].running) unrun(j);
    if (observe(view, changes)) {
        selected_.clear();
        for (const Key& k : waiting_) selected_.push_back(std::get<2>(k));
        waiting_.clear();
        for (JobIdx j : selected_) wait(view, j);
    }
    for (JobIdx j : changes.arrived) {
        enter(j, 0);
        State& s = state(j);
        s.service_from = 0;
        s.count_from = kNever;
        wait(view, j);
    }
    for (auto list : {changes.declined, changes.requeued})
        for (JobIdx j : list)
            if (view.job(j).state == JobState::Queued && !states_[j].waiting) wait(view, j);
    if (running_.size() != view.running_jobs().size())
        throw InternalError(fmt::format("policy tiresias: {} jobs running, {} known to the policy",
                                        view.running_jobs().size(), running_.size()));

    demote_crossed(view);
    if (knob_ > 0) promote_starved(view);

    selected_.clear();  // the waiting jobs this call starts
    bool fast = false;
    if (!full_walk_) {
        // A waiting job can displace a running one only if it ranks ahead of the last running job. When
        // ranks drift, the running jobs' order within a queue is unknown without re-ranking them: a job of
        // the last running job's queue counts as ahead.
        auto ahead = [&](const Key& k) {
            if (running_.empty()) return false;
            const Rank& last = std::get<0>(*running_.rbegin());
            return ranks_drift() ? std::get<0>(k).queue <= last.queue : std::get<0>(k) < last;
        };
        fast = start_in_free_gpus(view, order_, waiting_, fast_, ahead, out, [&](JobIdx j) { selected_.push_back(j); });
        if (fast) WalkReasons::explain_fast_path(out);
    }
    if (!fast) {
        auto on_selected = [&](JobIdx j) {
            if (!states_[j].running) selected_.push_back(j);
        };
        if (ranks_drift()) {
            ranked_.clear();
            for (JobIdx j : view.running_jobs()) ranked_.push_back(key(view, j, true));
            std::sort(ranked_.begin(), ranked_.end());
            walk_priority(view, order_, ranked_, waiting_, capacity_, desired_, to_preempt_, &why_, on_selected);
        } else {
            walk_priority(view, order_, running_, waiting_, capacity_, desired_, to_preempt_, &why_, on_selected);
        }
        for (JobIdx j : to_preempt_) {
            unrun(j);
            wait(view, j);
        }
        desired_.emit(view, out);
        why_.explain(out);
    }
    for (JobIdx j : selected_) run(view, j);
    out.next_call = next_call(view);
}

}  // namespace dlsim
