#include "models/rate_model.hpp"

namespace dlsim {

namespace {

/// The profile's entry for a cluster type: its name first, then its aliases.
double lookup(const ModelProfile& m, const GpuType& t) {
    auto it = m.throughput.find(lower_ascii(t.name));
    if (it != m.throughput.end()) return it->second;
    for (const auto& a : t.aliases) {
        it = m.throughput.find(lower_ascii(a));
        if (it != m.throughput.end()) return it->second;
    }
    return 0.0;
}

}  // namespace

RateModel::RateModel(const Cluster& cluster, const ProfileSet& profiles)
    : cluster_(&cluster), profiles_(&profiles), num_types_(cluster.gpu_types.size()) {
    table_.resize(profiles.models.size() * num_types_);
    for (std::size_t m = 0; m < profiles.models.size(); ++m)
        for (std::size_t t = 0; t < num_types_; ++t) table_[m * num_types_ + t] = lookup(profiles.models[m], cluster.gpu_types[t]);
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
