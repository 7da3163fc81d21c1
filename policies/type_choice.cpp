#include "policies/type_choice.hpp"

#include "models/base/input_error.hpp"
#include "policies/registry.hpp"

#include <bit>
#include <cstdint>

namespace dlsim {

TypeOrder parse_type_order(const std::string& order, const std::string& ties) {
    if (ties != "most_free" && ties != "cluster_order")
        throw InputError("parameter type_ties: expected most_free or cluster_order, got '" + ties + "'");
    if (order == "fastest") return ties == "most_free" ? TypeOrder::Fastest : TypeOrder::FastestClusterOrder;
    if (order == "spec") return TypeOrder::Spec;
    throw InputError("parameter type_order: expected fastest or spec, got '" + order + "'");
}

TypeOrder parse_type_order(const Params& p) { return parse_type_order(p.get("type_order"), p.get("type_ties")); }

bool more_room(const Cluster& cluster, std::span<const int> available, GpuTypeIdx a, GpuTypeIdx b) {
    const auto share_a = static_cast<std::int64_t>(available[a]) * cluster.gpus_of_type(b);
    const auto share_b = static_cast<std::int64_t>(available[b]) * cluster.gpus_of_type(a);
    return share_a != share_b ? share_a > share_b : available[a] > available[b];
}

std::optional<GpuTypeIdx> pick_type(const ClusterView& view, const JobInfo& j, TypeOrder order,
                                    std::span<const int> available) {
    std::optional<GpuTypeIdx> best;
    double best_rate = 0;
    for (GpuTypeMask m = j.runnable; m != 0; m &= m - 1) {
        const auto t = static_cast<GpuTypeIdx>(std::countr_zero(m));
        if (available[t] < j.num_gpus) continue;
        if (order == TypeOrder::Spec) return t;
        const double r = view.rates().rate(
            j.model, t, j.num_gpus);  // the gang's rate: measured multi-GPU rates may rank types differently
        // Types are visited in cluster order, so a later type wins a tie only with strictly more room.
        const bool tie_won =
            best && order == TypeOrder::Fastest && r == best_rate && more_room(view.cluster(), available, t, *best);
        if (!best || r > best_rate || tie_won) {
            best = t;
            best_rate = r;
        }
    }
    return best;
}

bool choice_depends_on_room(const ClusterView& view, const JobInfo& j, TypeOrder order) {
    if (order != TypeOrder::Fastest) return false;
    double best_rate = -1;
    int at_best = 0;
    for (GpuTypeMask m = j.runnable; m != 0; m &= m - 1) {
        const auto t = static_cast<GpuTypeIdx>(std::countr_zero(m));
        const double r = view.rates().rate(j.model, t, j.num_gpus);
        if (r > best_rate) {
            best_rate = r;
            at_best = 1;
        } else if (r == best_rate) {
            ++at_best;
        }
    }
    return at_best > 1;
}

GpuTypeIdx fastest_type(const ClusterView& view, const JobInfo& j) {
    GpuTypeIdx best = 0;
    double best_rate = -1;
    for (GpuTypeMask m = j.runnable; m != 0; m &= m - 1) {
        const auto t = static_cast<GpuTypeIdx>(std::countr_zero(m));
        const double r = view.rates().rate(
            j.model, t, j.num_gpus);  // the gang's rate: measured multi-GPU rates may rank types differently
        if (r > best_rate) {
            best = t;
            best_rate = r;
        }
    }
    return best;
}

}  // namespace dlsim
