#include "models/rate_model.hpp"

#include <algorithm>

namespace dlsim {

RateModel::RateModel(const Cluster& cluster, const ProfileSet& profiles, MultiGpuRate mode)
    : cluster_(&cluster), profiles_(&profiles), num_types_(cluster.gpu_types.size()), mode_(mode) {
    table_.resize(profiles.models.size() * num_types_);
    for (std::size_t m = 0; m < profiles.models.size(); ++m)
        for (std::size_t t = 0; t < num_types_; ++t) {
            const double* x = find_type_entry(profiles.models[m].throughput, cluster.gpu_types[t]);
            table_[m * num_types_ + t] = x ? *x : 0.0;
        }
    for (ModelIdx m = 0; m < profiles.models.size(); ++m)
        for (GpuTypeIdx t = 0; t < num_types_; ++t) {
            const auto* others = find_type_entry(profiles.models[m].pairs, cluster.gpu_types[t]);
            if (others == nullptr) continue;
            for (const auto& [name, r] : *others) {
                const ModelIdx o = *profiles.find_model(name);  // checked when the profile was read
                pairs_.push_back({m, o, t, r});
                pairs_.push_back({o, m, t, {r[1], r[0]}});
            }
        }
    std::sort(pairs_.begin(), pairs_.end(), [](const PairEntry& x, const PairEntry& y) { return x.key() < y.key(); });
    // A pair listed under both models (mirrored, as the loader checks) appears twice in each order.
    pairs_.erase(std::unique(pairs_.begin(), pairs_.end(),
                             [](const PairEntry& x, const PairEntry& y) { return x.key() == y.key(); }),
                 pairs_.end());
    if (mode_ != MultiGpuRate::Measured) return;
    points_.resize(table_.size());
    for (std::size_t m = 0; m < profiles.models.size(); ++m)
        for (std::size_t t = 0; t < num_types_; ++t) {
            const auto* by_n = find_type_entry(profiles.models[m].throughput_n, cluster.gpu_types[t]);
            if (!by_n) continue;
            for (const auto& [n, x] : *by_n)  // a std::map: ascending n
                if (x > 0) points_[m * num_types_ + t].emplace_back(n, x);
        }
}

double RateModel::measured_rate(ModelIdx m, GpuTypeIdx t, int n) const {
    for (const auto& [points_n, x] : points_[m * num_types_ + t])
        if (points_n == n) return x;
    return n * single(m, t);  // not measured at this size: the linear rate
}

std::optional<std::array<double, 2>> RateModel::pair(ModelIdx a, ModelIdx b, GpuTypeIdx t) const {
    if (a == kNoModel || b == kNoModel) return std::nullopt;
    const auto key = std::tuple(a, b, t);
    const auto it = std::lower_bound(pairs_.begin(), pairs_.end(), key,
                                     [](const PairEntry& e, const auto& k) { return e.key() < k; });
    if (it == pairs_.end() || it->key() != key) return std::nullopt;
    return it->rates;
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

std::optional<double> RateModel::measured_by_name(ModelIdx m, std::string_view type_name, int n) const {
    if (mode_ != MultiGpuRate::Measured || m == kNoModel || n == 1) return std::nullopt;
    if (auto t = cluster_->find_gpu_type(type_name)) {
        for (const auto& [points_n, x] : points_[m * num_types_ + *t])
            if (points_n == n) return x;
        return std::nullopt;
    }
    const auto& by_type = profiles_->models[m].throughput_n;
    auto it = by_type.find(lower_ascii(type_name));
    if (it == by_type.end()) return std::nullopt;
    auto x = it->second.find(n);
    if (x == it->second.end() || !(x->second > 0)) return std::nullopt;
    return x->second;
}

}  // namespace dlsim
