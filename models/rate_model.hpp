#pragma once
// Job speed (models/README.md): iterations/s of a model on n GPUs of a cluster GPU type.
// Two ways to rate n GPUs: `Linear` (the default) runs them at n times the single-GPU rate, and the network
// model adds what communication costs; `Measured` (the Gavel-compatible mode) takes the
// profile's measured aggregate `throughput_n` for (type, n) as the job's whole rate, communication included,
// as Gavel's simulator does (its thr[(model, scale_factor)]), and n times the single rate where no point
// was measured for that type and n.
#include "models/cluster.hpp"
#include "models/profile.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace dlsim {

using ModelIdx = std::uint32_t;
/// A job without a model runs at 1 unit/s per GPU on every type.
inline constexpr ModelIdx kNoModel = UINT32_MAX;

/// How n GPUs of one type are rated (see the header comment).
enum class MultiGpuRate : std::uint8_t { Linear, Measured };

class RateModel {
public:
    RateModel(const Cluster& cluster, const ProfileSet& profiles, MultiGpuRate mode = MultiGpuRate::Linear);

    /// Single-GPU iterations/s on a cluster type; 0 = cannot run there.
    double single(ModelIdx m, GpuTypeIdx t) const { return m == kNoModel ? 1.0 : table_[m * num_types_ + t]; }
    /// Aggregate iterations/s on n GPUs of one type.
    double rate(ModelIdx m, GpuTypeIdx t, int n) const {
        if (mode_ == MultiGpuRate::Linear || m == kNoModel || n == 1) return n * single(m, t);
        return measured_rate(m, t, n);
    }
    /// True in the measured mode: rate() already includes communication, so nothing may slow it further.
    bool measured() const { return mode_ == MultiGpuRate::Measured; }
    /// Single-GPU rate on a type named in a trace: a cluster type (or alias) or a type only the profile
    /// lists. nullopt when neither the cluster nor the profile knows the name.
    std::optional<double> single_by_name(ModelIdx m, std::string_view type_name) const;
    /// In the measured mode, the profile's measured aggregate rate of model m on n GPUs of a type named in a
    /// trace (a cluster type, alias, or a type only the profile lists); nullopt when none was measured (or
    /// in the linear mode).
    std::optional<double> measured_by_name(ModelIdx m, std::string_view type_name, int n) const;

    /// Space sharing: the single-GPU rates of `a` and `b` co-located on one GPU of type t, {a's, b's},
    /// from the profile's `pairs` (listed under either model); nullopt when the pair was not measured there.
    std::optional<std::array<double, 2>> pair(ModelIdx a, ModelIdx b, GpuTypeIdx t) const;
    /// Whether the profile measured any pair (policies skip looking for partners otherwise).
    bool has_pairs() const { return !pairs_.empty(); }

private:
    double measured_rate(ModelIdx m, GpuTypeIdx t, int n) const;
    struct PairEntry {
        ModelIdx a, b;
        GpuTypeIdx t;
        std::array<double, 2> rates;  // a's, b's
        auto key() const { return std::tuple(a, b, t); }
    };

    const Cluster* cluster_;
    const ProfileSet* profiles_;
    std::size_t num_types_;
    MultiGpuRate mode_;
    std::vector<double> table_;  ///< model-major: table_[m * num_types_ + t]
    /// Measured mode: (n, aggregate rate) points per model and type, model-major, ascending n (a handful).
    std::vector<std::vector<std::pair<int, double>>> points_;
    std::vector<PairEntry> pairs_;  ///< both orders of every measured pair, sorted by (a, b, t)
};

}  // namespace dlsim
