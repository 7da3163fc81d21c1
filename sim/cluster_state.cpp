#include "sim/cluster_state.hpp"

#include "models/base/input_error.hpp"

#include <fmt/format.h>

#include <bit>

namespace dlsim {

ClusterState::ClusterState(const Cluster& c)
    : cluster_(c),
      holder_(2 * c.num_gpus(), kFree),
      next_(2 * c.num_gpus(), kNoGpu),
      free_on_node_(c.nodes.size(), 0),
      free_by_type_(c.gpu_types.size(), 0),
      local_(c.nodes.size(), 0),
      nodes_of_type_(c.gpu_types.size()),
      by_free_(c.gpu_types.size()) {
    for (NodeIdx n = 0; n < c.nodes.size(); ++n) {
        auto& list = nodes_of_type_[c.nodes[n].gpu_type];
        local_[n] = static_cast<std::uint32_t>(list.size());
        list.push_back(n);
    }
    for (GpuTypeIdx t = 0; t < c.gpu_types.size(); ++t) {
        const std::size_t words = (nodes_of_type_[t].size() + 63) / 64;
        by_free_[t].assign(static_cast<std::size_t>(c.max_node_gpus(t)) + 1, std::vector<std::uint64_t>(words, 0));
    }
    for (NodeIdx n = 0; n < c.nodes.size(); ++n) {
        const auto t = c.nodes[n].gpu_type;
        free_on_node_[n] = c.nodes[n].gpus;
        free_by_type_[t] += c.nodes[n].gpus;
        by_free_[t][c.nodes[n].gpus][local_[n] / 64] |= std::uint64_t{1} << (local_[n] % 64);
    }
}

NodeIdx ClusterState::node_with_free(GpuTypeIdx t, int k) const {
    if (k < 0 || static_cast<std::size_t>(k) >= by_free_[t].size()) return kNoNode;
    const auto& bits = by_free_[t][k];
    for (std::size_t w = 0; w < bits.size(); ++w)
        if (bits[w] != 0) return nodes_of_type_[t][w * 64 + static_cast<std::size_t>(std::countr_zero(bits[w]))];
    return kNoNode;
}

void ClusterState::set_free(NodeIdx n, int free) {
    const auto t = cluster_.nodes[n].gpu_type;
    const std::uint32_t l = local_[n];
    const std::uint64_t bit = std::uint64_t{1} << (l % 64);
    by_free_[t][free_on_node_[n]][l / 64] &= ~bit;
    by_free_[t][free][l / 64] |= bit;
    free_by_type_[t] += free - free_on_node_[n];
    free_on_node_[n] = free;
}

void ClusterState::allocate(NodeIdx node, int count, JobIdx j, GpuIdx& head) {
    if (count < 1 || count > free_on_node_[node])
        throw InternalError(
            fmt::format("placement asked for {} GPUs on node {} which has {} free", count, node, free_on_node_[node]));
    const Node& nd = cluster_.nodes[node];
    int taken = 0;
    for (GpuIdx g = nd.first_gpu; g < nd.first_gpu + static_cast<GpuIdx>(nd.gpus) && taken < count; ++g) {
        if (holder_[2 * g] != kFree || holder_[2 * g + 1] != kFree) continue;
        holder_[2 * g] = j;
        next_[2 * g] = head;
        head = g;
        ++taken;
    }
    if (taken != count)
        throw InternalError(
            fmt::format("node {} free count says {} but only {} GPUs are unowned", node, free_on_node_[node], taken));
    set_free(node, free_on_node_[node] - count);
}

std::size_t ClusterState::slot_of(GpuIdx g, JobIdx j, const char* what) const {
    if (holder_[2 * g] == j) return 2 * g;
    if (holder_[2 * g + 1] == j) return 2 * g + 1;
    throw InternalError(fmt::format("GPU {} {} job {} but held by {} and {}", g, what, j,
                                    static_cast<std::int64_t>(holder_[2 * g] == kFree ? -1 : holder_[2 * g]),
                                    static_cast<std::int64_t>(holder_[2 * g + 1] == kFree ? -1 : holder_[2 * g + 1])));
}

void ClusterState::share(GpuIdx partner_head, JobIdx partner, JobIdx j, GpuIdx& head) {
    for (GpuIdx g = partner_head; g != kNoGpu;) {
        const std::size_t mine = slot_of(g, partner, "shared with");
        const std::size_t other = mine ^ 1;
        if (holder_[other] != kFree)
            throw InternalError(
                fmt::format("GPU {} shared with job {} by job {} but job {} holds it already: "
                            "more than two holders",
                            g, partner, j, holder_[other]));
        holder_[other] = j;
        next_[other] = head;
        head = g;
        g = next_[mine];
    }
}

int ClusterState::release(GpuIdx head, JobIdx j) {
    int count = 0;
    for (GpuIdx g = head; g != kNoGpu;) {
        const std::size_t mine = slot_of(g, j, "released by");
        holder_[mine] = kFree;
        if (holder_[mine ^ 1] == kFree) {  // nobody left on it
            const NodeIdx n = cluster_.node_of_gpu(g);
            set_free(n, free_on_node_[n] + 1);
        }
        const GpuIdx next = next_[mine];
        next_[mine] = kNoGpu;
        g = next;
        ++count;
    }
    return count;
}

void ClusterState::append_chain(GpuIdx head, JobIdx j, std::vector<GpuIdx>& out) const {
    for (GpuIdx g = head; g != kNoGpu; g = next_[slot_of(g, j, "listed for")]) out.push_back(g);
}

std::size_t ClusterState::held() const {
    std::size_t n = 0;
    for (GpuIdx g = 0; 2 * g < holder_.size(); ++g) n += holders(g) != 0;
    return n;
}

}  // namespace dlsim
