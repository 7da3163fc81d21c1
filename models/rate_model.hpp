#pragma once
// Job speed (MODELLING.md §1): iterations/s of a model on n GPUs of a cluster GPU type.
// Until the network model lands, n GPUs run n times the single-GPU rate.
#include "models/cluster.hpp"
#include "models/profile.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

namespace dlsim {

using ModelIdx = std::uint32_t;
/// A job without a model runs at 1 unit/s per GPU on every type.
inline constexpr ModelIdx kNoModel = UINT32_MAX;

class RateModel {
public:
    RateModel(const Cluster& cluster, const ProfileSet& profiles);

    /// Single-GPU iterations/s on a cluster type; 0 = cannot run there.
    double single(ModelIdx m, GpuTypeIdx t) const { return m == kNoModel ? 1.0 : table_[m * num_types_ + t]; }
    /// Aggregate iterations/s on n GPUs of one type.
    double rate(ModelIdx m, GpuTypeIdx t, int n) const { return n * single(m, t); }
    /// Single-GPU rate on a type named in a trace: a cluster type (or alias) or a type only the profile
    /// lists. nullopt when neither the cluster nor the profile knows the name.
    std::optional<double> single_by_name(ModelIdx m, std::string_view type_name) const;

    /// Space sharing: the single-GPU rates of `a` and `b` co-located on one GPU of type t, {a's, b's},
    /// from the profile's `pairs` (listed under either model); nullopt when the pair was not measured there.
    std::optional<std::array<double, 2>> pair(ModelIdx a, ModelIdx b, GpuTypeIdx t) const;
    /// Whether the profile measured any pair (policies skip looking for partners otherwise).
    bool has_pairs() const { return !pairs_.empty(); }

private:
    struct PairEntry {
        ModelIdx a, b;
        GpuTypeIdx t;
        std::array<double, 2> rates;  // a's, b's
        auto key() const { return std::tuple(a, b, t); }
    };

    const Cluster* cluster_;
    const ProfileSet* profiles_;
    std::size_t num_types_;
    std::vector<double> table_;  ///< model-major: table_[m * num_types_ + t]
    std::vector<PairEntry> pairs_;  ///< both orders of every measured pair, sorted by (a, b, t)
};

}  // namespace dlsim
