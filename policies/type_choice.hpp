#pragma once
// Which GPU type a queue policy gives a job: one type per job (a gang never mixes types);
// `type_order=fastest` by default, `type_order=spec` for heterogeneity-agnostic baselines.
#include "policies/cluster_view.hpp"

#include <optional>
#include <span>
#include <string>

namespace dlsim {

enum class TypeOrder { Fastest, Spec };

TypeOrder parse_type_order(const std::string& value);

/// The type job j would start on, given `available` GPUs per type: among its runnable types with
/// room for its gang, the fastest for its model (ties: cluster order), or the first in cluster order.
std::optional<GpuTypeIdx> pick_type(const ClusterView& view, const JobInfo& j, TypeOrder order,
                                    std::span<const int> available);

/// The fastest runnable type of a job, ignoring what is free (used to rank by remaining time).
GpuTypeIdx fastest_type(const ClusterView& view, const JobInfo& j);

}  // namespace dlsim
