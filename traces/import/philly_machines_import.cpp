// The Philly cluster from its published `cluster_machine_list` ("machineId, number of GPUs, single GPU mem",
// a space after each comma, e.g. "m0,2, 12GB"). Philly discloses only each GPU's memory size, not its model, and
// nothing about racks, so the spec has one GPU type per memory size and one rack entry per node type.
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string_view>

#include "models/base/input_error.hpp"
#include "traces/import/cluster_import.hpp"
#include "traces/readers/csv_reader.hpp"
#include "traces/readers/row_parsing.hpp"

namespace dlsim {

namespace {

constexpr const char* kColumns[] = {"machineId", "number of GPUs", "single GPU mem"};

/// "12GB" (or "12 GB", "12gb") -> 12; nullopt when it is not a positive size in GB.
std::optional<double> parse_gb(std::string_view s) {
    s = trim(s);
    if (s.size() < 2) return std::nullopt;
    const std::string_view unit = s.substr(s.size() - 2);
    if (!((unit[0] == 'G' || unit[0] == 'g') && (unit[1] == 'B' || unit[1] == 'b'))) return std::nullopt;
    auto v = parse_double(s.substr(0, s.size() - 2));
    if (!v || *v <= 0 || *v > 1e6) return std::nullopt;
    return v;
}

}  // namespace

std::string cluster_from_philly_machines(const std::string& path) {
    CsvLines csv(path);
    std::vector<std::string_view> fields;
    require_header(csv, fields, kColumns, "machineId, number of GPUs, single GPU mem");

    // (memory GB, GPUs per node) -> machines; memory GB -> GPUs.
    std::map<std::pair<double, int>, int> node_counts;
    std::map<double, long long> gpus_by_mem;
    std::set<std::string, std::less<>> ids;
    int machines = 0;
    long long total_gpus = 0;
    while (csv.next(fields)) {
        if (fields.size() != 3)
            throw InputError(fmt::format("{}:{}: expected 3 fields (machineId, number of GPUs, single GPU mem), got {}",
                                         path, csv.line(), fields.size()));
        const std::string_view id = trim(fields[0]);
        if (id.empty()) throw InputError(field_error(path, csv.line(), kColumns[0], "a machine id", id).message);
        if (!ids.emplace(id).second)
            throw InputError(field_error(path, csv.line(), kColumns[0], "a machine id not listed before", id).message);
        auto gpus = parse_integer(fields[1]);
        if (!gpus || *gpus < 1 || *gpus > 4096)
            throw InputError(
                field_error(path, csv.line(), kColumns[1], "an integer number of GPUs in 1..4096", trim(fields[1]))
                    .message);
        auto mem = parse_gb(fields[2]);
        if (!mem)
            throw InputError(
                field_error(path, csv.line(), kColumns[2], "a memory size like '12GB'", trim(fields[2])).message);
        ++node_counts[{*mem, static_cast<int>(*gpus)}];
        gpus_by_mem[*mem] += *gpus;
        ++machines;
        total_gpus += *gpus;
    }
    if (machines == 0) throw InputError(fmt::format("{}: no machines after the header", path));

    auto type_name = [](double mem) { return fmt::format("gpu{}gb", mem); };
    // The reference type is the one with the most GPUs (ties: the larger memory, listed later).
    double reference = gpus_by_mem.begin()->first;
    for (const auto& [mem, n] : gpus_by_mem)
        if (n >= gpus_by_mem[reference]) reference = mem;

    nlohmann::ordered_json doc;
    doc["schema"] = "dlsim.cluster/1";
    doc["name"] = "philly";
    std::string mix;
    for (const auto& [key, n] : node_counts)
        mix += fmt::format("{}{} x {}-GPU {}", mix.empty() ? "" : ", ", n, key.second, type_name(key.first));
    doc["description"] = fmt::format(
        "Microsoft Philly (ATC'19) from its cluster_machine_list: {} machines, {} GPUs ({}). Philly gives only the "
        "memory size of its GPUs, not their model: one GPU type per memory size, named by it. The file has no rack "
        "information: one rack entry per node type.",
        machines, total_gpus, mix);
    doc["source"] = path;
    doc["reference_gpu_type"] = type_name(reference);
    nlohmann::ordered_json types = nlohmann::ordered_json::object();
    for (const auto& [mem, n] : gpus_by_mem) {
        // Whole sizes as integers ("mem_gb": 12), as a person would write them.
        if (mem == std::floor(mem))
            types[type_name(mem)] = {{"mem_gb", static_cast<long long>(mem)}};
        else
            types[type_name(mem)] = {{"mem_gb", mem}};
    }
    doc["gpu_types"] = types;
    nlohmann::ordered_json node_types = nlohmann::ordered_json::object();
    nlohmann::ordered_json racks = nlohmann::ordered_json::array();
    for (const auto& [key, n] : node_counts) {
        const std::string name = fmt::format("{}x{}", type_name(key.first), key.second);
        node_types[name] = {{"gpu_type", type_name(key.first)}, {"gpus", key.second}};
        racks.push_back({{"node_type", name}, {"nodes", n}});
    }
    doc["node_types"] = node_types;
    doc["racks"] = racks;
    return doc.dump(1) + "\n";
}

}  // namespace dlsim
