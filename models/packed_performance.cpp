#include "models/packed_performance.hpp"

#include "models/base/input_error.hpp"

#include <fmt/format.h>

namespace dlsim {

PackedPerformance::PackedPerformance(PerformanceModel& inner, const RateModel& rates, std::size_t num_jobs)
    : inner_(inner), rates_(rates), jobs_(num_jobs) {}

std::optional<std::array<double, 2>> PackedPerformance::factors(const RateModel& rates, ModelIdx a, ModelIdx b,
                                                                GpuTypeIdx t) {
    const auto pair = rates.pair(a, b, t);
    const double alone_a = rates.single(a, t), alone_b = rates.single(b, t);
    if (!pair || !(alone_a > 0) || !(alone_b > 0)) return std::nullopt;
    return std::array<double, 2>{(*pair)[0] / alone_a, (*pair)[1] / alone_b};
}

void PackedPerformance::allocated(Time now, JobIdx j, ModelIdx model, const Allocation& a,
                                  std::vector<RateChange>& changed) {
    const std::size_t first = changed.size();
    Job& me = job(j);
    me.model = model;
    me.factor = 1;
    if (a.packed()) {
        const auto f = factors(rates_, model, jobs_[a.partner].model, a.gpu_type);  // allocated before j
        if (!f)
            throw InternalError(fmt::format("job {} packed with job {} on GPU type {}, for which the profile has "
                                            "no pair throughput", j, a.partner, a.gpu_type));
        me.factor = (*f)[0];
        jobs_[a.partner].factor = (*f)[1];
    }
    inner_.allocated(now, j, model, a, changed);
    scale(changed, first, a.partner);
}

void PackedPerformance::released(Time now, JobIdx j, const Allocation& a, std::vector<RateChange>& changed) {
    const std::size_t first = changed.size();
    jobs_[j].factor = 1;
    if (a.packed()) jobs_[a.partner].factor = 1;  // alone again
    inner_.released(now, j, a, changed);
    scale(changed, first, a.partner);
}

double PackedPerformance::predicted_rate(ModelIdx model, const Allocation& a) const {
    const double alone = inner_.predicted_rate(model, a);
    if (!a.packed()) return alone;
    const ModelIdx other = a.partner < jobs_.size() ? jobs_[a.partner].model : kNoModel;
    const auto f = factors(rates_, model, other, a.gpu_type);
    return f ? alone * (*f)[0] : 0.0;
}

}  // namespace dlsim
