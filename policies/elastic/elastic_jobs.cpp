#include "policies/elastic/elastic_jobs.hpp"

#include <algorithm>

namespace dlsim {

void track_arrival_order(std::vector<JobIdx>& active, const Changes& changes) {
    active.insert(active.end(), changes.arrived.begin(), changes.arrived.end());
    if (!changes.finished.empty())
        std::erase_if(active, [&](JobIdx j) {
            return std::find(changes.finished.begin(), changes.finished.end(), j) != changes.finished.end();
        });
}

bool interval_tick(const ClusterView& view, const Changes& changes, double interval_seconds, bool busy,
                   Decisions& out) {
    if (!busy) return false;
    const Time interval = to_time(interval_seconds);
    out.next_call = (view.now() / interval + 1) * interval;
    if (!changes.timer) {  // nothing starts before the next tick: newcomers wait for it, the others as they were
        out.keep_waits = true;
        out.wait_rest(WaitReason::PolicyTimer);
    }
    return changes.timer;
}

void ActiveJobs::insert(JobIdx j) {
    const auto it = std::lower_bound(jobs_.begin(), jobs_.end(), j);
    if (it == jobs_.end() || *it != j) jobs_.insert(it, j);
}

void ActiveJobs::update(const ClusterView& view, const Changes& changes) {
    for (auto list : {changes.arrived, changes.requeued, changes.declined})
        for (JobIdx j : list) insert(j);
    std::erase_if(jobs_, [&](JobIdx j) {
        const JobState s = view.job(j).state;
        return s == JobState::Finished || s == JobState::Rejected || s == JobState::Pending;
    });
}

GpuTypeIdx elastic_pool_type(const Cluster& cluster) {
    GpuTypeIdx best = 0;
    for (GpuTypeIdx t = 1; t < cluster.gpu_types.size(); ++t)
        if (cluster.gpus_of_type(t) > cluster.gpus_of_type(best)) best = t;
    return best;
}

int gpus_per_node(const Cluster& cluster, GpuTypeIdx t) {
    int most = 1;
    for (const Node& n : cluster.nodes)
        if (n.gpu_type == t) most = std::max(most, n.gpus);
    return most;
}

bool is_elastic(const ClusterView& view, JobIdx j) {
    const ElasticView* ev = view.elastic();
    const JobInfo& job = view.job(j);
    return ev != nullptr && ev->goodput(j) != nullptr && job.min_gpus < job.max_gpus;
}

void CountApplier::apply(const ClusterView& view, std::span<const JobIdx> jobs, std::span<const int> counts,
                         GpuTypeIdx t, bool explicit_starts, Decisions& out) {
    const Cluster& cluster = view.cluster();
    if (explicit_starts) {
        free_.assign(cluster.nodes.size(), 0);
        for (NodeIdx n = 0; n < cluster.nodes.size(); ++n)
            if (cluster.nodes[n].gpu_type == t) free_[n] = view.free_gpus_on(n);
    }
    starts_.clear();
    later_.clear();
    int free_total = view.free_gpus(t);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const JobInfo& job = view.job(jobs[i]);
        if (job.state == JobState::Running && counts[i] == 0) {
            out.preempt(jobs[i]);
            if (job.gpu_type == t) {
                free_total += job.alloc_gpus;
                if (explicit_starts)
                    for (const NodeShare& s : view.allocation(jobs[i]).shares) free_[s.node] += s.gpus;
            }
        } else if (job.state == JobState::Queued && counts[i] > 0) {
            starts_.push_back(i);
        }
    }
    // Smallest first (trace order among equals), as Pollux's simulator places changed jobs.
    std::stable_sort(starts_.begin(), starts_.end(),
                     [&](std::size_t a, std::size_t b) { return counts[a] < counts[b]; });
    for (std::size_t i : starts_) {
        const int want = counts[i];
        if (!explicit_starts || want > free_total) {
            later_.push_back(i);
            continue;
        }
        shares_.clear();
        for (int left = want; left > 0;) {
            NodeIdx best = 0;
            for (NodeIdx n = 1; n < free_.size(); ++n)
                if (free_[n] > free_[best]) best = n;
            const int take = std::min(left, free_[best]);
            shares_.push_back({best, take});
            free_[best] -= take;
            left -= take;
        }
        free_total -= want;
        out.start(jobs[i], t, want, shares_);
    }
    for (bool grow : {false, true})
        for (std::size_t i = 0; i < jobs.size(); ++i) {
            const JobInfo& job = view.job(jobs[i]);
            if (job.state != JobState::Running || counts[i] == 0 || counts[i] == job.alloc_gpus) continue;
            if ((counts[i] > job.alloc_gpus) == grow) out.resize(jobs[i], counts[i]);
        }
    // In trace order: the placer takes them as the queue would.
    std::sort(later_.begin(), later_.end());
    for (std::size_t i : later_) out.start(jobs[i], t, counts[i]);
}

}  // namespace dlsim
