#include "policies/elastic/gavel_tj.hpp"

#include "models/base/input_error.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>
#include <string>

namespace dlsim {

namespace {

ShareOptions gavel_tj_lp_options() {
    ShareOptions o;
    o.objective = ShareObjective::MaxThroughput;
    o.view = ThroughputView::Aware;
    return o;
}

}  // namespace

GavelTjPolicy::GavelTjPolicy(Options o) : o_(std::move(o)), lp_(gavel_tj_lp_options()) {}

void GavelTjPolicy::setup(const ClusterView& view) {
    const Cluster& cluster = view.cluster();
    types_ = cluster.gpu_types.size();
    gpus_of_type_.assign(types_, {});
    for (const Node& n : cluster.nodes)
        for (int g = 0; g < n.gpus; ++g) gpus_of_type_[n.gpu_type].push_back(n.first_gpu + static_cast<GpuIdx>(g));
    cluster_time_.assign(types_, 0.0);
    input_.capacities.resize(types_);
    for (GpuTypeIdx t = 0; t < types_; ++t) input_.capacities[t] = cluster.gpus_of_type(t);
    std::size_t total = 0;
    for (const auto& list : gpus_of_type_) total += list.size();
    taken_.assign(total, 0);
    ready_ = true;
}

double GavelTjPolicy::throughput(const ClusterView& view, JobIdx j, GpuTypeIdx t) const {
    const JobInfo& info = view.job(j);
    const Cluster& cluster = view.cluster();
    const int n = info.num_gpus;
    if (!((info.runnable >> t) & 1) || n < 1 || n > cluster.gpus_of_type(t)) return 0;
    const ElasticView* elastic = view.elastic();
    if (elastic != nullptr && elastic->goodput(j) != nullptr) {
        // The harness's estimate: steps/s on the gang filled node by node, at the job's fixed batch size.
        const GoodputPoint p = elastic->predict(j, t, nodes_for(n, gpus_per_node(cluster, t)), n);
        if (!(p.step_seconds > 0)) return 0;
        return (o_.calibrate ? 1 / elastic->slowdown(j) : 1.0) / p.step_seconds;
    }
    return info.model != kNoModel ? view.rates().rate(info.model, t, n) : 1.0;
}

void GavelTjPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    if (!ready_) setup(view);
    active_.update(view, changes);
    for (JobIdx j : changes.finished)
        if (j < held_.size()) held_[j].clear();
    // Decisions only at the interval's multiples: the harness steps the cluster in whole rounds.
    if (!interval_tick(view, changes, o_.interval, !active_.empty(), out)) return;
    allocate(view);
    walk_and_place(view, out);
}

void GavelTjPolicy::allocate(const ClusterView& view) {
    const double half_round = o_.interval / 2;
    input_.clear_jobs();
    input_jobs_.assign(active_.jobs().begin(), active_.jobs().end());
    for (JobIdx j : input_jobs_) {
        if (job_time_.size() < (static_cast<std::size_t>(j) + 1) * types_)
            job_time_.resize((static_cast<std::size_t>(j) + 1) * types_, -1.0);
        if (job_time_[j * types_] < 0)  // first seen: τ/2 on every type, counted in the types' sums too
            for (std::size_t t = 0; t < types_; ++t) {
                job_time_[j * types_ + t] = half_round;
                cluster_time_[t] += half_round;
            }
        input_.jobs.push_back({.key = j, .gang = view.job(j).num_gpus});
        for (GpuTypeIdx t = 0; t < types_; ++t) input_.throughputs.push_back(throughput(view, j, t));
    }
    const std::size_t n = input_jobs_.size();
    x_.assign(n * types_, 0.0);
    if (n == 0) return;
    const ShareResult& r = lp_.solve(input_);
    std::copy(r.x.begin(), r.x.end(), x_.begin());

    // Identical jobs (same gang, same throughputs everywhere) share equally: their mean is optimal too.
    auto row = [&](std::size_t i) { return input_.throughputs.begin() + static_cast<std::ptrdiff_t>(i * types_); };
    auto less = [&](std::size_t a, std::size_t b) {
        if (input_.jobs[a].gang != input_.jobs[b].gang) return input_.jobs[a].gang < input_.jobs[b].gang;
        return std::lexicographical_compare(row(a), row(a) + static_cast<std::ptrdiff_t>(types_), row(b),
                                            row(b) + static_cast<std::ptrdiff_t>(types_));
    };
    order_.resize(n);
    std::iota(order_.begin(), order_.end(), std::size_t{0});
    std::stable_sort(order_.begin(), order_.end(), less);
    for (std::size_t lo = 0; lo < n;) {
        std::size_t hi = lo + 1;
        while (hi < n && !less(order_[lo], order_[hi])) ++hi;
        if (hi - lo > 1)
            for (std::size_t t = 0; t < types_; ++t) {
                double sum = 0;
                for (std::size_t k = lo; k < hi; ++k) sum += x_[order_[k] * types_ + t];
                const double mean = sum / static_cast<double>(hi - lo);
                for (std::size_t k = lo; k < hi; ++k) x_[order_[k] * types_ + t] = mean;
            }
        lo = hi;
    }
    // The artifact rounds the solver's answer to 5 decimals and clips it to [0, 1].
    for (double& v : x_) v = std::clamp(std::round(v * 1e5) / 1e5, 0.0, 1.0);
}

void GavelTjPolicy::walk_and_place(const ClusterView& view, Decisions& out) {
    const std::size_t n = input_jobs_.size();
    if (n > 0 && held_.size() <= input_jobs_.back()) held_.resize(static_cast<std::size_t>(input_jobs_.back()) + 1);

    entries_.clear();
    for (GpuTypeIdx t = 0; t < types_; ++t)
        for (std::size_t i = 0; i < n; ++i) {
            const double x = x_[i * types_ + t];
            const double f = job_time_[input_jobs_[i] * types_ + t] / cluster_time_[t];
            entries_.push_back({x > 0 ? x / f : 0.0, x, t * n + i, i, t});
        }
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
        if (a.priority != b.priority) return a.priority > b.priority;
        if (a.x != b.x) return a.x > b.x;
        return a.rank < b.rank;
    });
    gpus_left_.resize(types_);
    for (GpuTypeIdx t = 0; t < types_; ++t) gpus_left_[t] = view.cluster().gpus_of_type(t);
    chosen_type_.assign(n, -1);
    on_type_.clear();
    for (const Entry& e : entries_) {
        const int gang = input_.jobs[e.job].gang;
        if (gpus_left_[e.type] == 0 || chosen_type_[e.job] >= 0) continue;
        if (input_.throughput(e.job, e.type) <= 0 || gang > gpus_left_[e.type]) continue;
        gpus_left_[e.type] -= gang;
        chosen_type_[e.job] = static_cast<int>(e.type);
        on_type_.push_back(e.job);  // walk order
    }

    // GPUs per type: by decreasing gang (walk order among equals); a job keeps its GPUs when none is taken
    // yet, the others take the lowest free GPUs in node order from a cursor that only moves forward.
    std::fill(taken_.begin(), taken_.end(), 0);
    next_.resize(n);
    for (auto& v : next_) v.clear();
    std::stable_sort(on_type_.begin(), on_type_.end(),
                     [&](std::size_t a, std::size_t b) { return input_.jobs[a].gang > input_.jobs[b].gang; });
    for (GpuTypeIdx t = 0; t < types_; ++t) {
        const std::vector<GpuIdx>& gpus = gpus_of_type_[t];
        std::size_t cursor = 0;
        for (std::size_t lo = 0; lo < on_type_.size();) {
            const int gang = input_.jobs[on_type_[lo]].gang;
            std::size_t hi = lo;
            while (hi < on_type_.size() && input_.jobs[on_type_[hi]].gang == gang) ++hi;
            for (std::size_t k = lo; k < hi; ++k) {
                const std::size_t i = on_type_[k];
                const JobIdx j = input_jobs_[i];
                if (chosen_type_[i] != static_cast<int>(t) || held_[j].empty() ||
                    view.job(j).state != JobState::Running || view.job(j).gpu_type != t)
                    continue;
                if (std::any_of(held_[j].begin(), held_[j].end(), [&](GpuIdx g) { return taken_[g] != 0; })) continue;
                next_[i] = held_[j];
                for (GpuIdx g : held_[j]) taken_[g] = 1;
            }
            for (std::size_t k = lo; k < hi; ++k) {
                const std::size_t i = on_type_[k];
                if (chosen_type_[i] != static_cast<int>(t) || !next_[i].empty()) continue;
                while (static_cast<int>(next_[i].size()) < gang && cursor < gpus.size()) {
                    const GpuIdx g = gpus[cursor++];
                    if (taken_[g]) continue;
                    taken_[g] = 1;
                    next_[i].push_back(g);
                }
                if (static_cast<int>(next_[i].size()) != gang)
                    throw InternalError("gavel-tj: a gang the walk admitted found no GPUs");
            }
            lo = hi;
        }
    }

    // The wish, in walk order of priority; unchanged nodes keep running, the rest restart.
    desired_.clear();
    const Cluster& cluster = view.cluster();
    for (const Entry& e : entries_) {
        const std::size_t i = e.job;
        if (chosen_type_[i] != static_cast<int>(e.type)) continue;
        const JobIdx j = input_jobs_[i];
        std::sort(next_[i].begin(), next_[i].end());
        shares_.clear();
        for (GpuIdx g : next_[i]) {
            const NodeIdx node = cluster.node_of_gpu(g);
            if (shares_.empty() || shares_.back().node != node) shares_.push_back({node, 0});
            ++shares_.back().gpus;
        }
        desired_.want(j, e.type, input_.jobs[i].gang, shares_);
    }
    desired_.emit(view, out);

    // The rounds' bookkeeping: the time each job will have run on its type once this round ends.
    for (std::size_t i = 0; i < n; ++i) {
        const JobIdx j = input_jobs_[i];
        held_[j] = next_[i];
        if (chosen_type_[i] < 0) continue;
        const auto t = static_cast<std::size_t>(chosen_type_[i]);
        job_time_[j * types_ + t] += o_.interval;
        cluster_time_[t] += o_.interval;
    }
}

}  // namespace dlsim
