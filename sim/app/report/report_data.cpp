#include "sim/app/report/report_data.hpp"

#include "models/base/input_error.hpp"
#include "models/base/json_fields.hpp"
#include "sim/app/report/record_scan.hpp"
#include "sim/app/result_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <queue>
#include <set>
#include <unordered_map>

namespace dlsim::report {

namespace jf = json_fields;

namespace {

std::uint8_t index_of(std::vector<std::string>& names, const std::string& name, std::size_t limit,
                      const std::string& file, const std::string& path) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return static_cast<std::uint8_t>(it - names.begin());
    if (names.size() >= limit)
        throw InputError(
            fmt::format("{}: {}: more than {} distinct values (a report draws at most that many)", file, path, limit));
    names.push_back(name);
    return static_cast<std::uint8_t>(names.size() - 1);
}

const Json* member(const Json& obj, const char* key) {
    const auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
}

/// A time or duration field: a number, or null (NaN) where the record allows it.
double seconds(const Json& rec, const char* key, bool nullable, const std::string& file, const std::string& where) {
    const Json* v = member(rec, key);
    if (v != nullptr && v->is_null() && nullable) return kNaN;
    const std::string path = where + "." + key;
    if (v == nullptr) jf::fail(file, path, nullable ? "a number or null" : "a number");
    if (!v->is_number()) jf::fail(file, path, nullable ? "a number or null" : "a number", v);
    return jf::number(*v, file, path, std::numeric_limits<double>::lowest());
}

/// A count field; missing (a result written before the field existed) counts 0.
std::uint32_t count(const Json& rec, const char* key, const std::string& file, const std::string& where) {
    const Json* v = member(rec, key);
    if (v == nullptr) return 0;
    return static_cast<std::uint32_t>(
        jf::integer(*v, file, where + "." + key, 0, std::numeric_limits<std::uint32_t>::max()));
}

void add_job(ReportData& d, const Json& rec, const std::string& file, std::size_t i) {
    const std::string where = fmt::format("jobs[{}]", i);
    if (!rec.is_object()) jf::fail(file, where, "a job record (an object)", &rec);
    JobColumns& c = d.jobs;
    const Json* id = member(rec, "job_id");
    if (id == nullptr) jf::fail(file, where + ".job_id", "a non-empty string");
    c.ids.push_back(jf::string(*id, file, where + ".job_id"));
    c.submit.push_back(seconds(rec, "submit_time", false, file, where));
    c.start.push_back(seconds(rec, "start_time", true, file, where));
    c.finish.push_back(seconds(rec, "finish_time", true, file, where));
    c.pending.push_back(seconds(rec, "pending_time", true, file, where));
    const Json* gpus = member(rec, "num_gpus");
    if (gpus == nullptr) jf::fail(file, where + ".num_gpus", "an integer >= 0");
    c.gpus.push_back(static_cast<std::uint32_t>(
        jf::integer(*gpus, file, where + ".num_gpus", 0, std::numeric_limits<std::uint32_t>::max())));
    c.preemptions.push_back(count(rec, "preemptions", file, where));
    c.migrations.push_back(count(rec, "migrations", file, where));
    c.resizes.push_back(count(rec, "resizes", file, where));
    const Json* type = member(rec, "gpu_type");
    if (type == nullptr || type->is_null())
        c.type.push_back(kNoType);
    else
        c.type.push_back(
            index_of(d.types, jf::string(*type, file, where + ".gpu_type"), kNoType, file, where + ".gpu_type"));
    const Json* state = member(rec, "state");
    const std::string state_name = state != nullptr && state->is_string() ? state->get<std::string>() : "";
    const auto s = std::find(std::begin(kStates), std::end(kStates), state_name);
    if (s == std::end(kStates))
        jf::fail(file, where + ".state", "pending, queued, running, finished or rejected", state);
    c.state.push_back(static_cast<std::uint8_t>(s - std::begin(kStates)));
    if (const Json* reasons = member(rec, "pending_reasons"); reasons != nullptr) {
        jf::require_object(*reasons, file, where + ".pending_reasons");
        for (const auto& [name, value] : reasons->items()) {
            const std::string path = where + ".pending_reasons." + name;
            c.reason_name.push_back(index_of(d.reasons, name, 250, file, path));
            c.reason_seconds.push_back(jf::number(value, file, path, 0));
        }
    }
    c.reason_offsets.push_back(static_cast<std::uint32_t>(c.reason_name.size()));
}

/// GPU types in cluster order (the result's config.cluster.gpus_by_type), then any others the records name.
void order_types(ReportData& d) {
    std::vector<std::string> order;
    if (d.config.is_object() && d.config.contains("cluster") && d.config["cluster"].is_object() &&
        d.config["cluster"].contains("gpus_by_type") && d.config["cluster"]["gpus_by_type"].is_object())
        for (const auto& item : d.config["cluster"]["gpus_by_type"].items()) order.push_back(item.key());
    for (const auto& t : d.types)
        if (std::find(order.begin(), order.end(), t) == order.end()) order.push_back(t);
    if (order.size() > kNoType) throw InputError(d.result_path + ": more than 254 GPU types");
    std::vector<std::uint8_t> remap(d.types.size());
    for (std::size_t i = 0; i < d.types.size(); ++i)
        remap[i] = static_cast<std::uint8_t>(std::find(order.begin(), order.end(), d.types[i]) - order.begin());
    for (auto& t : d.jobs.type)
        if (t != kNoType) t = remap[t];
    d.types = std::move(order);
}

}  // namespace

ReportData read_result(const std::string& path) {
    if (!std::ifstream(path, std::ios::binary)) throw InputError(path + ": cannot read the result file");
    if (!is_result_file(path))
        throw InputError(
            fmt::format("{}: not a dlsim result file (expected it to start with "
                        "{{\"schema\":\"dlsim.result/1\", as `dlsim run --out` writes it)",
                        path));
    const std::string text = jf::read_file(path);
    if (const std::string problem = result_checksum_problem(text); !problem.empty())
        throw InputError(fmt::format("{}: {}", path, problem));
    jf::check_nesting(text, path);
    ReportData d;
    d.result_path = path;
    Json doc;
    std::size_t record = 0;
    if (!scan_result(text, d, doc, record)) {
        // Not as dlsim writes it: the general parser, whose errors name what is wrong. The records become
        // columns as they are parsed and are dropped from the document (a million records as JSON values
        // would take gigabytes).
        d = ReportData();
        d.result_path = path;
        record = 0;
        std::string top;
        const Json::parser_callback_t columns = [&](int depth, Json::parse_event_t event, Json& parsed) {
            if (depth == 1 && event == Json::parse_event_t::key) {
                top = parsed.get<std::string>();
                return true;
            }
            if (depth == 2 && top == "jobs" && event == Json::parse_event_t::object_end) {
                add_job(d, parsed, path, record++);
                return false;
            }
            return true;
        };
        try {
            doc = Json::parse(text, columns);
        } catch (const Json::exception& e) {
            throw InputError(fmt::format("{}: {}", path, e.what()));
        }
    }
    jf::require_object(doc, path, "(top level)");
    for (const char* key : {"config", "summary", "timeseries", "run"})
        if (!doc.contains(key) || !doc[key].is_object())
            jf::fail(path, key, "an object", doc.contains(key) ? &doc[key] : nullptr);
    if (!doc.contains("jobs") || !doc["jobs"].is_array())
        jf::fail(path, "jobs", "an array", doc.contains("jobs") ? &doc["jobs"] : nullptr);
    if (!doc["jobs"].empty())
        jf::fail(path, fmt::format("jobs[{}]", record), "a job record (an object)", &doc["jobs"][0]);
    const Json& jobs = doc["summary"].contains("jobs") ? doc["summary"]["jobs"] : Json();
    if (!jobs.is_number_unsigned()) jf::fail(path, "summary.jobs", "a count of jobs", &jobs);
    if (jobs.get<std::uint64_t>() != record)
        throw InputError(
            fmt::format("{}: jobs: {} job records for the summary's {} jobs (a run written with "
                        "--no-job-records has none; a report needs them)",
                        path, record, jobs.get<std::uint64_t>()));
    d.run_id = doc.contains("run_id") ? doc["run_id"] : Json();
    d.config = std::move(doc["config"]);
    d.summary = std::move(doc["summary"]);
    d.timeseries = std::move(doc["timeseries"]);
    d.run = std::move(doc["run"]);
    order_types(d);
    return d;
}

namespace {

/// The lowest free GPUs of each node, per layer (layer 1: a job packed onto its partner's GPUs), as the
/// engine's GpuSlots numbers them; node sizes grow to what the log uses, so no cluster file is needed.
class GpuReplay {
public:
    struct Held {
        std::uint32_t node = 0, gpu = 0, layer = 0;
    };

    explicit GpuReplay(std::size_t jobs) : held_(jobs), since_(jobs, 0) {}

    bool holds(std::uint32_t j) const { return !held_[j].empty(); }
    double since(std::uint32_t j) const { return since_[j]; }

    /// Gives job j `count` GPUs of `node`; on the partner's GPUs (layer 1) first when packed.
    void take(std::uint32_t j, std::uint32_t node, std::uint32_t count, std::int64_t partner, double t,
              const std::string& type) {
        if (node >= nodes_.size()) nodes_.resize(node + 1);
        Node& n = nodes_[node];
        since_[j] = t;
        if (partner >= 0 && static_cast<std::uint32_t>(partner) != j)  // a job is never its own partner
            for (const Held& h : held_[static_cast<std::size_t>(partner)]) {
                if (count == 0) break;
                if (h.node != node || h.layer != 0) continue;
                if (n.owner[1].size() <= h.gpu) n.owner[1].resize(h.gpu + 1, kFree);
                if (n.owner[1][h.gpu] != kFree) continue;
                n.owner[1][h.gpu] = j;
                held_[j].push_back({node, h.gpu, 1});
                lane(node, h.gpu, 1, type);
                --count;
            }
        for (std::uint32_t g = 0; count > 0; ++g) {
            if (n.owner[0].size() <= g) n.owner[0].resize(g + 1, kFree);
            if (n.owner[0][g] != kFree) continue;
            n.owner[0][g] = j;
            held_[j].push_back({node, g, 0});
            lane(node, g, 0, type);
            --count;
        }
    }

    /// Frees what job j holds, recording a slice per GPU from its take to t.
    void release(std::uint32_t j, double t, std::vector<std::array<double, 2>>& spans,
                 std::vector<std::uint32_t>& lanes, std::vector<std::uint32_t>& jobs) {
        for (const Held& h : held_[j]) {
            nodes_[h.node].owner[h.layer][h.gpu] = kFree;
            if (t > since_[j]) {
                spans.push_back({since_[j], t});
                lanes.push_back(nodes_[h.node].lane[h.layer][h.gpu]);
                jobs.push_back(j);
            }
        }
        held_[j].clear();
    }

    const std::vector<Held>& held(std::uint32_t j) const { return held_[j]; }

    /// Lanes in (node, layer, GPU) order, and the map from creation order to that order.
    std::vector<Lane> lanes(std::vector<std::uint32_t>& order) const {
        std::vector<Lane> out;
        order.assign(lane_keys_.size(), 0);
        for (std::uint32_t node = 0; node < nodes_.size(); ++node)
            for (std::uint32_t layer = 0; layer < 2; ++layer)
                for (std::uint32_t g = 0; g < nodes_[node].lane[layer].size(); ++g) {
                    const std::uint32_t id = nodes_[node].lane[layer][g];
                    if (id == kFree) continue;
                    order[id] = static_cast<std::uint32_t>(out.size());
                    out.push_back({fmt::format("n{} GPU {}{}", node, g, layer ? " (packed)" : ""), lane_keys_[id]});
                }
        return out;
    }

private:
    static constexpr std::uint32_t kFree = std::numeric_limits<std::uint32_t>::max();
    struct Node {
        std::vector<std::uint32_t> owner[2];  ///< per GPU: the job on it, or kFree
        std::vector<std::uint32_t> lane[2];   ///< per GPU: its lane id (creation order), or kFree
    };
    void lane(std::uint32_t node, std::uint32_t g, std::uint32_t layer, const std::string& type) {
        auto& ids = nodes_[node].lane[layer];
        if (ids.size() <= g) ids.resize(g + 1, kFree);
        if (ids[g] != kFree) return;
        ids[g] = static_cast<std::uint32_t>(lane_keys_.size());
        lane_keys_.push_back(type);
    }
    std::vector<Node> nodes_;
    std::vector<std::string> lane_keys_;  ///< per lane id: its GPU type
    std::vector<std::vector<Held>> held_;
    std::vector<double> since_;
};

/// A time for a message: "never" for a job that did not start or finish.
std::string when(double t) { return std::isnan(t) ? std::string("never") : fmt::format("{}", t); }

/// "n1 GPU 0-2,5, n0 GPU 3": the GPUs a job holds, node by node, as ranges.
std::string gpu_text(const std::vector<GpuReplay::Held>& held) {
    std::string out;
    std::size_t i = 0;
    while (i < held.size()) {
        const auto& h = held[i];
        const bool same_node = i > 0 && held[i - 1].node == h.node && held[i - 1].layer == h.layer;
        out +=
            same_node ? fmt::format(",{}", h.gpu) : fmt::format("{}n{} GPU {}", out.empty() ? "" : ", ", h.node, h.gpu);
        std::size_t k = i + 1;
        while (k < held.size() && held[k].node == h.node && held[k].layer == h.layer &&
               held[k].gpu == held[k - 1].gpu + 1)
            ++k;
        if (k - i > 1) out += fmt::format("-{}", held[k - 1].gpu);
        if (h.layer && (k == held.size() || held[k].node != h.node || held[k].layer != h.layer)) out += " (packed)";
        i = k;
    }
    return out;
}

/// Stable counting sort of `n` items into `buckets` by key: the CSR offsets and the order.
std::vector<std::uint32_t> csr_order(const std::vector<std::uint32_t>& key, std::size_t buckets,
                                     std::vector<std::uint32_t>& offsets) {
    offsets.assign(buckets + 1, 0);
    for (const auto k : key) ++offsets[k + 1];
    std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
    std::vector<std::uint32_t> next(offsets.begin(), offsets.end() - 1), order(key.size());
    for (std::uint32_t i = 0; i < key.size(); ++i) order[next[key[i]]++] = i;
    return order;
}

/// Heterogeneous lookup of job ids by string_view (no string built per line).
struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

/// A line the fast scanner read: every field the report relies on has its type already.
class FastLine {
public:
    explicit FastLine(const FlatLine& line) : l_(line) {}
    double time() const { return l_.find("time")->number; }
    std::string_view event() const { return l_.find("event")->text; }
    bool has(const char* key) const { return l_.find(key) != nullptr; }
    std::string_view id(const char* key) const { return l_.find(key)->text; }
    std::string text(const char* key) const {
        const FlatLine::Field* f = l_.find(key);
        return f == nullptr ? std::string() : std::string(f->text);
    }
    double number_or_nan(const char* key) const {
        const FlatLine::Field* f = l_.find(key);
        return f != nullptr && f->is_number ? f->number : kNaN;
    }
    double rate() const { return l_.find("rate")->number; }
    bool flag(const char* key) const {
        const FlatLine::Field* f = l_.find(key);
        return f != nullptr && !f->is_string && f->text == "true";
    }
    void require_nodes() const {}
    template <class Take>
    void for_nodes(Take take) const {
        for (const auto& [node, count] : l_.nodes) take(node, count);
    }

private:
    const FlatLine& l_;
};

/// A line through nlohmann's parser: each accessor checks its field's type and names the line and field.
class JsonLine {
public:
    JsonLine(const Json& ev, const std::string& at) : ev_(ev), at_(at) {}
    double time() const {
        const Json* v = member(ev_, "time");
        if (v == nullptr) jf::fail(at_, "time", "a number (seconds)");
        return jf::number(*v, at_, "time", std::numeric_limits<double>::lowest());
    }
    std::string_view event() const {
        const Json* v = member(ev_, "event");
        if (v == nullptr || !v->is_string()) jf::fail(at_, "event", "a string", v);
        return v->get_ref<const std::string&>();
    }
    bool has(const char* key) const { return member(ev_, key) != nullptr; }
    std::string_view id(const char* key) const {
        const Json& v = *member(ev_, key);
        jf::string(v, at_, key);  // a non-empty string, or an error naming the field
        return v.get_ref<const std::string&>();
    }
    std::string text(const char* key) const {
        const Json* v = member(ev_, key);
        if (v == nullptr) return "";
        return v->is_string() ? v->get<std::string>() : v->dump();
    }
    double number_or_nan(const char* key) const {
        const Json* v = member(ev_, key);
        return v != nullptr && v->is_number() ? v->get<double>() : kNaN;
    }
    double rate() const {
        const Json* r = member(ev_, "rate");
        if (r == nullptr || !r->is_number()) jf::fail(at_, "rate", "a number", r);
        return r->get<double>();
    }
    bool flag(const char* key) const {
        const Json* v = member(ev_, key);
        return v != nullptr && v->is_boolean() && v->get<bool>();
    }
    void require_nodes() const {
        const Json* nodes = member(ev_, "nodes");
        if (nodes == nullptr || !nodes->is_array())
            jf::fail(at_, "nodes", "[[node, gpus], ...] (where the job runs)", nodes);
    }
    template <class Take>
    void for_nodes(Take take) const {
        const Json& nodes = *member(ev_, "nodes");
        for (std::size_t k = 0; k < nodes.size(); ++k) {
            const Json& share = nodes[k];
            const std::string p = fmt::format("nodes[{}]", k);
            if (!share.is_array() || share.size() != 2) jf::fail(at_, p, "[node, gpus]", &share);
            const auto node = jf::integer(share[0], at_, p + "[0]", 0, 1'000'000);
            const auto count = jf::integer(share[1], at_, p + "[1]", 0, 1'000'000);
            take(static_cast<std::uint32_t>(node), static_cast<std::uint32_t>(count));
        }
    }

private:
    const Json& ev_;
    const std::string& at_;
};

}  // namespace

void read_event_log(const std::string& path, ReportData& d) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot read the event log");
    d.event_log_path = path;
    const std::size_t n = d.jobs.size();
    std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> index;  // lookups only; nothing iterates it
    index.reserve(n);
    for (std::uint32_t j = 0; j < n; ++j)
        if (!index.emplace(d.jobs.ids[j], j).second)
            throw InputError(fmt::format("{}: job id \"{}\" appears twice; the event log cannot name it", d.result_path,
                                         d.jobs.ids[j]));
    // Texts in order of first appearance (the map only answers lookups; nothing iterates it).
    std::unordered_map<std::string, std::uint32_t> interned;
    auto intern = [&](const std::string& s) {
        const auto [it, added] = interned.emplace(s, static_cast<std::uint32_t>(d.strings.size()));
        if (added) d.strings.push_back(s);
        return it->second;
    };
    intern("");
    GpuReplay gpus(n);
    // Each job's first start and finish in the log, checked against its record at the end.
    std::vector<double> first_start(n, kNaN), finished(n, kNaN);
    std::vector<std::array<double, 2>> spans;
    std::vector<std::uint32_t> span_lane, span_job;
    std::vector<std::uint32_t> ev_job;
    JobEvents raw;
    std::string line;
    std::uint64_t lineno = 0;
    double last = -std::numeric_limits<double>::infinity();
    auto at = [&] { return fmt::format("{}:{}", path, lineno); };
    // One line, read through either accessor (FastLine or JsonLine below).
    auto process = [&](const auto& ev) {
        const double t = ev.time();
        if (t < last)
            throw InputError(
                fmt::format("{}: time {} is before the previous line's {} (expected the log's lines in time order)",
                            at(), t, last));
        last = t;
        const std::string_view what = ev.event();
        auto job_ref = [&](const char* key) -> std::int32_t {
            if (!ev.has(key)) return -1;
            const std::string_view id = ev.id(key);
            const auto it = index.find(id);
            if (it == index.end())
                throw InputError(
                    fmt::format("{}: {}: job \"{}\" is not in {} (expected the event log of the run that wrote it)",
                                at(), key, id, d.result_path));
            return static_cast<std::int32_t>(it->second);
        };
        if (what == "wait_rest") {
            d.wait_rest.time.push_back(t);
            d.wait_rest.ref.push_back(job_ref("behind"));
            d.wait_rest.text.push_back(intern(ev.text("reason")));
            return;
        }
        if (!ev.has("job_id")) {
            if (what == "arrive" || what == "wait" || what == "start" || what == "preempt" || what == "finish" ||
                what == "migrate" || what == "resize" || what == "rate" || what == "reject")
                jf::fail(at(), "job_id", "a job id (a string)");
            return;  // a line of a kind this report does not know, about no job
        }
        const auto j = static_cast<std::uint32_t>(job_ref("job_id"));
        EventKind kind = EventKind::Other;
        double number = kNaN;
        std::int32_t ref = -1;
        std::string text;
        auto place = [&](bool moving) {
            ev.require_nodes();
            const std::string type = ev.text("gpu_type");
            if (moving) {
                if (!gpus.holds(j))
                    throw InputError(
                        fmt::format("{}: {} of job \"{}\", which holds no GPUs here (expected it to be running)", at(),
                                    what, d.jobs.ids[j]));
                gpus.release(j, t, spans, span_lane, span_job);
            } else if (gpus.holds(j)) {
                throw InputError(fmt::format(
                    "{}: start of job \"{}\", which already runs since {} (expected a preempt or finish line first)",
                    at(), d.jobs.ids[j], gpus.since(j)));
            }
            ref = job_ref("packed_with");
            ev.for_nodes([&](std::uint32_t node, std::uint32_t count) { gpus.take(j, node, count, ref, t, type); });
            number = ev.number_or_nan("gpus");
            if (std::isnan(number)) number = static_cast<double>(gpus.held(j).size());
            text = type + ": " + gpu_text(gpus.held(j));
            if (const std::string b = ev.text("batch_size"); !b.empty()) text += ", batch " + b;
            const std::string cause = ev.text("cause");
            if (!cause.empty() && cause != "moved" && cause != "resized") text += " (" + cause + ")";
        };
        auto stop = [&]() {
            if (!gpus.holds(j))
                throw InputError(
                    fmt::format("{}: {} of job \"{}\", which holds no GPUs here (expected a start line first)", at(),
                                what, d.jobs.ids[j]));
            gpus.release(j, t, spans, span_lane, span_job);
        };
        if (what == "arrive") {
            kind = EventKind::Arrive;
            number = ev.number_or_nan("gpus");
        } else if (what == "wait") {
            kind = EventKind::Wait;
            if (ev.flag("rest")) {
                text = "rest";
            } else {
                text = ev.text("reason");
                ref = job_ref("behind");
                if (const std::string vc = ev.text("vc"); !vc.empty()) text += " (VC " + vc + ")";
            }
        } else if (what == "start") {
            kind = EventKind::Start;
            place(false);
            if (std::isnan(first_start[j])) first_start[j] = t;
        } else if (what == "migrate" || what == "resize") {
            kind = what == "migrate" ? EventKind::Migrate : EventKind::Resize;
            place(true);
        } else if (what == "preempt") {
            kind = EventKind::Preempt;
            stop();
            text = ev.text("cause");
            ref = job_ref("by");
            if (const std::string vc = ev.text("vc"); !vc.empty()) text += " (VC " + vc + ")";
        } else if (what == "finish") {
            kind = EventKind::Finish;
            stop();
            finished[j] = t;
        } else if (what == "rate") {
            kind = EventKind::Rate;
            number = ev.rate();
            if (const std::string b = ev.text("batch_size"); !b.empty()) text = "batch " + b;
        } else if (what == "reject") {
            kind = EventKind::Reject;
            text = ev.text("reason");
        } else {
            text = what;
        }
        ev_job.push_back(j);
        raw.time.push_back(t);
        raw.kind.push_back(static_cast<std::uint8_t>(kind));
        raw.number.push_back(number);
        raw.ref.push_back(ref);
        raw.text.push_back(intern(text));
    };
    FlatLine flat;
    while (std::getline(in, line)) {
        ++lineno;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        if (scan_log_line(line, flat)) {
            process(FastLine(flat));
            continue;
        }
        const std::string where = at();
        Json ev;
        try {
            ev = Json::parse(line);
        } catch (const Json::exception& e) {
            throw InputError(fmt::format("{}: expected a JSON object (one event-log line of dlsim run --event-log): {}",
                                         where, e.what()));
        }
        if (!ev.is_object()) jf::fail(where, "(line)", "an object", &ev);
        process(JsonLine(ev, where));
    }
    if (in.bad()) throw InputError(path + ": read error");
    d.event_lines = lineno;
    // The log must be of the run that wrote the result: every job starts and finishes when its record says.
    auto same = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; };
    for (std::uint32_t j = 0; j < n; ++j)
        if (!same(first_start[j], d.jobs.start[j]) || !same(finished[j], d.jobs.finish[j]))
            throw InputError(fmt::format(
                "{}: job \"{}\" starts at {} and finishes at {} in this log, but at {} and {} in {} (expected the "
                "event log of the run that wrote it)",
                path, d.jobs.ids[j], when(first_start[j]), when(finished[j]), when(d.jobs.start[j]),
                when(d.jobs.finish[j]), d.result_path));
    // Jobs still holding GPUs when the log ends (a run stopped early) hold them to its last line.
    for (std::uint32_t j = 0; j < n; ++j)
        if (gpus.holds(j)) gpus.release(j, last, spans, span_lane, span_job);

    // Each job's lines, in log order.
    const std::vector<std::uint32_t> by_job = csr_order(ev_job, n, d.events.offsets);
    JobEvents& e = d.events;
    for (const auto i : by_job) {
        e.time.push_back(raw.time[i]);
        e.kind.push_back(raw.kind[i]);
        e.number.push_back(raw.number[i]);
        e.ref.push_back(raw.ref[i]);
        e.text.push_back(raw.text[i]);
    }

    // The Gantt: slices lane by lane. A lane's slices were closed in time order and never overlap.
    Gantt& g = d.gantt;
    g.from_event_log = true;
    std::vector<std::uint32_t> lane_order;
    g.lanes = gpus.lanes(lane_order);
    for (auto& l : span_lane) l = lane_order[l];
    const std::vector<std::uint32_t> by_lane = csr_order(span_lane, g.lanes.size(), g.offsets);
    g.t0 = 0;
    if (!d.jobs.submit.empty()) g.t0 = *std::min_element(d.jobs.submit.begin(), d.jobs.submit.end());
    for (const auto i : by_lane) {
        g.start.push_back(spans[i][0] - g.t0);
        g.end.push_back(spans[i][1] - g.t0);
        g.job.push_back(span_job[i]);
    }
}

void lifetime_gantt(ReportData& d) {
    const JobColumns& c = d.jobs;
    Gantt& g = d.gantt;
    g.from_event_log = false;
    double t_end = 0;
    g.t0 = c.submit.empty() ? 0 : *std::min_element(c.submit.begin(), c.submit.end());
    for (std::size_t j = 0; j < c.size(); ++j) {
        if (!std::isnan(c.finish[j])) t_end = std::max(t_end, c.finish[j]);
        if (!std::isnan(c.start[j])) t_end = std::max(t_end, c.start[j]);
    }
    std::vector<std::array<double, 2>> spans;
    std::vector<std::uint32_t> span_lane, span_job;
    for (std::size_t type = 0; type < d.types.size(); ++type) {
        std::vector<std::uint32_t> jobs;
        for (std::uint32_t j = 0; j < c.size(); ++j)
            if (c.type[j] == type && !std::isnan(c.start[j])) jobs.push_back(j);
        std::stable_sort(jobs.begin(), jobs.end(), [&](auto a, auto b) { return c.start[a] < c.start[b]; });
        // Rows of this type: the lowest free rows go to each job in start order, for its lifetime.
        using Busy = std::pair<double, std::uint32_t>;  // (end, row)
        std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
        std::set<std::uint32_t> free_rows;
        const auto first = static_cast<std::uint32_t>(g.lanes.size());
        std::uint32_t rows = 0;
        for (const auto j : jobs) {
            const double a = c.start[j], b = std::isnan(c.finish[j]) ? t_end : c.finish[j];
            while (!busy.empty() && busy.top().first <= a) {
                free_rows.insert(busy.top().second);
                busy.pop();
            }
            for (std::uint32_t k = 0; k < std::max<std::uint32_t>(1, c.gpus[j]); ++k) {
                std::uint32_t row;
                if (free_rows.empty()) {
                    row = rows++;
                } else {
                    row = *free_rows.begin();
                    free_rows.erase(free_rows.begin());
                }
                busy.push({b, row});
                if (b > a) {
                    spans.push_back({a, b});
                    span_lane.push_back(first + row);
                    span_job.push_back(j);
                }
            }
        }
        for (std::uint32_t r = 0; r < rows; ++r)
            g.lanes.push_back({fmt::format("{} row {}", d.types[type], r), d.types[type]});
    }
    // Within a row, lifetimes were laid down in start order and never overlap.
    const std::vector<std::uint32_t> by_lane = csr_order(span_lane, g.lanes.size(), g.offsets);
    for (const auto i : by_lane) {
        g.start.push_back(spans[i][0] - g.t0);
        g.end.push_back(spans[i][1] - g.t0);
        g.job.push_back(span_job[i]);
    }
}

}  // namespace dlsim::report
