#include "models/network_spec_parse.hpp"

#include <fmt/format.h>

namespace dlsim {

namespace jf = json_fields;

namespace {

constexpr double kGbps = 1e9 / 8;  // bytes/s per Gb/s
constexpr double kUs = 1e-6;

double optional_number(const jf::Json& v, const char* key, double fallback, double min_value, const std::string& file,
                       const std::string& path) {
    if (!v.contains(key)) return fallback;
    return jf::number(v[key], file, path + "." + key, min_value);
}

/// A bandwidth in Gb/s that must be > 0 (0 would stall every job that crosses it).
double gbps(const jf::Json& v, const std::string& file, const std::string& path) {
    const double x = jf::number(v, file, path, 0);
    if (!(x > 0)) jf::fail(file, path, "a bandwidth in Gb/s (> 0)", &v);
    return x * kGbps;
}

double efficiency(const jf::Json& v, const char* key, double fallback, const std::string& file,
                  const std::string& path) {
    if (!v.contains(key)) return fallback;
    const double e = jf::number(v[key], file, path + "." + key, 0);
    if (!(e > 0) || e > 1) jf::fail(file, path + "." + key, "an efficiency in (0, 1]", &v[key]);
    return e;
}

}  // namespace

IntraSpec parse_intra(const jf::Json& v, int pcie_gen, const std::string& file, const std::string& path) {
    jf::require_object(v, file, path);
    jf::check_keys(v, file, path, {"kind", "gbps_per_gpu", "lat_us", "eff", "sockets", "xsocket_gbps"});
    if (!v.contains("kind")) jf::fail(file, path + ".kind", "one of nvswitch, nvlink, pcie");
    const std::string kind = jf::string(v["kind"], file, path + ".kind");
    IntraSpec s;
    // Defaults by kind (models/README.md): NVLink3 through NVSwitch 300 GB/s per GPU (η 0.70), V100
    // NVLink2 mesh 150 GB/s (η 0.75), PCIe x16 15.75/31.5/63 GB/s for gen 3/4/5 (η 0.80).
    if (kind == "nvswitch")
        s = {IntraKind::NvSwitch, 2400 * kGbps, 1 * kUs, 0.70, 1, kUnlimited};
    else if (kind == "nvlink")
        s = {IntraKind::NvLink, 1200 * kGbps, 1 * kUs, 0.75, 1, kUnlimited};
    else if (kind == "pcie") {
        const double gbs = pcie_gen == 5 ? 63 : pcie_gen == 4 ? 31.5 : 15.75;
        s = {IntraKind::Pcie, gbs * 1e9, 2 * kUs, 0.80, 1, kUnlimited};
    } else
        jf::fail(file, path + ".kind", "one of nvswitch, nvlink, pcie", &v["kind"]);
    if (v.contains("gbps_per_gpu")) s.bytes_per_s = gbps(v["gbps_per_gpu"], file, path + ".gbps_per_gpu");
    s.latency_s = optional_number(v, "lat_us", s.latency_s / kUs, 0, file, path) * kUs;
    s.eff = efficiency(v, "eff", s.eff, file, path);
    if (v.contains("sockets")) s.sockets = static_cast<int>(jf::integer(v["sockets"], file, path + ".sockets", 1, 64));
    if (v.contains("xsocket_gbps")) s.xsocket_bytes_per_s = gbps(v["xsocket_gbps"], file, path + ".xsocket_gbps");
    return s;
}

NicSpec parse_nics(const jf::Json& v, const std::string& file, const std::string& path) {
    NicSpec s;
    if (v.contains("nics")) s.count = static_cast<int>(jf::integer(v["nics"], file, path + ".nics", 1, 1024));
    if (v.contains("nic_gbps")) {
        s.bytes_per_s = gbps(v["nic_gbps"], file, path + ".nic_gbps");
        // Defaults for a described NIC, assumed [A] (models/README.md): η 0.9 (InfiniBand), 5 µs per step.
        s.eff = 0.9;
        s.latency_s = 5 * kUs;
    }
    s.eff = efficiency(v, "nic_eff", s.eff, file, path);
    s.latency_s = optional_number(v, "nic_lat_us", s.latency_s / kUs, 0, file, path) * kUs;
    return s;
}

FabricSpec parse_fabric(const jf::Json& doc, const std::string& file) {
    FabricSpec f;
    if (doc.contains("fabric")) {
        const auto& v = jf::require_object(doc["fabric"], file, "fabric");
        jf::check_keys(v, file, "fabric", {"kind", "rail_optimized", "nodes_per_leaf_group", "tiers", "description"});
        f.given = true;
        if (v.contains("kind")) {
            const std::string kind = jf::string(v["kind"], file, "fabric.kind");
            if (kind != "leaf_spine" && kind != "fat_tree" && kind != "clos" && kind != "tree")
                jf::fail(file, "fabric.kind", "one of leaf_spine, fat_tree, clos, tree", &v["kind"]);
        }
        if (v.contains("rail_optimized")) {
            if (!v["rail_optimized"].is_boolean())
                jf::fail(file, "fabric.rail_optimized", "true or false", &v["rail_optimized"]);
            f.rail_optimized = v["rail_optimized"].get<bool>();
        }
        if (v.contains("nodes_per_leaf_group"))
            f.nodes_per_leaf_group = static_cast<int>(
                jf::integer(v["nodes_per_leaf_group"], file, "fabric.nodes_per_leaf_group", 1, 1'000'000));
        if (!v.contains("tiers"))
            jf::fail(file, "fabric.tiers", "an array of 1 to 3 tiers, bottom up (leaf, spine, core)");
        const auto& tiers = v["tiers"];
        if (!tiers.is_array() || tiers.empty() || tiers.size() > 3)
            jf::fail(file, "fabric.tiers", "an array of 1 to 3 tiers, bottom up (leaf, spine, core)", &tiers);
        for (std::size_t i = 0; i < tiers.size(); ++i) {
            const std::string path = fmt::format("fabric.tiers[{}]", i);
            const auto& t = jf::require_object(tiers[i], file, path);
            jf::check_keys(t, file, path, {"name", "oversub", "lat_us"});
            TierSpec spec;
            spec.name = t.contains("name") ? jf::string(t["name"], file, path + ".name")
                                           : std::string(i == 0   ? "leaf"
                                                         : i == 1 ? "spine"
                                                                  : "core");
            if (spec.name == "nic")
                jf::fail(file, path + ".name", "a name other than \"nic\" (the NIC links' tier)", &t["name"]);
            spec.oversub = optional_number(t, "oversub", 1, 0, file, path);
            if (!(spec.oversub >= 1))
                jf::fail(file, path + ".oversub", "a ratio >= 1 (downlink : uplink capacity)", &t["oversub"]);
            if (i == 0 && spec.oversub != 1)
                jf::fail(file, path + ".oversub",
                         "1: links enter the leaf tier from the nodes' NICs (set nics and nic_gbps); put the leaf "
                         "uplinks' ratio on the next tier",
                         &t["oversub"]);
            spec.latency_s = optional_number(t, "lat_us", 0, 0, file, path) * kUs;
            f.tiers.push_back(spec);
        }
    }
    if (doc.contains("switches")) {
        if (!f.tiers.empty()) jf::fail(file, "switches", "either fabric.tiers or switches, not both");
        const auto& sw = doc["switches"];
        if (!sw.is_array() || sw.empty()) jf::fail(file, "switches", "a non-empty array of switches", &sw);
        f.given = true;
        for (std::size_t i = 0; i < sw.size(); ++i) {
            const std::string path = fmt::format("switches[{}]", i);
            const auto& s = jf::require_object(sw[i], file, path);
            jf::check_keys(s, file, path, {"name", "parent", "oversub", "uplink_gbps", "lat_us", "tier"});
            SwitchSpec spec;
            if (!s.contains("name")) jf::fail(file, path + ".name", "the switch's name");
            spec.name = jf::string(s["name"], file, path + ".name");
            if (s.contains("parent")) spec.parent = jf::string(s["parent"], file, path + ".parent");
            spec.oversub = optional_number(s, "oversub", 1, 1, file, path);
            if (s.contains("uplink_gbps"))
                spec.uplink_bytes_per_s = gbps(s["uplink_gbps"], file, path + ".uplink_gbps");
            spec.latency_s = optional_number(s, "lat_us", 0, 0, file, path) * kUs;
            f.switches.push_back(spec);
        }
    }
    if (doc.contains("links")) {
        const auto& ls = doc["links"];
        if (!ls.is_array()) jf::fail(file, "links", "an array of link overrides", &ls);
        for (std::size_t i = 0; i < ls.size(); ++i) {
            const std::string path = fmt::format("links[{}]", i);
            const auto& l = jf::require_object(ls[i], file, path);
            jf::check_keys(l, file, path, {"switch", "gbps", "lat_us"});
            LinkOverride o;
            if (!l.contains("switch"))
                jf::fail(file, path + ".switch",
                         "the switch whose uplink this sets, as \"<tier>:<index>\" or a switch name");
            o.name = jf::string(l["switch"], file, path + ".switch");
            if (l.contains("gbps")) o.bytes_per_s = gbps(l["gbps"], file, path + ".gbps");
            if (l.contains("lat_us")) o.latency_s = jf::number(l["lat_us"], file, path + ".lat_us", 0) * kUs;
            f.links.push_back(o);
        }
    }
    return f;
}

}  // namespace dlsim
