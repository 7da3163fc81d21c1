#include "policies/elastic/optimus.hpp"

#include <algorithm>

namespace dlsim {

namespace {

/// Optimizer iterations left to the completion epoch (max_epochs − 1) at a fixed total batch, from the
/// epoch the job is in; 1 once it is there (the oracle of Pollux's Optimus+Oracle).
double remaining_iterations(const GoodputProfile& g, int batch, int epoch) {
    const int completion = g.max_epochs - 1;
    if (completion <= epoch) return 1;
    return g.iterations_at(batch, completion) - g.iterations_at(batch, epoch);
}

}  // namespace

double OptimusPolicy::gain(const ClusterView& view, std::size_t i, int free) const {
    const JobIdx j = active_.jobs()[i];
    const int k = counts_[i];
    if (!elastic_[i] || free < 1 || k + 1 > view.job(j).max_gpus) return 0;
    const ElasticView& ev = *view.elastic();
    // Strong scaling of the trace's batch: no more GPUs than it spreads over at the smallest per-GPU batch.
    const GoodputProfile& g = *ev.goodput(j);
    const int batch = view.job(j).batch_size > 0 ? view.job(j).batch_size : g.init_batch_size;
    if (k + 1 > batch / g.min_local_bsz) return 0;
    if (ev.predict(j, type_, nodes_for(k, per_node_), k).goodput <= 0 ||
        ev.predict(j, type_, nodes_for(k + 1, per_node_), k + 1).goodput <= 0)
        return 0;
    return (predicted_step(view, j, k) - predicted_step(view, j, k + 1)) * remaining_[i];
}

double OptimusPolicy::predicted_step(const ClusterView& view, JobIdx j, int k) const {
    const ElasticView& ev = *view.elastic();
    const GoodputProfile& g = *ev.goodput(j);
    const int batch = view.job(j).batch_size > 0 ? view.job(j).batch_size : g.init_batch_size;
    const int local = (batch + k - 1) / k;
    BatchConfig b;
    b.accum_steps = (local + g.max_local_bsz - 1) / g.max_local_bsz - 1;
    if (k == 1) b.accum_steps = std::max(1, b.accum_steps);
    b.atomic_bsz = (local + b.accum_steps) / (b.accum_steps + 1);
    b.atomic_bsz = std::min(b.atomic_bsz, g.max_batch_size / (k * (b.accum_steps + 1)));
    placement_.clear();
    for (int left = k; left > 0; left -= per_node_) placement_.push_back(std::min(left, per_node_));
    return ev.true_step_seconds(j, type_, placement_, b);
}

void OptimusPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    active_.update(view, changes);
    if (active_.empty()) return;
    const Time now = view.now();
    out.next_call = (now / interval_ + 1) * interval_;
    if (now % interval_ != 0) return;  // arrivals wait for the next tick, as in Pollux's time-stepped simulator

    const Cluster& cluster = view.cluster();
    type_ = elastic_pool_type(cluster);
    per_node_ = gpus_per_node(cluster, type_);
    const auto jobs = active_.jobs();
    counts_.assign(jobs.size(), 0);
    remaining_.assign(jobs.size(), 0);
    gain_.assign(jobs.size(), 0);
    elastic_.assign(jobs.size(), 0);
    const ElasticView* ev = view.elastic();
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        if (!is_elastic(view, jobs[i])) continue;
        elastic_[i] = 1;
        const GoodputProfile& g = *ev->goodput(jobs[i]);
        const int batch = view.job(jobs[i]).batch_size > 0 ? view.job(jobs[i]).batch_size : g.init_batch_size;
        remaining_[i] = remaining_iterations(g, batch, ev->epoch(jobs[i]));
    }

    // Every job its first GPUs in trace order while GPUs remain: an elastic job its minimum (1 unless the
    // trace says more), a rigid job its whole gang (first come, first served).
    int free = cluster.gpus_of_type(type_);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const JobInfo& job = view.job(jobs[i]);
        if (!((job.runnable >> type_) & 1)) continue;
        const int first = elastic_[i] ? job.min_gpus : job.num_gpus;
        if (first > free) continue;
        counts_[i] = first;
        free -= first;
    }
    for (std::size_t i = 0; i < jobs.size(); ++i)
        if (counts_[i] > 0) gain_[i] = gain(view, i, free);
    // Then one GPU at a time to the first largest gain while it is positive.
    while (free > 0) {
        const auto best = static_cast<std::size_t>(std::max_element(gain_.begin(), gain_.end()) - gain_.begin());
        if (!(gain_[best] > 0)) break;
        ++counts_[best];
        --free;
        gain_[best] = gain(view, best, free);
        if (free == 0) break;
    }
    applier_.apply(view, jobs, counts_, type_, true, out);
}

}  // namespace dlsim
