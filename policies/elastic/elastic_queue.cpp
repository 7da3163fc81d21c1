#include "policies/elastic/elastic_queue.hpp"

#include "policies/elastic/elastic_jobs.hpp"

#include <algorithm>

namespace dlsim {

void ElasticQueuePolicy::GangView::reset(const ClusterView& real) {
    real_ = &real;
    const Cluster& cluster = real.cluster();
    for (JobIdx j : trimmed_) slot_[j] = -1;
    trimmed_.clear();
    extra_type_.assign(cluster.gpu_types.size(), 0);
    extra_node_.assign(cluster.nodes.size(), 0);
    for (JobIdx j : real.running_jobs()) {
        const JobInfo& job = real.job(j);
        if (job.alloc_gpus <= job.num_gpus) continue;
        if (j >= slot_.size()) slot_.resize(static_cast<std::size_t>(j) + 1, -1);
        const std::size_t k = trimmed_.size();
        slot_[j] = static_cast<int>(k);
        trimmed_.push_back(j);
        if (infos_.size() <= k) {
            infos_.resize(k + 1);
            allocs_.resize(k + 1);
        }
        infos_[k] = job;
        infos_[k].alloc_gpus = job.num_gpus;
        // Its gang: the GPUs it was placed on first, in placement order.
        const Allocation& a = real.allocation(j);
        Allocation& gang = allocs_[k];
        gang.gpu_type = a.gpu_type;
        gang.partner = a.partner;
        gang.shares.clear();
        for (int left = job.num_gpus; const NodeShare& s : a.shares) {
            const int keep = std::min(left, s.gpus);
            if (keep > 0) gang.shares.push_back({s.node, keep, s.milli});
            extra_node_[s.node] += s.gpus - keep;
            left -= keep;
        }
        extra_type_[a.gpu_type] += job.alloc_gpus - job.num_gpus;
    }
}

const JobInfo& ElasticQueuePolicy::GangView::job(JobIdx j) const {
    return trimmed(j) ? infos_[static_cast<std::size_t>(slot_[j])] : real_->job(j);
}

const Allocation& ElasticQueuePolicy::GangView::allocation(JobIdx j) const {
    return trimmed(j) ? allocs_[static_cast<std::size_t>(slot_[j])] : real_->allocation(j);
}

NodeIdx ElasticQueuePolicy::GangView::node_with_free(GpuTypeIdx t, int k) const {
    if (extra_type_[t] == 0) return real_->node_with_free(t, k);
    const Cluster& cluster = real_->cluster();
    for (NodeIdx n = 0; n < cluster.nodes.size(); ++n)
        if (cluster.nodes[n].gpu_type == t && free_gpus_on(n) == k) return n;
    return kNoNode;
}

ElasticQueuePolicy::ElasticQueuePolicy(std::unique_ptr<Policy> inner, double interval)
    : inner_(std::move(inner)), interval_(to_time(interval)) {}

void ElasticQueuePolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    const Time now = view.now();
    // Declines of this wrapper's resizes are its own business: the job is as it was.
    declined_.clear();
    for (JobIdx j : changes.declined)
        if (std::find(resized_.begin(), resized_.end(), j) == resized_.end()) declined_.push_back(j);
    resized_.clear();
    const bool inner_timer = changes.timer && inner_next_ != kNever && now >= inner_next_;
    const bool tick = changes.timer && now % interval_ == 0;
    const Cluster& cluster = view.cluster();
    gangs_.reset(view);
    inner_out_.clear();
    if (inner_timer || !changes.arrived.empty() || !changes.finished.empty() || !changes.requeued.empty() ||
        !declined_.empty()) {
        inner_->decide(gangs_, Changes{changes.arrived, changes.finished, inner_timer, changes.requeued, declined_},
                       inner_out_);
        inner_next_ = inner_out_.next_call;
    }

    // GPUs per type the queue policy's starts need beyond those really free once its preemptions apply.
    need_.assign(cluster.gpu_types.size(), 0);
    exact_.assign(cluster.gpu_types.size(), 0);
    bool quiet = true;
    for (const Action& a : inner_out_.actions) {
        if (a.kind == Action::Kind::Start) {
            need_[a.gpu_type] += a.num_gpus;
            if (a.placement_size > 0) exact_[a.gpu_type] = 1;
            quiet = false;
        } else if (a.kind == Action::Kind::Preempt) {
            const JobInfo& job = view.job(a.job);
            need_[job.gpu_type] -= job.alloc_gpus;
            quiet = false;
        } else if (a.kind != Action::Kind::Resize) {
            quiet = false;
        }
    }
    for (GpuTypeIdx t = 0; t < need_.size(); ++t) need_[t] -= view.free_gpus(t);
    auto preempted = [&](JobIdx j) {
        for (const Action& a : inner_out_.actions)
            if (a.kind == Action::Kind::Preempt && a.job == j) return true;
        return false;
    };
    for (JobIdx j : view.running_jobs()) {
        if (!gangs_.trimmed(j)) continue;
        const GpuTypeIdx t = view.job(j).gpu_type;
        if ((need_[t] > 0 || exact_[t]) && !preempted(j)) {
            out.resize(j, view.job(j).num_gpus, gangs_.allocation(j).shares);
            resized_.push_back(j);
        }
    }
    // The queue policy's decisions, as it made them.
    for (const Action& a : inner_out_.actions) {
        out.actions.push_back(a);
        out.actions.back().placement_begin = static_cast<std::uint32_t>(out.placements.size());
        const auto where = inner_out_.placement(a);
        out.placements.insert(out.placements.end(), where.begin(), where.end());
    }
    if (tick && quiet && resized_.empty()) grow(view, out);
    // Ticks while anything runs or is being started (none for an idle cluster: the next arrival calls).
    const Time next_tick = view.running_jobs().empty() && quiet ? kNever : (now / interval_ + 1) * interval_;
    out.next_call = std::min(inner_next_, next_tick);
}

void ElasticQueuePolicy::grow(const ClusterView& view, Decisions& out) {
    const ElasticView* ev = view.elastic();
    if (ev == nullptr) return;
    const Cluster& cluster = view.cluster();
    std::span<const JobIdx> running = view.running_jobs();
    targets_.assign(running.size(), 0);
    for (std::size_t i = 0; i < running.size(); ++i) targets_[i] = view.job(running[i]).alloc_gpus;
    auto goodput = [&](JobIdx j, GpuTypeIdx t, int k) {
        return ev->predict(j, t, nodes_for(k, gpus_per_node(cluster, t)), k).goodput;
    };
    for (GpuTypeIdx t = 0; t < cluster.gpu_types.size(); ++t) {
        for (int spare = view.free_gpus(t); spare > 0; --spare) {
            std::size_t best = running.size();
            double best_gain = 0;
            JobIdx best_job = 0;
            for (std::size_t i = 0; i < running.size(); ++i) {
                const JobIdx j = running[i];
                const JobInfo& job = view.job(j);
                if (job.gpu_type != t || !is_elastic(view, j) || targets_[i] >= job.max_gpus) continue;
                const double gain = goodput(j, t, targets_[i] + 1) - goodput(j, t, targets_[i]);
                if (gain <= 0) continue;
                if (best == running.size() || gain > best_gain || (gain == best_gain && j < best_job))
                    best = i, best_gain = gain, best_job = j;
            }
            if (best == running.size()) break;
            ++targets_[best];
        }
    }
    // In trace order (running_jobs' order is deterministic, not sorted).
    order_.clear();
    for (std::size_t i = 0; i < running.size(); ++i)
        if (targets_[i] != view.job(running[i]).alloc_gpus) order_.push_back(i);
    std::sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) { return running[a] < running[b]; });
    for (std::size_t i : order_) {
        out.resize(running[i], targets_[i]);
        resized_.push_back(running[i]);
    }
}

}  // namespace dlsim
