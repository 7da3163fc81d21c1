// The Alibaba PAI 2020 cluster from its headerless `pai_machine_spec` ("machine,gpu_type,cap_cpu,cap_mem,cap_gpu";
// cap_cpu in cores, cap_mem in GB). One GPU type per gpu_type string, named exactly as in the file (MISC stays a
// type of its own: older K40m/K80/M60 the authors do not split); one node type per (type, GPUs, CPUs, memory);
// CPU-only machines are skipped; the file has no rack information, so one rack entry per node type.
#include <fmt/format.h>

#include <array>
#include <cmath>
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

enum Column { kMachine, kGpuType, kCapCpu, kCapMem, kCapGpu, kNumColumns };
constexpr std::array<const char*, kNumColumns> kColumns = {"machine", "gpu_type", "cap_cpu", "cap_mem", "cap_gpu"};

}  // namespace

std::string cluster_from_pai_machines(const std::string& path) {
    CsvLines csv(path);
    std::vector<std::string_view> fields;
    const std::string columns = "machine,gpu_type,cap_cpu,cap_mem,cap_gpu";

    MachineListSpec spec;
    std::set<std::string, std::less<>> names;
    long long cpu_only = 0;
    while (csv.next(fields)) {
        const std::uint32_t line = csv.line();
        require_fields(csv, fields, kNumColumns, columns + ", no header");
        // The published file has no header; tolerate one written from pai_machine_spec.header.
        if (line == 1 && trim(fields[kMachine]) == "machine" && trim(fields[kCapGpu]) == "cap_gpu") continue;
        auto fail = [&](Column c, std::string_view expected) {
            return InputError(field_error(path, line, kColumns[c], expected, trim(fields[c])).message);
        };
        auto number = [&](Column c, std::string_view expected) {
            auto v = parse_double(fields[c]);
            if (!v || *v < 0 || *v > 1e9) throw fail(c, expected);
            return *v;
        };
        const std::string_view machine = trim(fields[kMachine]);
        if (machine.empty()) throw fail(kMachine, "a machine name");
        if (!names.emplace(machine).second) throw fail(kMachine, "a machine name not listed before");
        const std::string type(trim(fields[kGpuType]));
        if (type.empty()) throw fail(kGpuType, "a GPU type (or CPU)");
        const double cpus = number(kCapCpu, "a number of cores >= 0");
        const double mem = number(kCapMem, "a memory size in GB >= 0");
        auto n = parse_integer(fields[kCapGpu]);
        if (!n) {  // the published file writes whole numbers; accept "8.0" too
            auto v = parse_double(fields[kCapGpu]);
            // Range first: converting a double outside long long's range (1e300) is undefined.
            if (v && *v >= 0 && *v <= 4096 && *v == std::floor(*v)) n = static_cast<long long>(*v);
        }
        if (!n || *n < 0 || *n > 4096) throw fail(kCapGpu, "an integer number of GPUs in 0..4096");
        if (*n == 0 || type == "CPU") {  // CPU-only machines: nothing for a GPU scheduler to use
            if (*n != 0) throw fail(kCapGpu, "0 GPUs on a machine of type CPU");
            ++cpu_only;
            continue;
        }
        if (type.find('|') != std::string::npos) throw fail(kGpuType, "a GPU type name without '|'");
        spec.add_machine(type, *n, cpus, mem);
    }
    if (spec.machines() == 0)
        throw InputError(
            fmt::format("{}: no GPU machines (rows {} with cap_gpu >= 1; {} CPU-only)", path, columns, cpu_only));
    if (spec.gpu_types() > 64)
        throw InputError(fmt::format("{}: {} GPU types, more than the 64 a cluster may have", path, spec.gpu_types()));

    const std::string description = fmt::format(
        "Alibaba PAI 2020 (NSDI'22) from its pai_machine_spec: {} GPU machines, {} GPUs ({}); {} CPU-only machines "
        "skipped. GPU types are named as in the file (MISC groups older undisclosed GPUs). The file has no rack "
        "information: one rack entry per node type.",
        spec.machines(), spec.gpus(), spec.gpu_mix(), cpu_only);
    return spec.json("alibaba-pai2020", description, path);
}

}  // namespace dlsim
