#include "models/rate_model.hpp"

namespace dlsim {

RateModel::RateModel(const Cluster& cluster, const ProfileSet& profiles)
    : cluster_(&cluster), profiles_(&profiles), num_types_(cluster.gpu_types.size()) {
    table_.resize(profiles.models.size() * num_types_);
    for (std::size_t m = 0; m < profiles.models.size(); ++m)
        for (std::size_t t = 0; t < num_types_; ++t) {
            const double* x = find_type_entry(profiles.models[m].throughput, cluster.gpu_types[t]);
            table_[m * num_types_ + t] = x ? *x : 0.0;
        }
}

std::optional<double> RateModel::single_by_name(ModelIdx m, std::string_view type_name) const {
    if (auto t = cluster_->find_gpu_type(type_name)) return single(m, *t);
    const std::string key = lower_ascii(type_name);
    if (m == kNoModel) {
        if (profiles_->names_gpu_type(key)) return 1.0;
        return std::nullopt;
    }
    const auto& thr = profiles_->models[m].throughput;
    auto it = thr.find(key);
    if (it != thr.end()) return it->second;
    if (profiles_->names_gpu_type(key)) return 0.0;  // a known type this model cannot run on
    return std::nullopt;
}

}  // namespace dlsim
