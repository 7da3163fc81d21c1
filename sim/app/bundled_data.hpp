#pragma once
// Where the bundled cluster specs, profiles, sample trace and example policies are: found from the file
// that holds this code (the dlsim executable, a test binary or the Python module), so a build tree, a moved
// checkout and an installed copy each read their own data, never a path compiled in.
#include <string>

namespace dlsim {

/// The folder that holds models/, traces/samples/ and policies/foreign/examples/: from the binary's folder
/// and up to three folders above it, the first `share/dlsim` (an install: P/bin/dlsim, P/lib/python3/...),
/// or the folder named by a `DLSIM_DATA` file (a build tree: it holds the path to the source tree, relative
/// to the file's folder). "" when there is none.
const std::string& bundled_data_root();

/// A bundled file by its path below the data root (e.g. "models/clusters/gavel_simulated.json"); without a
/// data root, the relative path itself (so the error that follows names what was missing).
std::string bundled_file(const std::string& relative);

}  // namespace dlsim
