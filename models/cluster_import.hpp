#pragma once
// Cluster specs built from published machine lists (`dlsim trace cluster`), so a trace can be
// replayed on the cluster it came from. Each returns the spec as `dlsim.cluster/1` JSON text.
#include <string>

namespace dlsim {

/// Philly `cluster_machine_list` ("machineId, number of GPUs, single GPU mem").
std::string cluster_from_philly_machines(const std::string& path);
/// Alibaba GPU 2023 `openb_node_list_gpu_node.csv` ("sn,cpu_milli,memory_mib,gpu,model").
std::string cluster_from_openb_nodes(const std::string& path);
/// Alibaba PAI 2020 `pai_machine_spec` ("machine,gpu_type,cap_cpu,cap_mem,cap_gpu", headerless).
std::string cluster_from_pai_machines(const std::string& path);

}  // namespace dlsim
