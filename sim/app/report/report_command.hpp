#pragma once
// `dlsim report RESULT.json [--event-log E.jsonl] -o report.html` and `dlsim report SWEEP_DIR -o sweep.html`.

namespace dlsim {

/// The command's entry (argv[0] is "report"); returns the exit code, throws InputError on bad input.
int cmd_report(int argc, char** argv);

}  // namespace dlsim
