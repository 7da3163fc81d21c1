#pragma once
// A sweep spec (`dlsim sweep SPEC.json`): a base run config, a grid of values to cross, and optional
// explicit runs, expanded into a list of fully resolved runs in a fixed order.
//
//   {"name": "fifo-vs-srtf",
//    "base": {"trace": "...", "resample_rate": 3, "measure_jobs": "100:900"},
//    "grid": {"policy": ["fifo", "srtf"], "load_scale": [0.5, 1, 2], "seed": [1, 2, 3]},
//    "runs": [{"policy": "srtf", "params.type_order": "spec"}]}
//
// The grid is a cartesian product, its first key outermost; explicit runs follow it, each applied on
// top of the base. "params.K" sets one policy parameter. Relative input paths are relative to the
// spec's folder, so a spec and its trace can move together.
#include "sim/app/run_config.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dlsim {

struct SweepRun {
    std::size_t position = 0;       ///< in expansion order (shards split by it)
    RunConfig config;               ///< base + this run's values, outputs unset
    nlohmann::ordered_json values;  ///< swept parameter -> this run's value (flat: "params.K")
    std::string id;                 ///< run_id(config): the result's file name
};

struct SweepSpec {
    std::string path, name;
    std::vector<std::string> parameters;  ///< swept keys, in first-seen order
    std::vector<SweepRun> runs;
};

/// The runs a spec may expand to unless --max-runs says otherwise: a typo in a grid (a list of a
/// thousand seeds where ten were meant) is refused before anything is expanded or run.
inline constexpr std::uint64_t kDefaultMaxRuns = 100000;
/// Expansions of more runs than this say so and show progress on stderr.
inline constexpr std::uint64_t kExpansionProgressRuns = 10000;

/// Reads, counts, expands and checks a spec: unknown keys, bad values, unknown policies or parameters,
/// missing input files, duplicate runs and more runs than `max_runs` (counted before expanding) are
/// InputErrors naming the spec and the run.
SweepSpec load_sweep_spec(const std::string& path, std::uint64_t max_runs = kDefaultMaxRuns);

/// Run `position` of a spec, built without expanding the others (a sweep's worker process).
SweepRun load_sweep_run(const std::string& path, std::size_t position);

/// A short "policy=fifo, seed=2" description of a run's values, for messages.
std::string describe_run(const SweepRun& run);

}  // namespace dlsim
