#pragma once
// A small cluster and a profile for it as JSON text, shared by the test files that work placements and
// GPU numbering out by hand on them.

namespace dlsim::test {

/// 2 racks x 2 nodes x 4 GPUs of one type "g": nodes 0,1 in rack 0, nodes 2,3 in rack 1;
/// GPUs 0-3 on node 0, 4-7 on node 1, 8-11 on node 2, 12-15 on node 3.
inline const char* kTwoRacks =
    R"({"gpu_types": {"g": {}}, "node_types": {"n": {"gpu_type": "g", "gpus": 4}},
        "racks": [{"node_type": "n", "nodes": 2, "count": 2}]})";

/// One model "m" at 1 iteration/s on type "g".
inline const char* kOneModelProfile = R"({"models": {"m": {"throughput": {"g": 1}}}})";

}  // namespace dlsim::test
