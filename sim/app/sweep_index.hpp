#pragma once
// A sweep's on-disk state and its index. Every run leaves `runs/<id>.json` (its result) or
// `runs/<id>.error.json` (why it failed); the index (index.csv, index.json) is always built from
// those files, so a local sweep and a merge of Slurm shards give the same bytes.
#include "sim/app/sweep_spec.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dlsim {

enum class RunStatus { Done, Failed, Missing };

struct RunState {
    RunStatus status = RunStatus::Missing;
    nlohmann::ordered_json summary;  ///< the result's summary when done
    std::string version;             ///< dlsim version that made the result
    std::string error;               ///< why it failed, or why an existing file was not usable
};

std::string result_path(const std::string& dir, const SweepRun& run);
std::string error_path(const std::string& dir, const SweepRun& run);

/// What `dir` holds for this run. A result that fails its checksum (result_check.hpp), does not parse,
/// or belongs to another run counts as missing (and says why in `error`): it will be run again.
RunState read_run_state(const std::string& dir, const SweepRun& run);

/// Records a failed run (atomically): `kind` is input, internal, signal, exit or timeout; `output_tail`
/// the last lines its process printed, when it died without saying why itself.
void write_run_error(const std::string& dir, const SweepRun& run, const std::string& kind, const std::string& message,
                     const std::vector<std::string>& output_tail = {});

/// The summary metrics, in index column order: the summary keys marked for the index in the result
/// field table (result_fields.hpp).
const std::vector<std::string>& index_metrics();

/// Writes dir/index.csv and dir/index.json for every run of the spec, in spec order.
void write_index(const SweepSpec& spec, const std::string& dir, const std::vector<RunState>& states);

}  // namespace dlsim
