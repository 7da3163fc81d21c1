#pragma once
// Cluster specs built from published machine lists (`dlsim trace cluster`), so a trace can be
// replayed on the cluster it came from. Each returns the spec as `dlsim.cluster/1` JSON text.
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace dlsim {

/// A cluster spec assembled from a machine list with no rack information: one GPU type per type
/// name and one node type per (type, GPUs, CPUs, memory), both in order of first appearance, one rack
/// entry per node type, and the type with the most GPUs as the reference (ties: the first listed).
class MachineListSpec {
public:
    void add_machine(const std::string& gpu_type, long long gpus, double cpus, double mem_gb);
    long long machines() const { return machines_; }
    long long gpus() const { return gpus_; }
    std::size_t gpu_types() const { return type_order_.size(); }
    /// "4392 G2, 1024 T4, ...": GPUs per type, for descriptions.
    std::string gpu_mix() const;
    /// The `dlsim.cluster/1` JSON text.
    std::string json(const std::string& name, const std::string& description, const std::string& source) const;

private:
    using NodeKey = std::tuple<std::string, long long, double, double>;
    std::vector<std::string> type_order_;
    std::map<std::string, long long> gpus_of_type_;
    std::vector<NodeKey> node_order_;
    std::map<NodeKey, long long> node_counts_;
    long long machines_ = 0, gpus_ = 0;
};

/// Philly `cluster_machine_list` ("machineId, number of GPUs, single GPU mem").
std::string cluster_from_philly_machines(const std::string& path);
/// Alibaba GPU 2023 `openb_node_list_gpu_node.csv` ("sn,cpu_milli,memory_mib,gpu,model").
std::string cluster_from_openb_nodes(const std::string& path);
/// Alibaba PAI 2020 `pai_machine_spec` ("machine,gpu_type,cap_cpu,cap_mem,cap_gpu", headerless).
std::string cluster_from_pai_machines(const std::string& path);
/// Alibaba Lingjun 2023 `topo.csv` ("ip,DSW,PSW,ASW"): the three-tier Clos, one rack entry per (PSW, ASW) group.
std::string cluster_from_lingjun_topology(const std::string& path);
/// True when the file's first line is the Lingjun topology header `ip,DSW,PSW,ASW` (format detection).
bool is_lingjun_topology(const std::string& path);

}  // namespace dlsim
