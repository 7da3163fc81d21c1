#pragma once
// Parsing of a cluster spec's network fields (fields and defaults: models/README.md). Every error
// names the file and the field path. Used by the cluster loader only (it includes nlohmann/json).
#include "models/base/json_fields.hpp"
#include "models/network_spec.hpp"

namespace dlsim {

/// A node type's `intra` object; `pcie_gen` (3, 4 or 5) sets the PCIe default bandwidth.
IntraSpec parse_intra(const json_fields::Json& v, int pcie_gen, const std::string& file, const std::string& path);
/// A node type's `nics`, `nic_gbps`, `nic_eff`, `nic_lat_us` (each optional).
NicSpec parse_nics(const json_fields::Json& node_type, const std::string& file, const std::string& path);
/// The top-level `fabric`, `switches` and `links` (each optional).
FabricSpec parse_fabric(const json_fields::Json& doc, const std::string& file);

}  // namespace dlsim
