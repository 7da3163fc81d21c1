// Alibaba's production three-tier Clos from the Lingjun 2023 dataset's `topo.csv` ("ip,DSW,PSW,ASW": one row per
// host and the core, aggregation and ToR switch above it; Cao et al., Crux, SIGCOMM'24). The file gives the tree
// but no hardware: the GPUs, links and ratios below are stated assumptions, written into the spec's text.
//
// Compact form: one rack entry per ToR group with `nodes` = its hosts and `pod` = its PSW's index; tiers leaf (ASW),
// spine (PSW), core (DSW). A ToR group is the (PSW, ASW) pair: ASW names repeat under different PSWs. Groups are
// written PSW by PSW, each PSW's ASWs in turn, both in natural name order (P8 < P10 < P12, S2 < S10): the same
// spec whatever the row order of the file.
#include "traces/import/cluster_import.hpp"

#include "models/base/input_error.hpp"
#include "traces/readers/csv_reader.hpp"
#include "traces/readers/row_parsing.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string_view>

namespace dlsim {

namespace {

enum Column { kIp, kDsw, kPsw, kAsw, kNumColumns };
constexpr std::array<const char*, kNumColumns> kColumns = {"ip", "DSW", "PSW", "ASW"};
constexpr std::string_view kHeader = "ip,DSW,PSW,ASW";

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// Natural order: runs of digits compare by value ("P8" < "P10"), other bytes as bytes; names equal under it
/// (leading zeros) fall back to plain order, so this is a strict total order on distinct names.
struct NaturalLess {
    bool operator()(std::string_view a, std::string_view b) const {
        std::size_t i = 0, j = 0;
        while (i < a.size() && j < b.size()) {
            if (is_digit(a[i]) && is_digit(b[j])) {
                std::size_t i2 = i, j2 = j;
                while (i2 < a.size() && a[i2] == '0') ++i2;
                while (j2 < b.size() && b[j2] == '0') ++j2;
                std::size_t i3 = i2, j3 = j2;
                while (i3 < a.size() && is_digit(a[i3])) ++i3;
                while (j3 < b.size() && is_digit(b[j3])) ++j3;
                const std::string_view da = a.substr(i2, i3 - i2), db = b.substr(j2, j3 - j2);
                if (da.size() != db.size()) return da.size() < db.size();
                if (da != db) return da < db;
                i = i3;
                j = j3;
            } else {
                if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
                ++i;
                ++j;
            }
        }
        if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
        return a < b;
    }
};

// The assumed hardware (every figure is also in the spec's description, with its tag).
constexpr int kGpusPerHost = 8;   // Crux (SIGCOMM'24) describes the hosts as 8-GPU servers [R]
constexpr int kNics = 4;          // [A] one RDMA NIC per two GPUs
constexpr int kNicGbps = 200;     // [A] 200 Gb/s RoCE
constexpr double kNicEff = 0.85;  // RoCE efficiency η, dlsim's assumed default [A] (models/README.md)
constexpr double kNicLatUs = 8;   // RoCE latency α per ring step, dlsim's assumed default [A] (models/README.md)

/// The spec's JSON: one line per rack entry, everything else indented as nlohmann writes it.
std::string write_spec(const nlohmann::ordered_json& doc) {
    std::string out = "{\n";
    std::size_t i = 0;
    for (auto it = doc.begin(); it != doc.end(); ++it, ++i) {
        std::string value;
        if (it.key() == "racks") {
            value = "[\n";
            for (std::size_t r = 0; r < it.value().size(); ++r)
                value += "  " + it.value()[r].dump() + (r + 1 < it.value().size() ? ",\n" : "\n");
            value += " ]";
        } else {
            for (char c : it.value().dump(1)) value += c == '\n' ? std::string("\n ") : std::string(1, c);
        }
        out += " " + nlohmann::ordered_json(it.key()).dump() + ": " + value + (i + 1 < doc.size() ? ",\n" : "\n");
    }
    return out + "}\n";
}

}  // namespace

bool is_lingjun_topology(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string first;
    if (!in || !std::getline(in, first)) return false;
    if (!first.empty() && first.back() == '\r') first.pop_back();
    return trim(strip_bom(first)) == kHeader;
}

std::string cluster_from_lingjun_topology(const std::string& path) {
    CsvLines csv(path);
    std::vector<std::string_view> fields;
    require_header(csv, fields, kColumns, kHeader);

    using Groups = std::map<std::string, long long, NaturalLess>;  // ASW -> hosts
    std::map<std::string, Groups, NaturalLess> pods;               // PSW -> its ToR groups
    std::set<std::string, std::less<>> ips;
    std::string dsw;
    std::uint32_t dsw_line = 0;
    long long hosts = 0;
    while (csv.next(fields)) {
        const std::uint32_t line = csv.line();
        require_fields(csv, fields, kNumColumns, kHeader);
        auto fail = [&](Column c, std::string_view expected) {
            return InputError(field_error(path, line, kColumns[c], expected, trim(fields[c])).message);
        };
        auto name = [&](Column c, std::string_view expected) {
            const std::string_view v = trim(fields[c]);
            if (v.empty()) throw fail(c, expected);
            return std::string(v);
        };
        const std::string ip = name(kIp, "the host's (blinded) ip");
        if (!ips.insert(ip).second) throw fail(kIp, "a host not listed before");
        const std::string d = name(kDsw, "the host's DSW (core switch group)");
        const std::string psw = name(kPsw, "the host's PSW (aggregation switch)");
        const std::string asw = name(kAsw, "the host's ASW (ToR switch)");
        if (dsw.empty()) {
            dsw = d;
            dsw_line = line;
        } else if (d != dsw) {
            throw fail(kDsw,
                       fmt::format("'{}' as on line {}: the compact form has one core (DSW) group", dsw, dsw_line));
        }
        ++pods[psw][asw];
        ++hosts;
    }
    if (hosts == 0) throw InputError(fmt::format("{}: no hosts after the header '{}'", path, kHeader));

    std::size_t groups = 0;
    long long smallest = hosts, largest = 0;
    std::string per_pod;
    for (const auto& [psw, tors] : pods) {
        long long in_pod = 0;
        for (const auto& [asw, n] : tors) {
            in_pod += n;
            smallest = std::min(smallest, n);
            largest = std::max(largest, n);
        }
        groups += tors.size();
        per_pod += fmt::format("{}{}: {} groups, {} hosts", per_pod.empty() ? "" : "; ", psw, tors.size(), in_pod);
    }

    nlohmann::ordered_json doc;
    doc["schema"] = "dlsim.cluster/1";
    doc["name"] = "alibaba-lingjun";
    doc["description"] = fmt::format(
        "Alibaba's production GPU cluster of the Lingjun 2023 dataset (Cao et al., Crux, SIGCOMM'24): its three-tier "
        "Clos as topo.csv gives it, {} hosts under {} ToR groups ({}-{} hosts each) under {} PSWs ({}) under one DSW "
        "({}). A ToR group is a (PSW, ASW) pair: ASW names repeat under different PSWs. Tiers: leaf = ASW (ToR), spine "
        "= PSW (aggregation), core = DSW; racks in PSW order, then ASW, both in natural name order; pod = the PSW's "
        "index. topo.csv has no hardware: {} GPUs per host [R: Crux describes 8-GPU hosts], {} GPUs in all (Crux "
        "reports a 2,000+ GPU cluster [R]: fewer than 847 x 8, so not every host may hold 8 GPUs, or the paper "
        "counts another subset; to verify). "
        "Assumed [A]: A100-SXM4-80GB GPUs over NVSwitch (NVLink3, 300 GB/s per GPU and direction, eta 0.70, 1 us: "
        "dlsim's NVSwitch defaults, models/README.md); {} x {} Gb/s RoCE NICs per host (eta {}, {} us per ring step: "
        "dlsim's NIC defaults, models/README.md); every "
        "tier non-blocking (oversub 1: the dataset states no ratio); switch latency 0.6 us leaf and spine, 1 us core "
        "(dlsim's fabric defaults, models/README.md). Built by `dlsim trace cluster --format lingjun topo.csv`; change "
        "the [A] "
        "figures in the importer, not here.",
        hosts, groups, smallest, largest, pods.size(), per_pod, dsw, kGpusPerHost, hosts * kGpusPerHost, kNics,
        kNicGbps, kNicEff, kNicLatUs);
    doc["source"] = fmt::format(
        "{}: github.com/alibaba/alibaba-lingjun-dataset-2023 @ 2ad3fd1, data/topo.csv (Apache-2.0), the dataset of "
        "Cao et al., 'Crux: GPU-Efficient Communication Scheduling for Deep Learning Training', SIGCOMM'24",
        std::filesystem::path(path).filename().string());
    doc["reference_gpu_type"] = "A100";
    doc["gpu_types"] = {
        {"A100",
         {{"mem_gb", 80},
          {"peak_tflops", 312},
          {"aliases", {"a100", "A100-SXM4-80GB"}},
          {"description", "[A] the dataset names no GPU model; 312 TFLOPS dense bf16 (NVIDIA A100 datasheet [R])"}}}};
    doc["node_types"] = {
        {"host8",
         {{"gpu_type", "A100"},
          {"gpus", kGpusPerHost},
          {"intra", {{"kind", "nvswitch"}, {"gbps_per_gpu", 2400}, {"lat_us", 1.0}, {"eff", 0.7}}},
          {"nics", kNics},
          {"nic_gbps", kNicGbps},
          {"nic_eff", kNicEff},
          {"nic_lat_us", kNicLatUs},
          {"pcie_gen", 4},
          {"description", "8 GPUs [R Crux]; NVSwitch, NICs and PCIe gen 4 [A] (see the cluster's description)"}}}};
    doc["fabric"] = {{"kind", "clos"},
                     {"description", "leaf = ASW (ToR), spine = PSW, core = DSW; oversub 1 on every tier [A]"},
                     {"tiers",
                      {{{"name", "leaf"}, {"oversub", 1}, {"lat_us", 0.6}},
                       {{"name", "spine"}, {"oversub", 1}, {"lat_us", 0.6}},
                       {{"name", "core"}, {"oversub", 1}, {"lat_us", 1.0}}}}};
    nlohmann::ordered_json racks = nlohmann::ordered_json::array();
    std::uint32_t pod = 0;
    for (const auto& [psw, tors] : pods) {
        for (const auto& [asw, n] : tors)
            racks.push_back({{"name", psw + "/" + asw}, {"node_type", "host8"}, {"nodes", n}, {"pod", pod}});
        ++pod;
    }
    doc["racks"] = racks;
    return write_spec(doc);
}

}  // namespace dlsim
