#include "traces/import/cluster_import.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace dlsim {

void MachineListSpec::add_machine(const std::string& gpu_type, long long gpus, double cpus, double mem_gb) {
    if (!gpus_of_type_.count(gpu_type)) type_order_.push_back(gpu_type);
    gpus_of_type_[gpu_type] += gpus;
    const NodeKey key{gpu_type, gpus, cpus, mem_gb};
    if (node_counts_[key]++ == 0) node_order_.push_back(key);
    ++machines_;
    gpus_ += gpus;
}

std::string MachineListSpec::gpu_mix() const {
    std::string mix;
    for (const auto& t : type_order_) mix += fmt::format("{}{} {}", mix.empty() ? "" : ", ", gpus_of_type_.at(t), t);
    return mix;
}

std::string MachineListSpec::json(const std::string& name, const std::string& description,
                                  const std::string& source) const {
    std::string reference = type_order_.front();
    for (const auto& t : type_order_)
        if (gpus_of_type_.at(t) > gpus_of_type_.at(reference)) reference = t;
    nlohmann::ordered_json doc;
    doc["schema"] = "dlsim.cluster/1";
    doc["name"] = name;
    doc["description"] = description;
    doc["source"] = source;
    doc["reference_gpu_type"] = reference;
    nlohmann::ordered_json types = nlohmann::ordered_json::object();
    for (const auto& t : type_order_) types[t] = nlohmann::ordered_json::object();
    doc["gpu_types"] = types;
    nlohmann::ordered_json node_types = nlohmann::ordered_json::object();
    nlohmann::ordered_json racks = nlohmann::ordered_json::array();
    for (const auto& key : node_order_) {
        const auto& [type, n, cpus, mem_gb] = key;
        const std::string node_type = fmt::format("{}x{}-{}cpu-{}gb", type, n, cpus, mem_gb);
        // cpus is an integer in the spec: a fractional core count is rounded down.
        node_types[node_type] = {
            {"gpu_type", type}, {"gpus", n}, {"cpus", static_cast<long long>(cpus)}, {"mem_gb", mem_gb}};
        racks.push_back({{"node_type", node_type}, {"nodes", node_counts_.at(key)}});
    }
    doc["node_types"] = node_types;
    doc["racks"] = racks;
    return doc.dump(1) + "\n";
}

}  // namespace dlsim
