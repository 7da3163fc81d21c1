// The Alibaba GPU 2023 ("openb") cluster from `openb_node_list_gpu_node.csv` ("sn,cpu_milli,memory_mib,gpu,model").
// One GPU type per model string, named exactly as in the file so that the pods' gpu_spec names match; one node
// type per (model, GPUs, CPUs, memory); the file has no rack information, so one rack entry per node type.
#include <fmt/format.h>

#include <array>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <vector>

#include "models/base/input_error.hpp"
#include "traces/import/cluster_import.hpp"
#include "traces/readers/csv_reader.hpp"
#include "traces/readers/row_parsing.hpp"

namespace dlsim {

namespace {

enum Column { kSn, kCpuMilli, kMemoryMib, kGpu, kModel, kNumColumns };
constexpr std::array<const char*, kNumColumns> kColumns = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};

}  // namespace

std::string cluster_from_openb_nodes(const std::string& path) {
    CsvLines csv(path);
    std::vector<std::string_view> fields;
    constexpr std::string_view header = "sn,cpu_milli,memory_mib,gpu,model";
    require_header(csv, fields, kColumns, header);

    MachineListSpec spec;
    std::set<std::string, std::less<>> names;
    long long cpu_only = 0;
    while (csv.next(fields)) {
        const std::uint32_t line = csv.line();
        require_fields(csv, fields, kNumColumns, header);
        auto fail = [&](Column c, std::string_view expected) {
            return InputError(field_error(path, line, kColumns[c], expected, trim(fields[c])).message);
        };
        auto integer = [&](Column c, long long lo, long long hi, std::string_view expected) {
            auto v = parse_integer(fields[c]);
            if (!v || *v < lo || *v > hi) throw fail(c, expected);
            return *v;
        };
        const std::string_view sn = trim(fields[kSn]);
        if (sn.empty()) throw fail(kSn, "a node name");
        if (!names.emplace(sn).second) throw fail(kSn, "a node name not listed before");
        const long long cpu_milli = integer(kCpuMilli, 0, 1'000'000'000, "milli-cores >= 0");
        const long long memory = integer(kMemoryMib, 0, 1'000'000'000'000, "MiB >= 0");
        const long long n = integer(kGpu, 0, 4096, "an integer number of GPUs in 0..4096");
        const std::string model(trim(fields[kModel]));
        if (n == 0) {  // a CPU-only node: nothing for a GPU scheduler to use
            ++cpu_only;
            continue;
        }
        if (model.empty()) throw fail(kModel, "the GPU model of a node with GPUs");
        if (model.find('|') != std::string::npos) throw fail(kModel, "a GPU model name without '|'");
        spec.add_machine(model, n, static_cast<double>(cpu_milli) / 1000.0, static_cast<double>(memory) / 1024.0);
    }
    if (spec.machines() == 0)
        throw InputError(
            fmt::format("{}: no GPU nodes (rows with gpu >= 1) after the header ({} CPU-only nodes)", path, cpu_only));
    if (spec.gpu_types() > 64)
        throw InputError(
            fmt::format("{}: {} GPU models, more than the 64 GPU types a cluster may have", path, spec.gpu_types()));

    const std::string description = fmt::format(
        "Alibaba GPU 2023 (openb, ATC'23) from its GPU node list: {} GPU nodes, {} GPUs ({}); {} CPU-only nodes "
        "skipped. GPU types are named as in the node list's model column (G1/G2/G3 are undisclosed). The file has "
        "no rack information: one rack entry per node type.",
        spec.machines(), spec.gpus(), spec.gpu_mix(), cpu_only);
    return spec.json("alibaba-openb", description, path);
}

}  // namespace dlsim
