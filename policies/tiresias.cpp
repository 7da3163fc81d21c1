#include "policies/tiresias.hpp"

#include "policies/priority_walk.hpp"

#include <algorithm>
#include <cmath>

namespace dlsim {

TiresiasPolicy::TiresiasPolicy(TypeOrder order, std::vector<double> thresholds, bool gpu_service, double knob)
    : order_(order), thresholds_(std::move(thresholds)), gpu_service_(gpu_service), knob_(knob) {}

TiresiasPolicy::State& TiresiasPolicy::state(JobIdx j) {
    if (j >= states_.size()) states_.resize(std::max<std::size_t>(j + 1, 2 * states_.size()));
    return states_[j];
}

double TiresiasPolicy::service(const ClusterView& view, JobIdx j) const {
    const JobInfo& job = view.job(j);
    const double wall = to_seconds(job.attained_at(view.now()) - states_[j].service_from);
    return gpu_service_ ? wall * job.num_gpus : wall;
}

void TiresiasPolicy::enter(JobIdx j, std::uint32_t queue) {
    State& s = state(j);
    s.queue = queue;
    s.entry = entries_++;
}

void TiresiasPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    const Time now = view.now();
    for (JobIdx j : changes.arrived) {
        enter(j, 0);
        State& s = state(j);
        s.service_from = 0;
        s.count_from = kNever;
        waiting_.insert({0, s.entry, j});
    }
    for (auto list : {changes.declined, changes.requeued})
        for (JobIdx j : list)
            if (view.job(j).state == JobState::Queued) waiting_.insert({states_[j].queue, states_[j].entry, j});

    // Demotions: a running job whose service crossed its queue's threshold goes to the tail of the next.
    const std::uint32_t last = static_cast<std::uint32_t>(thresholds_.size());
    running_.clear();
    for (JobIdx j : view.running_jobs()) {
        State& s = state(j);
        if (s.count_from == kNever) s.count_from = view.job(j).stint_start;
        while (s.queue < last && service(view, j) >= thresholds_[s.queue] * (1 - 1e-12)) enter(j, s.queue + 1);
        running_.push_back({s.queue, s.entry, j});
    }
    std::sort(running_.begin(), running_.end());
    // Starvation promotion: a waiting job that ran since its last promotion and has waited knob × that long.
    if (knob_ > 0) {
        promoted_.clear();
        for (const Key& k : waiting_) {
            const JobIdx j = std::get<2>(k);
            const State& s = states_[j];
            if (s.queue == 0 || s.count_from == kNever) continue;
            const Time ran = view.job(j).attained_at(now) - s.service_from;
            if (to_seconds(now - s.count_from - ran) >= knob_ * to_seconds(ran) * (1 - 1e-12)) promoted_.push_back(j);
        }
        for (JobIdx j : promoted_) {
            waiting_.erase({states_[j].queue, states_[j].entry, j});
            enter(j, 0);
            State& s = states_[j];
            s.service_from = view.job(j).attained_at(now);
            s.count_from = kNever;
            waiting_.insert({0, s.entry, j});
        }
    }

    // The next demotion of a job that runs after this call, at its exact instant (rounded up to the µs).
    Time next = kNever;
    auto at = [&](double seconds) { return now + std::max<Time>(1, static_cast<Time>(std::ceil(seconds * 1e6))); };
    walk_priority(view, order_, running_, waiting_, capacity_, desired_, to_preempt_, [&](JobIdx j) {
        const State& s = states_[j];
        if (s.queue >= last) return;
        const double per_second = gpu_service_ ? view.job(j).num_gpus : 1;
        next = std::min(next, at((thresholds_[s.queue] - service(view, j)) / per_second));
    });
    for (JobIdx j : to_preempt_) waiting_.insert({states_[j].queue, states_[j].entry, j});
    desired_.emit(view, out);

    // And the next promotion.
    if (knob_ > 0)
        for (const Key& k : waiting_) {
            const JobIdx j = std::get<2>(k);
            const State& s = states_[j];
            if (s.queue == 0 || s.count_from == kNever) continue;
            const double ran = to_seconds(view.job(j).attained_at(now) - s.service_from);
            next = std::min(next, at(knob_ * ran - to_seconds(now - s.count_from) + ran));
        }
    out.next_call = next;
}

}  // namespace dlsim
