#include "policies/elastic/interval_tiresias.hpp"

#include "policies/elastic/elastic_jobs.hpp"

#include <algorithm>

namespace dlsim {

void IntervalTiresiasPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    arrived_.insert(arrived_.end(), changes.arrived.begin(), changes.arrived.end());
    for (JobIdx j : changes.finished)
        for (auto* q : {&q0_, &q1_}) std::erase(*q, j);
    if (!interval_tick(view, changes, interval_, !(q0_.empty() && q1_.empty() && arrived_.empty()), out)) return;
    q0_.insert(q0_.end(), arrived_.begin(), arrived_.end());
    arrived_.clear();
    // Demotion: service = wall time holding GPUs × the gang's GPUs.
    std::vector<JobIdx> keep;
    for (JobIdx j : q0_) {
        const JobInfo& job = view.job(j);
        if (to_seconds(job.attained_at(view.now())) * job.num_gpus >= threshold_)
            q1_.push_back(j);
        else
            keep.push_back(j);
    }
    q0_.swap(keep);

    const Cluster& cluster = view.cluster();
    const GpuTypeIdx type = elastic_pool_type(cluster);
    int left = cluster.gpus_of_type(type);
    std::vector<JobIdx> run;
    for (const auto* q : {&q0_, &q1_})
        for (JobIdx j : *q) {
            const int g = view.job(j).num_gpus;
            if (g <= left) {
                left -= g;
                run.push_back(j);
            }
        }
    std::vector<int> free(cluster.nodes.size(), 0);
    for (NodeIdx n = 0; n < cluster.nodes.size(); ++n)
        if (cluster.nodes[n].gpu_type == type) free[n] = view.free_gpus_on(n);
    for (const auto* q : {&q0_, &q1_})
        for (JobIdx j : *q)
            if (view.job(j).state == JobState::Running && std::find(run.begin(), run.end(), j) == run.end()) {
                out.preempt(j);
                for (const NodeShare& s : view.allocation(j).shares) free[s.node] += s.gpus;
            }
    std::vector<NodeShare> where;
    for (JobIdx j : run) {
        if (view.job(j).state == JobState::Running) continue;
        where.clear();
        for (int need = view.job(j).num_gpus; need > 0;) {
            const auto most = static_cast<NodeIdx>(std::max_element(free.begin(), free.end()) - free.begin());
            const int take = std::min(need, free[most]);
            where.push_back({most, take});
            free[most] -= take;
            need -= take;
        }
        std::sort(where.begin(), where.end(), [](const NodeShare& a, const NodeShare& b) { return a.node < b.node; });
        out.start(j, type, view.job(j).num_gpus, where);
    }
}

}  // namespace dlsim
