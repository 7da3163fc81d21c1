#include "models/elastic_performance.hpp"

#include "models/base/input_error.hpp"

#include <fmt/format.h>

namespace dlsim {

ElasticPerformance::ElasticPerformance(PerformanceModel& inner, const Cluster& cluster,
                                       std::vector<const GoodputProfile*> goodput_by_model,
                                       std::vector<ModelIdx> job_model, std::vector<int> job_batch, bool adapt_batch)
    : inner_(inner), cluster_(cluster), by_model_(std::move(goodput_by_model)), adapt_batch_(adapt_batch) {
    if (job_model.size() != job_batch.size())
        throw InternalError(
            fmt::format("elastic model: {} job models for {} batch sizes", job_model.size(), job_batch.size()));
    perf_.resize(by_model_.size());
    measured_.resize(by_model_.size());
    slowdown_.assign(by_model_.size(), 1.0);
    for (std::size_t m = 0; m < by_model_.size(); ++m) {
        perf_[m].assign(cluster.gpu_types.size(), nullptr);
        measured_[m].assign(cluster.gpu_types.size(), nullptr);
        if (by_model_[m] == nullptr) continue;
        for (std::size_t t = 0; t < cluster.gpu_types.size(); ++t) {
            perf_[m][t] = find_type_entry(by_model_[m]->perf, cluster.gpu_types[t]);
            measured_[m][t] = find_type_entry(by_model_[m]->measured, cluster.gpu_types[t]);
        }
    }
    jobs_.resize(job_model.size());
    for (std::size_t j = 0; j < jobs_.size(); ++j) {
        Job& job = jobs_[j];
        job.model = job_model[j];
        job.goodput = job.model < by_model_.size() ? by_model_[job.model] : nullptr;
        job.target_batch = job_batch[j];
        if (job.goodput != nullptr) job.remaining = job.goodput->completion_work();
    }
}

void ElasticPerformance::set_slowdowns(std::vector<double> slowdown_by_model) {
    if (slowdown_by_model.size() != by_model_.size())
        throw InternalError(
            fmt::format("elastic model: {} slowdowns for {} models", slowdown_by_model.size(), by_model_.size()));
    slowdown_ = std::move(slowdown_by_model);
}

void ElasticPerformance::bind(const ProgressSource& progress) {
    progress_ = &progress;
    inner_.bind(progress);
}

const PerfParams* ElasticPerformance::perf(const Job& job, GpuTypeIdx t) const {
    return t < perf_[job.model].size() ? perf_[job.model][t] : nullptr;
}

GoodputPoint ElasticPerformance::point_for(const Job& job, GpuTypeIdx t, int nodes, int gpus, int epoch) const {
    const PerfParams* p = perf(job, t);
    if (p == nullptr || gpus < 1 || nodes < 1) return {};
    const GoodputProfile& g = *job.goodput;
    if (adapt_batch_ && g.fixed_batch_size > 0) return fixed_batch(g, *p, nodes, gpus, g.fixed_batch_size, epoch);
    if (adapt_batch_) return best_batch(g, *p, nodes, gpus, epoch);
    return fixed_batch(g, *p, nodes, gpus, job.target_batch > 0 ? job.target_batch : g.init_batch_size, epoch);
}

std::optional<double> ElasticPerformance::measured_step(const Job& job, GpuTypeIdx t,
                                                        std::span<const int> gpus_per_node, BatchConfig b) const {
    const MeasuredSteps* m = t < measured_[job.model].size() ? measured_[job.model][t] : nullptr;
    if (m == nullptr) return std::nullopt;
    const auto s = m->at(gpus_per_node, b.atomic_bsz);
    if (!s) return std::nullopt;
    return s->step + b.accum_steps * (s->step - s->sync);  // each accumulation step computes without syncing
}

double ElasticPerformance::true_step_seconds(JobIdx j, GpuTypeIdx t, std::span<const int> gpus_per_node,
                                             BatchConfig b) const {
    const Job& job = jobs_[j];
    if (job.goodput == nullptr) return 0;
    if (const auto measured = measured_step(job, t, gpus_per_node, b)) return *measured;
    const PerfParams* p = perf(job, t);
    if (p == nullptr) return 0;
    int nodes = 0, replicas = 0;
    for (const int g : gpus_per_node)
        if (g > 0) ++nodes, replicas += g;
    return step_seconds(*p, nodes, replicas, b);
}

GoodputPoint ElasticPerformance::rated_point(const Job& job) const {
    GoodputPoint point = point_for(job, job.type, job.nodes, job.gpus, job.epoch);
    if (point.goodput <= 0) return point;
    if (const auto measured = measured_step(job, job.type, job.gpus_per_node, point.batch)) {
        point.step_seconds = *measured;
        point.throughput = point.batch_size / point.step_seconds;
        point.goodput = point.throughput * point.efficiency;
    }
    point.goodput /= slowdown_[job.model];
    return point;
}

GoodputPoint ElasticPerformance::predict(JobIdx j, GpuTypeIdx t, int nodes, int gpus) const {
    const Job& job = jobs_[j];
    if (job.goodput == nullptr) return {};
    return point_for(job, t, nodes, gpus, job.epoch);
}

int ElasticPerformance::epoch_for(const GoodputProfile& g, double remaining) {
    int e = 0;
    while (e + 1 < g.max_epochs && remaining <= remaining_at_epoch(g, e + 1)) ++e;
    return e;
}

void ElasticPerformance::book(Job& job, JobIdx j, Time now) {
    const double left = progress_ ? progress_->remaining_work(j) : job.remaining;
    const double done = job.remaining - left;
    if (job.running && done > 0 && job.point.goodput > 0) {
        job.work_done += done;
        job.efficiency_work += done * job.point.efficiency;
        job.time_progressing += done / job.point.goodput;
    }
    job.remaining = left;
    job.rated_at = now;
}

void ElasticPerformance::allocated(Time now, JobIdx j, ModelIdx model, const Allocation& a,
                                   std::vector<RateChange>& changed) {
    Job& job = jobs_[j];
    if (job.goodput == nullptr) {
        inner_.allocated(now, j, model, a, changed);
        return;
    }
    book(job, j, now);
    job.running = true;
    job.type = a.gpu_type;
    job.nodes = static_cast<int>(a.shares.size());
    job.gpus = a.num_gpus();
    job.gpus_per_node.clear();
    for (const NodeShare& s : a.shares) job.gpus_per_node.push_back(s.gpus);
    job.epoch = epoch_for(*job.goodput, job.remaining);
    job.point = rated_point(job);
    changed.push_back({j, job.point.goodput, job.point.batch_size});
}

void ElasticPerformance::released(Time now, JobIdx j, const Allocation& a, std::vector<RateChange>& changed) {
    Job& job = jobs_[j];
    if (job.goodput == nullptr) {
        inner_.released(now, j, a, changed);
        return;
    }
    book(job, j, now);
    job.epoch = epoch_for(*job.goodput, job.remaining);
    job.running = false;
}

RerateWhen ElasticPerformance::rerate_when(JobIdx j) const {
    const Job& job = jobs_[j];
    if (job.goodput == nullptr) return inner_.rerate_when(j);
    if (!job.running) return {};
    // The next epoch boundary strictly ahead (boundaries that coincide are crossed together).
    for (int e = job.epoch + 1; e < job.goodput->max_epochs; ++e) {
        const double at = remaining_at_epoch(*job.goodput, e);
        if (at < job.remaining && at > 0) return {at, kNever};
    }
    return {};
}

void ElasticPerformance::progressed(Time now, JobIdx j, std::vector<RateChange>& changed) {
    Job& job = jobs_[j];
    if (job.goodput == nullptr) {
        inner_.progressed(now, j, changed);
        return;
    }
    book(job, j, now);
    job.epoch = epoch_for(*job.goodput, job.remaining);
    job.point = rated_point(job);
    changed.push_back({j, job.point.goodput, job.point.batch_size});
}

double ElasticPerformance::predicted_rate(ModelIdx model, const Allocation& a) const {
    if (model >= by_model_.size() || by_model_[model] == nullptr) return inner_.predicted_rate(model, a);
    // A placer's question about a model, not a job: its goodput in epoch 0 at its initial batch size.
    Job probe;
    probe.model = model;
    probe.goodput = by_model_[model];
    return point_for(probe, a.gpu_type, static_cast<int>(a.shares.size()), a.num_gpus(), 0).goodput;
}

ElasticJobStats ElasticPerformance::stats(JobIdx j) const {
    const Job& job = jobs_[j];
    ElasticJobStats s;
    if (job.work_done > 0) {
        s.mean_efficiency = job.efficiency_work / job.work_done;
        s.mean_goodput = job.time_progressing > 0 ? job.work_done / job.time_progressing : 0;
    }
    s.last_batch_size = job.point.batch_size;
    return s;
}

}  // namespace dlsim
