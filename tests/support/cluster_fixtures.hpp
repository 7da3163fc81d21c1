#pragma once
// Small clusters (and a profile for them) as JSON text, shared by the test files that work placements,
// GPU numbering and rates out by hand on them.

namespace dlsim::test {

/// 2 racks x 2 nodes x 4 GPUs of one type "g": nodes 0,1 in rack 0, nodes 2,3 in rack 1;
/// GPUs 0-3 on node 0, 4-7 on node 1, 8-11 on node 2, 12-15 on node 3.
inline const char* kTwoRacks =
    R"({"gpu_types": {"g": {}}, "node_types": {"n": {"gpu_type": "g", "gpus": 4}},
        "racks": [{"node_type": "n", "nodes": 2, "count": 2}]})";

/// One model "m" at 1 iteration/s on type "g".
inline const char* kOneModelProfile = R"({"models": {"m": {"throughput": {"g": 1}}}})";

/// Two GPU types named through aliases and in mixed case. Nodes: rack 0 = n0, n1 (small, 2 V100 each);
/// rack 1 = n2 (old, 4 K80); rack 2 = n3 (old); rack 3 = n4 (big, 8 V100).
/// GPUs: n0 0-1, n1 2-3, n2 4-7, n3 8-11, n4 12-19.
inline const char* kMixedCluster = R"({
  "name": "mixed",
  "reference_gpu_type": "k80",
  "gpu_types": {"V100": {"aliases": ["v100-SXM2-16GB", "Tesla V100"], "mem_gb": 16}, "K80": {"aliases": ["tesla-k80"]}},
  "node_types": {"big": {"gpu_type": "v100", "gpus": 8}, "small": {"gpu_type": "V100", "gpus": 2},
                 "old": {"gpu_type": "Tesla-K80", "gpus": 4}},
  "racks": [{"node_type": "small", "nodes": 2}, {"node_type": "old", "nodes": 1, "count": 2},
            {"node_type": "big", "nodes": 1}]})";

}  // namespace dlsim::test
