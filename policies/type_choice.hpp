#pragma once
// Which GPU type a queue policy gives a job: one type per job (a gang never mixes types);
// `type_order=fastest` by default, `type_order=spec` for heterogeneity-agnostic baselines. Among types
// equally fast for the job (a job without a model runs equally fast everywhere), `type_ties=most_free`
// (default) takes the one with the largest share of its GPUs available, then the most available GPUs,
// then the first in cluster order: model-less work spreads over a heterogeneous cluster in proportion
// to each type's size instead of filling its first type (or its largest, which a count of free GPUs
// alone would favour until it is nearly full). `type_ties=cluster_order` takes the first.
#include "policies/cluster_view.hpp"

#include <optional>
#include <span>
#include <string>

namespace dlsim {

class Params;  // policies/registry.hpp

/// The rule pick_type applies: the fastest type with room (ties: the largest available share of the
/// type's GPUs, then the most available GPUs, then cluster order), the fastest with ties in cluster
/// order, or the first type with room in cluster order.
enum class TypeOrder { Fastest, FastestClusterOrder, Spec };

/// From the parameters `type_order` (fastest|spec) and `type_ties` (most_free|cluster_order).
TypeOrder parse_type_order(const std::string& order, const std::string& ties = "most_free");
/// The same from a policy's resolved parameters (both must be declared: common_params.hpp).
TypeOrder parse_type_order(const Params& p);

/// The type job j would start on, given `available` GPUs per type: among its runnable types with
/// room for its gang, the fastest for its model (ties: see TypeOrder), or the first in cluster order.
std::optional<GpuTypeIdx> pick_type(const ClusterView& view, const JobInfo& j, TypeOrder order,
                                    std::span<const int> available);

/// Whether type a has more room than type b, as type_ties=most_free ranks equally fast types: a larger
/// share of the type's GPUs available (compared exactly), then more GPUs available.
bool more_room(const Cluster& cluster, std::span<const int> available, GpuTypeIdx a, GpuTypeIdx b);

/// Whether pick_type's answer, when the job's fastest type has room, depends on how many GPUs each type
/// has free: true under TypeOrder::Fastest when two or more runnable types share the best rate. A fast
/// path that reasons from "the job's preferred type" must not use it then.
bool choice_depends_on_room(const ClusterView& view, const JobInfo& j, TypeOrder order);

/// The fastest runnable type of a job, ignoring what is free (used to rank by remaining time); ties in
/// cluster order.
GpuTypeIdx fastest_type(const ClusterView& view, const JobInfo& j);

}  // namespace dlsim
