#include "traces/job_record.hpp"

namespace dlsim {

StrId StringTable::intern(std::string_view s) {
    if (s.empty()) return 0;
    auto it = index_.find(s);
    if (it != index_.end()) return it->second;
    const auto id = static_cast<StrId>(strings_.size());
    strings_.emplace_back(s);
    index_.emplace(std::string(s), id);
    return id;
}

}  // namespace dlsim
