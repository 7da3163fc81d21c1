#pragma once
// Throughput profiles (`dlsim.profile/1`, models/profiles/README.md): per DL model,
// iterations/s on one GPU of each type. 0 or absent means the model cannot run on that type.
#include "models/calibration.hpp"
#include "models/goodput.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dlsim {

struct ModelProfile {
    std::string name;
    std::int64_t params = 0;       ///< parameter count; 0 = not given
    int grad_bytes_per_param = 4;  ///< from grad_dtype: fp32 = 4, fp16/bf16 = 2
    double mem_gb = 0;             ///< 0 = not given
    /// Single-GPU iterations/s by lower-cased GPU type name, as written in the profile.
    std::map<std::string, double> throughput;
    /// Measured aggregate iterations/s on n GPUs, by lower-cased type then n (used by the network model).
    std::map<std::string, std::map<int, double>> throughput_n;
    /// Space sharing: single-GPU iterations/s when co-located with another model on the same GPU, by
    /// lower-cased type then the other model's name: {this model's, the other's}. A pair may be listed
    /// under either model (if under both, the two must mirror each other); see RateModel::pair.
    std::map<std::string, std::map<std::string, std::array<double, 2>>> pairs;
    std::optional<double> gamma;  ///< compute/comm overlap in [1, 10], when the profile gives it
    int local_bsz = 0;            ///< per-GPU batch `throughput` was measured at; 0 = not given
    /// Measured step times per placement (Pollux's placements.csv), in file order.
    std::vector<PlacementPoint> placements;
    /// The iteration-time model's free parameters fitted to `placements` at load time (models/calibration.hpp):
    /// set when the model has params and at least kMinCalibrationPoints points of one GPU type.
    std::optional<CommCalibration> calibration;
    /// The elastic job model (Pollux's goodput), when the profile gives a `goodput` block.
    std::optional<GoodputProfile> goodput;

    /// Gradient bytes per iteration, computed from params and grad_dtype (never stored by hand).
    std::int64_t gradient_bytes() const { return params * grad_bytes_per_param; }
};

/// Fewer points than this leave a model uncalibrated (six free parameters; fewer would be guesswork).
inline constexpr std::size_t kMinCalibrationPoints = 4;

/// How a model communicates: gradient bytes from params × grad_dtype, γ from the profile (else the
/// DDP default of CommModel). The base that calibration fits and predictions use.
CommModel comm_model(const ModelProfile& m);

struct ProfileSet {
    std::string source;
    std::string units = "iterations/s";
    std::vector<ModelProfile> models;  ///< in file order

    std::optional<std::uint32_t> find_model(const std::string& name) const;
    /// True when some model's table names this (lower-cased) GPU type.
    bool names_gpu_type(const std::string& lower_name) const;
};

ProfileSet load_profiles(const std::string& path);
ProfileSet parse_profiles(const std::string& text, const std::string& origin);

}  // namespace dlsim
