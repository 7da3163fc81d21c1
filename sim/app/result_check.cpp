#include "sim/app/result_check.hpp"

#include "models/base/input_error.hpp"
#include "models/base/json_fields.hpp"
#include "sim/app/file_hash.hpp"

#include <fmt/format.h>

#include <fstream>

namespace dlsim {

namespace jf = json_fields;

bool is_result_file(const std::string& path) {
    constexpr std::string_view kStart = "{\"schema\":\"dlsim.result/1\"";
    std::ifstream in(path, std::ios::binary);
    std::string head(kStart.size(), '\0');
    return in.read(head.data(), static_cast<std::streamsize>(head.size())) && head == kStart;
}

std::string result_checksum_problem(std::string_view text) {
    constexpr std::size_t kHex = 64;
    const std::size_t tail = kChecksumKey.size() + kHex + kChecksumEnd.size();
    if (text.size() < tail || text.substr(text.size() - kChecksumEnd.size()) != kChecksumEnd ||
        text.substr(text.size() - tail, kChecksumKey.size()) != kChecksumKey)
        return fmt::format("no checksum at its end (expected the last member of \"run\" to be {}<64 hex digits>\")",
                           kChecksumKey);
    const std::string_view stored = text.substr(text.size() - kChecksumEnd.size() - kHex, kHex);
    const std::string actual = sha256_text(text.substr(0, text.size() - tail));
    if (stored != actual)
        return fmt::format(
            "checksum mismatch: the file says sha256:{} but its content hashes to sha256:{} (changed after "
            "dlsim wrote it)",
            stored, actual);
    return {};
}

std::string check_result_file(const std::string& path) {
    const std::string text = jf::read_file(path);
    if (const std::string problem = result_checksum_problem(text); !problem.empty())
        throw InputError(fmt::format("{}: {}", path, problem));
    const jf::Json doc = jf::parse_text(text, path);
    jf::require_object(doc, path, "(top level)");
    if (jf::string_member(doc, "schema") != "dlsim.result/1")
        jf::fail(path, "schema", "\"dlsim.result/1\"", doc.contains("schema") ? &doc["schema"] : nullptr);
    const std::string id = doc.contains("run_id") ? jf::string(doc["run_id"], path, "run_id") : "";
    if (id.size() != 16 || id.find_first_not_of("0123456789abcdef") != std::string::npos)
        jf::fail(path, "run_id", "16 lower-case hex digits", doc.contains("run_id") ? &doc["run_id"] : nullptr);
    for (const char* key : {"config", "summary", "timeseries", "run"})
        if (!doc.contains(key) || !doc[key].is_object())
            jf::fail(path, key, "an object", doc.contains(key) ? &doc[key] : nullptr);
    if (!doc.contains("jobs") || !doc["jobs"].is_array())
        jf::fail(path, "jobs", "an array", doc.contains("jobs") ? &doc["jobs"] : nullptr);
    return fmt::format("valid result, run {}, {} job records, checksum matches", id, doc["jobs"].size());
}

}  // namespace dlsim
