#pragma once
// The elastic job model in a run (models/README.md, "Elastic jobs"): a job whose model has goodput data
// progresses at its goodput (samples at M0 per second) on its allocation, with its batch size chosen per
// allocation (Pollux) or kept at the trace's; its rate changes when its allocation does and at each epoch
// boundary, where its gradient statistics change (PerformanceModel::rerate_when). Every other job is
// rated by the inner model, untouched. Elastic jobs do not take part in the inner model's network
// contention: their step times are the measured ones of their application (Pollux's and Sia's
// simulators model no interference either).
//
// As in those simulators, the batch size is chosen with the fitted step-time model (what the job's
// scheduler believes) while the job progresses at its measured step times where the profile has them
// (models/measured_steps.hpp; the fitted model elsewhere), divided by its model's calibration slowdown.
#include "models/elastic_view.hpp"
#include "models/performance_model.hpp"

#include <optional>
#include <span>
#include <vector>

namespace dlsim {

/// What a job with goodput data did over its run (for the job records).
struct ElasticJobStats {
    double mean_goodput = 0;     ///< samples at M0 per second of progress (work ÷ time making progress)
    double mean_efficiency = 0;  ///< statistical efficiency, weighted by the work done at it
    int last_batch_size = 0;
};

class ElasticPerformance final : public PerformanceModel, public ElasticView {
public:
    /// `goodput_by_model[m]`: model m's data (nullptr: rigid, rated by `inner`); `job_model[j]`,
    /// `job_batch[j]`: each job's model and trace batch size (0: its application's M0).
    ElasticPerformance(PerformanceModel& inner, const Cluster& cluster,
                       std::vector<const GoodputProfile*> goodput_by_model, std::vector<ModelIdx> job_model,
                       std::vector<int> job_batch, bool adapt_batch);
    /// Calibration: model m's jobs progress `slowdown_by_model[m]` times slower than measured (1: as measured;
    /// Sia's simulator slows each application by a factor fitted to its physical cluster).
    void set_slowdowns(std::vector<double> slowdown_by_model);

    // PerformanceModel
    void allocated(Time now, JobIdx j, ModelIdx model, const Allocation& a, std::vector<RateChange>& changed) override;
    void released(Time now, JobIdx j, const Allocation& a, std::vector<RateChange>& changed) override;
    double predicted_rate(ModelIdx model, const Allocation& a) const override;
    void bind(const ProgressSource& progress) override;
    RerateWhen rerate_when(JobIdx j) const override;
    void progressed(Time now, JobIdx j, std::vector<RateChange>& changed) override;

    // ElasticView
    const GoodputProfile* goodput(JobIdx j) const override { return jobs_[j].goodput; }
    int epoch(JobIdx j) const override { return jobs_[j].epoch; }
    bool adapts_batch() const override { return adapt_batch_; }
    GoodputPoint predict(JobIdx j, GpuTypeIdx t, int nodes, int gpus) const override;
    double true_step_seconds(JobIdx j, GpuTypeIdx t, std::span<const int> gpus_per_node, BatchConfig b) const override;
    double slowdown(JobIdx j) const override { return jobs_[j].goodput != nullptr ? slowdown_[jobs_[j].model] : 1.0; }

    /// True when job j has goodput data (its work is in samples at M0).
    bool is_elastic(JobIdx j) const { return jobs_[j].goodput != nullptr; }
    ElasticJobStats stats(JobIdx j) const;

private:
    struct Job {
        const GoodputProfile* goodput = nullptr;
        ModelIdx model = kNoModel;
        int target_batch = 0;
        int epoch = 0;
        bool running = false;
        GpuTypeIdx type = 0;
        int nodes = 0, gpus = 0;
        std::vector<int> gpus_per_node;  // of the allocation, in placement order
        GoodputPoint point;              // the rate the engine has, measured and calibrated
        double remaining = 0;            // work left when `point` began
        // Work done and efficiency × work, over the whole run (mean_efficiency).
        double work_done = 0, efficiency_work = 0;
        double time_progressing = 0;  // s spent making progress (for mean_goodput)
        Time rated_at = 0;
    };
    const PerfParams* perf(const Job& job, GpuTypeIdx t) const;
    GoodputPoint point_for(const Job& job, GpuTypeIdx t, int nodes, int gpus, int epoch) const;
    /// The point the job progresses at on its allocation: point_for's batch choice at its true step time.
    GoodputPoint rated_point(const Job& job) const;
    /// Seconds per step with split b on this placement of type t, measured; nullopt where not measured.
    std::optional<double> measured_step(const Job& job, GpuTypeIdx t, std::span<const int> gpus_per_node,
                                        BatchConfig b) const;
    /// Books the work done since the job's last rating at `now`.
    void book(Job& job, JobIdx j, Time now);
    /// Epoch after `remaining` work is left: how many epoch boundaries lie at or above it.
    static int epoch_for(const GoodputProfile& g, double remaining);
    /// The remaining work at which epoch e begins.
    static double remaining_at_epoch(const GoodputProfile& g, int e) { return g.completion_work() - g.epoch_start(e); }

    PerformanceModel& inner_;
    const Cluster& cluster_;
    std::vector<const GoodputProfile*> by_model_;
    std::vector<std::vector<const PerfParams*>> perf_;         // [model][type]
    std::vector<std::vector<const MeasuredSteps*>> measured_;  // [model][type]
    std::vector<double> slowdown_;                             // [model]
    std::vector<Job> jobs_;
    bool adapt_batch_;
    const ProgressSource* progress_ = nullptr;
};

}  // namespace dlsim
