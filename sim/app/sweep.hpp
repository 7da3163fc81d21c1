#pragma once
// Running a sweep: the runs of a spec (or one shard of them, for a Slurm job array), each in a worker
// process of its own, a few at a time; each result written atomically as soon as it is done, then the
// index. A run whose process crashes, is killed, exits without a result or runs out of time is
// recorded as failed with how it ended, and the others go on.
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
    std::string out_dir;  ///< default results/<spec name>
    unsigned jobs = 0;    ///< runs at once; 0 = the number of cores
    Shard shard;
    bool resume = true;         ///< skip runs whose complete result exists
    bool retry_failed = false;  ///< when resuming, run failed runs again (else their records stay)
    double run_timeout = 0;     ///< seconds of wall time a run may take before it is killed; 0 = no limit
    std::string worker_binary;  ///< the dlsim executable that runs each run; empty: this process's own
};

/// Runs the spec's runs and, unless sharded, writes the index. Returns the exit code: 0 when every
/// run is done, 2 when some failed (their errors are in runs/<id>.error.json and the index).
int run_sweep(const SweepSpec& spec, const SweepOptions& options);

/// The worker process of one run (`dlsim sweep-worker SPEC POSITION ID DIR`, started by run_sweep):
/// builds run POSITION of the spec, checks it is still run ID, runs it into DIR. Exit 0 with the
/// result written, 3 with its failure recorded in DIR/runs/<ID>.error.json.
int run_sweep_worker(const std::string& spec_path, std::size_t position, const std::string& id, const std::string& dir);

/// Builds the index from what the shards left in `out_dir`: 0 when every run is done, 2 otherwise.
int merge_sweep(const SweepSpec& spec, const std::string& out_dir);

/// The results folder of a spec: `out` if given, else results/<name>.
std::string sweep_dir(const SweepSpec& spec, const std::string& out);

}  // namespace dlsim
