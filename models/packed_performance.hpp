#pragma once
// Space sharing (Decisions::pack) over any performance model: two jobs packed on the same GPUs each run
// at what the inner model gives them there × their pair factor, the measured co-located single-GPU rate
// ÷ the isolated one on that type (RateModel::pair, from the profile's `pairs`, as Gavel's
// simulator). Over IsolatedPerformance a packed job on one GPU runs exactly at its measured pair rate; on
// n GPUs the one-GPU slowdown is taken to hold on every GPU (n × the pair rate: Gavel's table has
// multi-GPU pair entries, but every one is 0, never measured). The inner model sees both jobs on the
// GPUs (the network model: both rings on the same links). When one leaves, the other's factor goes
// back to 1: the survivor's rate change is reported through `released`, as the interface asks.
#include "models/performance_model.hpp"

#include <array>
#include <optional>
#include <vector>

namespace dlsim {

class PackedPerformance final : public PerformanceModel {
public:
    /// `num_jobs`: jobs are indices below it (more grow the table).
    PackedPerformance(PerformanceModel& inner, const RateModel& rates, std::size_t num_jobs);

    void allocated(Time now, JobIdx j, ModelIdx model, const Allocation& a, std::vector<RateChange>& changed) override;
    void released(Time now, JobIdx j, const Allocation& a, std::vector<RateChange>& changed) override;
    double predicted_rate(ModelIdx model, const Allocation& a) const override;
    void bind(const ProgressSource& progress) override { inner_.bind(progress); }
    RerateWhen rerate_when(JobIdx j) const override { return inner_.rerate_when(j); }
    /// (Packing is for rigid jobs, which the elastic model never re-rates by progress: no factor applies.)
    void progressed(Time now, JobIdx j, std::vector<RateChange>& changed) override {
        const std::size_t first = changed.size();
        inner_.progressed(now, j, changed);
        scale(changed, first, kNoPartner);
    }

    /// The pair factors of `a` and `b` co-located on type t: {a's, b's} rate ÷ its rate alone; nullopt
    /// when the profile has no pair for them there (or either cannot run there alone).
    static std::optional<std::array<double, 2>> factors(const RateModel& rates, ModelIdx a, ModelIdx b, GpuTypeIdx t);

private:
    struct Job {
        ModelIdx model = kNoModel;
        double inner = 0;   // the inner model's last rate for it
        double factor = 1;  // its pair factor while packed, else 1
    };
    Job& job(JobIdx j) {
        if (j >= jobs_.size()) jobs_.resize(static_cast<std::size_t>(j) + 1);
        return jobs_[j];
    }
    /// Scales changed[first..] by their factors (recording the inner rates), then reports `also` at its
    /// current rate unless the inner model already did (kNoPartner: nobody). Every job there was
    /// allocated through this model before (it is in jobs_).
    void scale(std::vector<RateChange>& changed, std::size_t first, JobIdx also) {
        bool reported = also == kNoPartner;
        for (std::size_t i = first; i < changed.size(); ++i) {
            Job& x = jobs_[changed[i].job];
            x.inner = changed[i].rate;
            changed[i].rate *= x.factor;
            reported = reported || changed[i].job == also;
        }
        if (!reported) changed.push_back({also, jobs_[also].inner * jobs_[also].factor});
    }

    PerformanceModel& inner_;
    const RateModel& rates_;
    std::vector<Job> jobs_;
};

}  // namespace dlsim
