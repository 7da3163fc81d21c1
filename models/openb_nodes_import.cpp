// STUB: to be written.
#include "models/cluster_import.hpp"
#include "models/input_error.hpp"

namespace dlsim {

std::string cluster_from_openb_nodes(const std::string& path) { throw InputError(path + ": not written yet"); }

}  // namespace dlsim
