#pragma once
// The cluster spec (`dlsim.cluster/1`, models/clusters/README.md): GPU types, node types, racks, and the
// nodes they expand into, and the network fields (models/network_spec.hpp) the topology is built from.
#include "models/network_spec.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

using GpuTypeIdx = std::uint32_t;
using NodeIdx = std::uint32_t;
using GpuIdx = std::uint32_t;

/// At most this many GPU types, so a set of types fits one 64-bit mask.
inline constexpr std::size_t kMaxGpuTypes = 64;
using GpuTypeMask = std::uint64_t;

struct GpuType {
    std::string name;
    std::vector<std::string> aliases;  ///< other names (traces, profiles), matched case-insensitively
    double mem_gb = 0, peak_tflops = 0, power_w = 0, price_hr = 0;  ///< 0 = not given
};

struct NodeType {
    std::string name;
    GpuTypeIdx gpu_type = 0;
    int gpus = 0;
    int cpus = 0;
    double mem_gb = 0;
    IntraSpec intra;  ///< links between the node's GPUs
    NicSpec nic;      ///< the node's NICs
};

struct Node {
    std::uint32_t node_type = 0;
    GpuTypeIdx gpu_type = 0;
    int gpus = 0;
    GpuIdx first_gpu = 0;  ///< the node's GPUs are first_gpu .. first_gpu + gpus - 1
    std::uint32_t rack = 0;
    std::uint32_t pod = 0;  ///< the rack's `pod` (0 when not given)
};

class Cluster {
public:
    std::string name;
    std::vector<GpuType> gpu_types;
    std::vector<NodeType> node_types;
    std::vector<Node> nodes;  ///< in spec order: racks in order, nodes in order within a rack
    std::uint32_t num_racks = 0;
    GpuTypeIdx reference_gpu_type = 0;
    FabricSpec fabric;
    std::vector<std::string> rack_switch;  ///< per rack: its leaf switch in the explicit form (else empty)

    std::size_t num_gpus() const { return gpu_of_.size(); }
    /// GPUs of one type in the whole cluster.
    int gpus_of_type(GpuTypeIdx t) const { return gpus_of_type_[t]; }
    /// The largest node (in GPUs) of one type.
    int max_node_gpus(GpuTypeIdx t) const { return max_node_gpus_[t]; }
    NodeIdx node_of_gpu(GpuIdx g) const { return gpu_of_[g]; }
    /// A GPU type by its name or an alias, case-insensitively.
    std::optional<GpuTypeIdx> find_gpu_type(std::string_view type_name) const;

    /// Derives the per-GPU and per-type tables from `nodes`; called by the loader.
    void finalize();

private:
    std::vector<NodeIdx> gpu_of_;
    std::vector<int> gpus_of_type_;
    std::vector<int> max_node_gpus_;
};

/// Loads and validates a cluster spec; errors name the file and the field path.
Cluster load_cluster(const std::string& path);
/// Same from text; `origin` names it in messages.
Cluster parse_cluster(const std::string& text, const std::string& origin);

/// Lower-cases ASCII, for the case-insensitive name matching of GPU types.
std::string lower_ascii(std::string_view s);

/// The entry for type t of a table keyed by lower-cased GPU type names (a profile's throughputs): under
/// its name first, then under its aliases; nullptr when none.
template <class V>
const V* find_type_entry(const std::map<std::string, V>& table, const GpuType& t) {
    auto it = table.find(lower_ascii(t.name));
    for (std::size_t a = 0; it == table.end() && a < t.aliases.size(); ++a) it = table.find(lower_ascii(t.aliases[a]));
    return it == table.end() ? nullptr : &it->second;
}

}  // namespace dlsim
