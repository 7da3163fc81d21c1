#include "policies/queue/drf.hpp"

#include <algorithm>
#include <optional>

namespace dlsim {

DrfPolicy::DrfPolicy(TypeOrder order, DrfPrincipal per, bool demand_share, std::vector<double> weights, bool preempt,
                     double margin_s)
    : order_(order),
      per_(per),
      demand_(demand_share),
      weights_(std::move(weights)),
      preempt_(preempt),
      displacement_(margin_s) {}

std::uint32_t DrfPolicy::principal_of(const JobInfo& job, JobIdx j) const {
    switch (per_) {
        case DrfPrincipal::Vc:
            return job.vc;
        case DrfPrincipal::User:
            return job.user;
        case DrfPrincipal::Job:
            break;
    }
    return j;
}

DrfPolicy::Principal& DrfPolicy::principal(std::uint32_t p) {
    if (p >= principals_.size()) principals_.resize(std::max<std::size_t>(p + 1, 2 * principals_.size()));
    return principals_[p];
}

double DrfPolicy::key_of(const ClusterView& view, std::uint32_t p) const {
    const Principal& pr = principals_[p];
    if (demand_) return view.job(pr.queue.begin()->second).num_gpus / total_gpus_;
    return pr.held / total_gpus_ / weight(p);
}

template <class F>
void DrfPolicy::update(const ClusterView& view, std::uint32_t p, F change) {
    Principal& pr = principal(p);
    if (!pr.queue.empty()) active_.erase({pr.key, p});
    change(pr);
    if (pr.queue.empty()) return;
    pr.key = key_of(view, p);
    active_.insert({pr.key, p});
}

void DrfPolicy::enqueue(const ClusterView& view, JobIdx j) {
    const JobInfo& job = view.job(j);
    if (j >= evicted_.size()) evicted_.resize(std::max<std::size_t>(j + 1, 2 * evicted_.size()), 0);
    update(view, principal_of(job, j), [&](Principal& pr) { pr.queue.insert({job.submit, j}); });
}

void DrfPolicy::release(const ClusterView& view, JobIdx j) {
    if (j >= holding_.size() || !holding_[j]) return;
    holding_[j] = 0;
    const JobInfo& job = view.job(j);
    update(view, principal_of(job, j), [&](Principal& pr) { pr.held -= job.num_gpus; });
}

void DrfPolicy::start(const ClusterView& view, JobIdx j, GpuTypeIdx t, Decisions& out) {
    const JobInfo& job = view.job(j);
    if (j >= holding_.size()) holding_.resize(std::max<std::size_t>(j + 1, 2 * holding_.size()));
    holding_[j] = 1;
    available_[t] -= job.num_gpus;
    out.start(j, t, job.num_gpus);
}

std::pair<JobIdx, GpuTypeIdx> DrfPolicy::first_fit(const ClusterView& view, const Principal& p) const {
    const int widest = *std::max_element(available_.begin(), available_.end());
    for (const auto& [submit, j] : p.queue) {
        const JobInfo& job = view.job(j);
        if (job.num_gpus > widest || evicted_[j] == call_) continue;  // an evicted job waits for the next call
        if (auto t = pick_type(view, job, order_, available_)) return {j, *t};
    }
    return {kNoJob, 0};
}

void DrfPolicy::fill(const ClusterView& view, Decisions& out) {
    int free = 0;
    for (int a : available_) free += a;
    // Principals before `it` found nothing that fits; GPUs only get scarcer within a call, so they stay
    // passed over. A principal that started a job moves later (its share grew), never before them.
    auto it = active_.begin();
    while (it != active_.end() && free > 0) {
        const std::uint32_t p = it->second;
        Principal& pr = principals_[p];
        const auto [j, t] = first_fit(view, pr);
        if (j == kNoJob) {
            ++it;
            continue;
        }
        const JobInfo& job = view.job(j);
        it = active_.erase(it);
        pr.queue.erase({job.submit, j});
        pr.held += job.num_gpus;
        free -= job.num_gpus;
        start(view, j, t, out);
        if (pr.queue.empty()) continue;
        pr.key = key_of(view, p);
        const auto pos = active_.insert({pr.key, p}).first;
        if (it == active_.end() || *pos < *it) it = pos;
    }
}

void DrfPolicy::evict_for_waiting(const ClusterView& view, Decisions& out) {
    const Time now = view.now();
    // Candidates youngest first: the latest start (of the current stint), ties to the higher id.
    by_age_.assign(view.running_jobs().begin(), view.running_jobs().end());
    std::sort(by_age_.begin(), by_age_.end(), [&](JobIdx a, JobIdx b) {
        const Time sa = view.job(a).stint_start, sb = view.job(b).stint_start;
        return sa != sb ? sa > sb : a > b;
    });
    auto it = active_.begin();
    while (it != active_.end()) {
        const std::uint32_t p = it->second;
        Principal& pr = principals_[p];
        const JobIdx j = pr.queue.begin()->second;  // only the head may evict (FIFO inside a principal)
        const JobInfo& job = view.job(j);
        if (evicted_[j] == call_) {  // evicted in this call: it does not come back at the same instant
            ++it;
            continue;
        }
        const double after_p = (pr.held + job.num_gpus) / weight(p);
        Time eligible_at = kNever;
        // The victims on type t, youngest first, that keep their principal at or above p after the swap
        // (each victim lowers its principal's share for the next one); returns the GPUs free on t then.
        auto victims_on = [&](GpuTypeIdx t, std::vector<JobIdx>& chosen) {
            chosen.clear();
            int freed = available_[t];
            for (JobIdx v : by_age_) {
                if (freed >= job.num_gpus) break;
                const JobInfo& vj = view.job(v);
                if (vj.gpu_type != t || v >= holding_.size() || !holding_[v] || evicted_[v] == call_) continue;
                const std::uint32_t q = principal_of(vj, v);
                if (q == p) continue;
                int held_q = principals_[q].held;
                for (JobIdx c : chosen)
                    if (principal_of(view.job(c), c) == q) held_q -= view.job(c).num_gpus;
                if (!(after_p <= (held_q - vj.num_gpus) / weight(q))) continue;
                const Time ready = vj.stint_start + to_time(displacement_.seconds(view, v));
                if (ready > now) {
                    eligible_at = std::min(eligible_at, ready);
                    continue;
                }
                chosen.push_back(v);
                freed += vj.num_gpus;
            }
            return freed;
        };
        for (GpuTypeIdx t = 0; t < available_.size(); ++t)
            room_[t] = (job.runnable >> t) & 1 ? victims_on(t, victims_) : 0;
        const auto t = pick_type(view, job, order_, room_);
        if (!t) {
            next_call_ = std::min(next_call_, eligible_at);
            ++it;
            continue;
        }
        victims_on(*t, victims_);
        for (JobIdx v : victims_) {
            out.preempt(v);
            evicted_[v] = call_;  // never evicted twice, nor restarted and evicted, in one call
            available_[*t] += view.job(v).num_gpus;
            release(view, v);  // its principal's share drops, and the job waits again
            enqueue(view, v);
        }
        update(view, p, [&](Principal& x) {
            x.queue.erase(x.queue.begin());
            x.held += job.num_gpus;
        });
        start(view, j, *t, out);
        // What the evictions freed beyond j's gang may now serve a principal passed over: walk again. Each
        // pass starts a job and evicts only jobs that ran before this call, so the walk ends.
        it = active_.begin();
    }
}

void DrfPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    total_gpus_ = static_cast<double>(view.cluster().num_gpus());
    next_call_ = kNever;
    ++call_;
    for (JobIdx j : changes.finished) release(view, j);
    for (auto list : {changes.declined, changes.requeued})
        for (JobIdx j : list) {
            release(view, j);
            if (view.job(j).state == JobState::Queued) enqueue(view, j);
        }
    for (JobIdx j : changes.arrived) enqueue(view, j);

    const std::size_t types = view.cluster().gpu_types.size();
    available_.resize(types);
    room_.resize(types);
    for (GpuTypeIdx t = 0; t < types; ++t) available_[t] = view.free_gpus(t);
    fill(view, out);
    if (preempt_ && !active_.empty() && !view.running_jobs().empty()) {
        const std::size_t before = out.actions.size();
        evict_for_waiting(view, out);
        if (out.actions.size() != before) fill(view, out);  // what evictions freed beyond the gangs they served
    }
    out.next_call = next_call_;
}

}  // namespace dlsim
