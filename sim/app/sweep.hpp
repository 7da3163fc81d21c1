#pragma once
// Running a sweep: the runs of a spec in parallel in this process (or one shard of them, for a
// Slurm job array), each result written atomically as soon as it is done, then the index.
#include "sim/app/sweep_spec.hpp"

#include <string>

namespace dlsim {

/// Shard i of N runs the runs whose position p has p % N == i: deterministic, disjoint, covering,
/// and each shard gets every N-th run of the grid, so heavy corners spread over shards.
struct Shard {
    std::size_t index = 0, count = 1;
    bool selects(std::size_t position) const { return position % count == index; }
};

/// "i/N" with 0 <= i < N; an InputError otherwise.
Shard parse_shard(const std::string& text);

struct SweepOptions {
    std::string out_dir;      ///< default results/<spec name>
    unsigned jobs = 0;        ///< runs at once; 0 = the number of cores
    Shard shard;
    bool resume = true;       ///< skip runs whose complete result exists
};

/// Runs the spec's runs and, unless sharded, writes the index. Returns the exit code: 0 when every
/// run is done, 2 when some failed (their errors are in runs/<id>.error.json and the index).
int run_sweep(const SweepSpec& spec, const SweepOptions& options);

/// Builds the index from what the shards left in `out_dir`: 0 when every run is done, 2 otherwise.
int merge_sweep(const SweepSpec& spec, const std::string& out_dir);

/// The results folder of a spec: `out` if given, else results/<name>.
std::string sweep_dir(const SweepSpec& spec, const std::string& out);

}  // namespace dlsim
