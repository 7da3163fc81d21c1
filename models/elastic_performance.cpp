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
    for (std::size_t m = 0; m < by_model_.size(); ++m) {
        perf_[m].assign(cluster.gpu_types.size(), nullptr);
        if (by_model_[m] == nullptr) continue;
        for (std::size_t t = 0; t < cluster.gpu_types.size(); ++t)
            perf_[m][t] = find_type_entry(by_model_[m]->perf, cluster.gpu_types[t]);
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
    job.epoch = epoch_for(*job.goodput, job.remaining);
    job.point = point_for(job, job.type, job.nodes, job.gpus, job.epoch);
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
    job.point = point_for(job, job.type, job.nodes, job.gpus, job.epoch);
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
