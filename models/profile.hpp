#pragma once
// Throughput profiles (DESIGN.md "Inputs", `dlsim.profile/1`): per DL model, iterations/s on one GPU
// of each type. 0 or absent means the model cannot run on that type.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dlsim {

struct ModelProfile {
    std::string name;
    std::int64_t params = 0;          ///< parameter count; 0 = not given
    int grad_bytes_per_param = 4;     ///< from grad_dtype: fp32 = 4, fp16/bf16 = 2
    double mem_gb = 0;                ///< 0 = not given
    /// Single-GPU iterations/s by lower-cased GPU type name, as written in the profile.
    std::map<std::string, double> throughput;
    /// Measured aggregate iterations/s on n GPUs, by lower-cased type then n (used by the network model).
    std::map<std::string, std::map<int, double>> throughput_n;

    /// Gradient bytes per iteration, computed from params and grad_dtype (never stored by hand).
    std::int64_t gradient_bytes() const { return params * grad_bytes_per_param; }
};

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
