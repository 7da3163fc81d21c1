#include "models/cluster.hpp"

#include "models/base/input_error.hpp"
#include "models/base/json_fields.hpp"
#include "models/network_spec_parse.hpp"
#include "models/topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

namespace dlsim {

namespace jf = json_fields;

std::string lower_ascii(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

std::optional<GpuTypeIdx> Cluster::find_gpu_type(std::string_view type_name) const {
    const std::string key = lower_ascii(type_name);
    for (GpuTypeIdx t = 0; t < gpu_types.size(); ++t) {
        if (lower_ascii(gpu_types[t].name) == key) return t;
        for (const auto& a : gpu_types[t].aliases)
            if (lower_ascii(a) == key) return t;
    }
    return std::nullopt;
}

void Cluster::finalize() {
    gpu_of_.clear();
    gpus_of_type_.assign(gpu_types.size(), 0);
    max_node_gpus_.assign(gpu_types.size(), 0);
    for (NodeIdx n = 0; n < nodes.size(); ++n) {
        nodes[n].first_gpu = static_cast<GpuIdx>(gpu_of_.size());
        gpu_of_.insert(gpu_of_.end(), static_cast<std::size_t>(nodes[n].gpus), n);
        gpus_of_type_[nodes[n].gpu_type] += nodes[n].gpus;
        max_node_gpus_[nodes[n].gpu_type] = std::max(max_node_gpus_[nodes[n].gpu_type], nodes[n].gpus);
    }
}

namespace {

GpuType parse_gpu_type(const std::string& name, const jf::Json& v, const std::string& file) {
    const std::string path = "gpu_types." + name;
    jf::require_object(v, file, path);
    jf::check_keys(v, file, path, {"mem_gb", "peak_tflops", "power_w", "price_hr", "aliases", "description"});
    GpuType t;
    t.name = name;
    if (v.contains("mem_gb")) t.mem_gb = jf::number(v["mem_gb"], file, path + ".mem_gb", 0);
    if (v.contains("peak_tflops")) t.peak_tflops = jf::number(v["peak_tflops"], file, path + ".peak_tflops", 0);
    if (v.contains("power_w")) t.power_w = jf::number(v["power_w"], file, path + ".power_w", 0);
    if (v.contains("price_hr")) t.price_hr = jf::number(v["price_hr"], file, path + ".price_hr", 0);
    if (v.contains("aliases")) {
        const auto& a = v["aliases"];
        if (!a.is_array()) jf::fail(file, path + ".aliases", "an array of names", &a);
        for (std::size_t i = 0; i < a.size(); ++i)
            t.aliases.push_back(jf::string(a[i], file, fmt::format("{}.aliases[{}]", path, i)));
    }
    return t;
}

}  // namespace

Cluster parse_cluster(const std::string& text, const std::string& file) {
    const jf::Json doc = jf::parse_text(text, file);
    jf::require_object(doc, file, "(top level)");
    jf::check_keys(doc, file, "",
                   {"schema", "name", "description", "source", "reference_gpu_type", "gpu_types", "node_types", "racks",
                    "fabric", "switches", "links", "network"});
    if (doc.contains("schema") && doc["schema"] != "dlsim.cluster/1")
        jf::fail(file, "schema", "\"dlsim.cluster/1\"", &doc["schema"]);

    Cluster c;
    if (doc.contains("name")) c.name = jf::string(doc["name"], file, "name");

    if (!doc.contains("gpu_types")) jf::fail(file, "gpu_types", "an object of GPU types");
    const auto& types = jf::require_object(doc["gpu_types"], file, "gpu_types");
    if (types.empty()) jf::fail(file, "gpu_types", "at least one GPU type", &types);
    if (types.size() > kMaxGpuTypes) jf::fail(file, "gpu_types", fmt::format("at most {} GPU types", kMaxGpuTypes));
    for (const auto& [name, v] : types.items()) {
        if (c.find_gpu_type(name))
            throw InputError(fmt::format("{}: gpu_types.{}: duplicate GPU type name or alias", file, name));
        GpuType t = parse_gpu_type(name, v, file);
        c.gpu_types.push_back(std::move(t));
        for (const auto& a : c.gpu_types.back().aliases) {
            auto other = c.find_gpu_type(a);
            if (other && *other != c.gpu_types.size() - 1)
                throw InputError(fmt::format("{}: gpu_types.{}.aliases: \"{}\" already names GPU type {}", file, name,
                                             a, c.gpu_types[*other].name));
        }
    }

    if (!doc.contains("node_types")) jf::fail(file, "node_types", "an object of node types");
    const auto& ntypes = jf::require_object(doc["node_types"], file, "node_types");
    std::map<std::string, std::uint32_t> node_type_index;
    for (const auto& [name, v] : ntypes.items()) {
        const std::string path = "node_types." + name;
        jf::require_object(v, file, path);
        jf::check_keys(v, file, path,
                       {"gpu_type", "gpus", "cpus", "mem_gb", "intra", "nics", "nic_gbps", "nic_eff", "nic_lat_us",
                        "pcie_gen", "description"});
        NodeType nt;
        nt.name = name;
        if (!v.contains("gpu_type")) jf::fail(file, path + ".gpu_type", "the name of a GPU type in gpu_types");
        const std::string gt = jf::string(v["gpu_type"], file, path + ".gpu_type");
        auto idx = c.find_gpu_type(gt);
        if (!idx) jf::fail(file, path + ".gpu_type", "the name of a GPU type in gpu_types", &v["gpu_type"]);
        nt.gpu_type = *idx;
        if (!v.contains("gpus")) jf::fail(file, path + ".gpus", "the number of GPUs per node (>= 1)");
        // Range-checked as written, then narrowed (a cast first would read 4294967297 as 1).
        const long long gpus = jf::integer(v["gpus"], file, path + ".gpus", 1);
        if (gpus > 4096) jf::fail(file, path + ".gpus", "at most 4096 GPUs per node", &v["gpus"]);
        nt.gpus = static_cast<int>(gpus);
        if (v.contains("cpus"))
            nt.cpus =
                static_cast<int>(jf::integer(v["cpus"], file, path + ".cpus", 0, std::numeric_limits<int>::max()));
        if (v.contains("mem_gb")) nt.mem_gb = jf::number(v["mem_gb"], file, path + ".mem_gb", 0);
        int pcie_gen = 3;
        if (v.contains("pcie_gen")) {
            pcie_gen = static_cast<int>(jf::integer(v["pcie_gen"], file, path + ".pcie_gen", 3, 5));
        }
        if (v.contains("intra")) nt.intra = parse_intra(v["intra"], pcie_gen, file, path + ".intra");
        nt.nic = parse_nics(v, file, path);
        node_type_index[name] = static_cast<std::uint32_t>(c.node_types.size());
        c.node_types.push_back(nt);
    }

    if (!doc.contains("racks")) jf::fail(file, "racks", "an array of racks");
    const auto& racks = doc["racks"];
    if (!racks.is_array() || racks.empty()) jf::fail(file, "racks", "a non-empty array of racks", &racks);
    constexpr long long kMaxGpus = 10'000'000;
    long long total_gpus = 0;
    for (std::size_t r = 0; r < racks.size(); ++r) {
        const std::string path = fmt::format("racks[{}]", r);
        const auto& v = jf::require_object(racks[r], file, path);
        jf::check_keys(v, file, path, {"node_type", "nodes", "count", "pod", "name", "switch"});
        if (!v.contains("node_type")) jf::fail(file, path + ".node_type", "the name of a node type in node_types");
        auto it = node_type_index.find(jf::string(v["node_type"], file, path + ".node_type"));
        if (it == node_type_index.end())
            jf::fail(file, path + ".node_type", "the name of a node type in node_types", &v["node_type"]);
        if (!v.contains("nodes")) jf::fail(file, path + ".nodes", "the number of nodes per rack (>= 1)");
        const long long nodes = jf::integer(v["nodes"], file, path + ".nodes", 1);
        const long long count = v.contains("count") ? jf::integer(v["count"], file, path + ".count", 1) : 1;
        if (nodes > 1'000'000 || count > 1'000'000 / nodes)
            jf::fail(file, path,
                     fmt::format("at most 1,000,000 nodes per rack entry (nodes x count), got {} x {}", nodes, count));
        const auto pod = static_cast<std::uint32_t>(
            v.contains("pod") ? jf::integer(v["pod"], file, path + ".pod", 0, 1'000'000) : 0);
        std::string leaf_switch;
        if (v.contains("switch")) leaf_switch = jf::string(v["switch"], file, path + ".switch");
        const NodeType& nt = c.node_types[it->second];
        total_gpus += nodes * count * nt.gpus;  // each factor is bounded above, so no overflow
        if (total_gpus > kMaxGpus)
            jf::fail(file, path,
                     fmt::format("at most 10,000,000 GPUs in the cluster, got {} up to this rack entry", total_gpus));
        for (long long k = 0; k < count; ++k) {
            for (long long n = 0; n < nodes; ++n)
                c.nodes.push_back(Node{it->second, nt.gpu_type, nt.gpus, 0, c.num_racks, pod});
            c.rack_switch.push_back(leaf_switch);
            ++c.num_racks;
        }
    }
    c.fabric = parse_fabric(doc, file);
    c.finalize();
    validate_fabric(c, file);
    if (c.num_gpus() == 0) jf::fail(file, "racks", "at least one GPU in the cluster");

    if (doc.contains("reference_gpu_type")) {
        auto idx = c.find_gpu_type(jf::string(doc["reference_gpu_type"], file, "reference_gpu_type"));
        if (!idx)
            jf::fail(file, "reference_gpu_type", "the name of a GPU type in gpu_types", &doc["reference_gpu_type"]);
        c.reference_gpu_type = *idx;
    }
    return c;
}

Cluster load_cluster(const std::string& path) { return parse_cluster(jf::read_file(path), path); }

}  // namespace dlsim
