// The timeline (Chrome trace-event JSON) and the Batsim job table of a run worked by hand: every event well
// formed, no two slices on one GPU track overlapping, each job's slices on the GPUs and at the times derived
// below, the restart split from the running part, counters that average to the run's time series, one flow
// per preemption and resume, and Batsim's columns field by field.
#include "models/base/input_error.hpp"
#include "models/base/json_fields.hpp"
#include "sim/app/run.hpp"
#include "sim/held_gpus.hpp"
#include "tests/support/test_support.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::timeline_tests {

namespace {

// 2 nodes x 2 GPUs (node 0: GPUs 0-1, node 1: GPUs 2-3), srtf, restart cost 1.5 s, 1 unit/s per GPU.
//  a (2 GPUs, 10 s) at 0 takes node 0: runs 0-10.
//  b (2 GPUs, 20 s) at 1 takes node 1: runs 1-2.
//  c (2 GPUs, 3 s) at 2: remaining a 8, b 19, c 3: srtf preempts b (19 s left); c runs 2-5 on node 1.
//  At 5 b restarts on node 1: restart 5-6.5, then its 19 s: running 6.5-25.5.
// Queued jobs: 0 from 0, 1 from 2 (b), 0 from 5. Busy GPUs: 2 from 0, 4 from 1, 2 from 10, 0 from 25.5.
const char* kTrace = "job_id,submit_time,num_gpus,duration\na,0,2,10\nb,1,2,20\nc,2,2,3\n";

struct Slice {
    int pid, tid;
    long long ts, dur;
    std::string state;
    friend bool operator==(const Slice&, const Slice&) = default;
    friend std::ostream& operator<<(std::ostream& os, const Slice& s) {
        return os << "{pid " << s.pid << " tid " << s.tid << " ts " << s.ts << " dur " << s.dur << " " << s.state
                  << "}";
    }
};

RunConfig config(const std::string& name) {
    RunConfig c;
    c.policy = "srtf";
    c.restart.restart_cost = 1.5;
    c.out.clear();
    c.timeline = temp_path(name + ".json");
    c.event_log = temp_path(name + ".jsonl");
    c.jobs_csv = temp_path(name + ".csv");
    c.jobs_csv_format = JobsCsvFormat::Batsim;
    return c;
}

std::vector<std::string> lines_of(const std::string& path) {
    std::ifstream f(path);
    std::vector<std::string> out;
    for (std::string line; std::getline(f, line);) out.push_back(line);
    return out;
}

std::map<std::string, std::vector<Slice>> slices_by_job(const json_fields::Json& events) {
    std::map<std::string, std::vector<Slice>> out;
    for (const auto& e : events)
        if (e["ph"] == "X")
            out[e["name"].get<std::string>()].push_back({e["pid"].get<int>(), e["tid"].get<int>(),
                                                         e["ts"].get<long long>(), e["dur"].get<long long>(),
                                                         e["args"]["state"].get<std::string>()});
    for (auto& [job, s] : out)
        std::sort(s.begin(), s.end(), [](const Slice& x, const Slice& y) {
            return std::tie(x.ts, x.pid, x.tid) < std::tie(y.ts, y.pid, y.tid);
        });
    return out;
}

}  // namespace

TEST_CASE("timeline: a hand-worked srtf run with a preemption and a restart", "[engine][timeline]") {
    const RunInputs in = inputs_from_text(homogeneous_cluster_json(2, 2), kUnusedProfile, kTrace);
    const RunConfig c = config("timeline-srtf");
    const RunOutcome o = simulate(in, c);
    write_outputs(in, c, o, {});
    REQUIRE(finish_s(o, 1) == 25.5);
    REQUIRE(o.summary.preemptions == 1);

    const auto doc = json_fields::parse_file(c.timeline);
    CHECK(doc["displayTimeUnit"] == "ms");
    const auto& events = doc["traceEvents"];
    REQUIRE(events.is_array());

    // Well formed: a known phase, integer pid (and tid, ts where the phase needs them), names as strings.
    int flows_out = 0, flows_in = 0;
    std::map<std::pair<int, int>, std::vector<std::pair<long long, long long>>> tracks;
    std::set<std::pair<int, int>> named_threads;
    for (const auto& e : events) {
        INFO(e.dump());
        const std::string ph = e.at("ph").get<std::string>();
        REQUIRE(std::set<std::string>{"M", "X", "C", "i", "s", "f"}.count(ph) == 1);
        REQUIRE(e.at("pid").is_number_integer());
        REQUIRE(e.at("name").is_string());
        if (ph == "M") {
            if (e["name"] == "process_sort_index")
                REQUIRE(e.at("args").at("sort_index").is_number_integer());
            else
                REQUIRE(e.at("args").at("name").is_string());
            if (e["name"] == "thread_name") named_threads.insert({e["pid"].get<int>(), e["tid"].get<int>()});
            continue;
        }
        REQUIRE(e.at("ts").is_number_integer());
        REQUIRE(e["ts"].get<long long>() >= 0);
        if (ph == "X") {
            REQUIRE(e.at("dur").is_number_integer());
            REQUIRE(e["dur"].get<long long>() > 0);
            const auto& a = e.at("args");
            CHECK(a.at("policy") == "srtf");
            CHECK(a.at("gpu_type") == "g");
            CHECK(a.at("gpus") == 2);
            CHECK((a.at("state") == "running" || a.at("state") == "restart"));
            const std::pair track{e["pid"].get<int>(), e.at("tid").get<int>()};
            CHECK(named_threads.count(track) == 1);  // its thread_name came first
            tracks[track].push_back({e["ts"].get<long long>(), e["dur"].get<long long>()});
        }
        if (ph == "s") ++flows_out;
        if (ph == "f") {
            ++flows_in;
            CHECK(e.at("bp") == "e");
        }
    }
    // Perfetto's rule: slices on one track never overlap.
    for (auto& [track, s] : tracks) {
        std::sort(s.begin(), s.end());
        for (std::size_t i = 1; i < s.size(); ++i) CHECK(s[i - 1].first + s[i - 1].second <= s[i].first);
    }

    // Each job's slices, in µs: a on node 0's GPUs, b and c on node 1's, b's restart split off at 6.5 s.
    const auto by_job = slices_by_job(events);
    CHECK(by_job.at("a") == std::vector<Slice>{{1, 1, 0, 10'000'000, "running"}, {1, 2, 0, 10'000'000, "running"}});
    CHECK(by_job.at("c") ==
          std::vector<Slice>{{2, 1, 2'000'000, 3'000'000, "running"}, {2, 2, 2'000'000, 3'000'000, "running"}});
    CHECK(by_job.at("b") == std::vector<Slice>{{2, 1, 1'000'000, 1'000'000, "running"},
                                               {2, 2, 1'000'000, 1'000'000, "running"},
                                               {2, 1, 5'000'000, 1'500'000, "restart"},
                                               {2, 2, 5'000'000, 1'500'000, "restart"},
                                               {2, 1, 6'500'000, 19'000'000, "running"},
                                               {2, 2, 6'500'000, 19'000'000, "running"}});

    // One flow: out of b's preempted slice (1 µs before its end at 2 s), into its resumed one at 5 s.
    REQUIRE(flows_out == 1);
    REQUIRE(flows_in == 1);
    for (const auto& e : events) {
        if (e["ph"] == "s")
            CHECK(std::tuple(e["pid"].get<int>(), e["tid"].get<int>(), e["ts"].get<long long>(), e["id"].get<int>()) ==
                  std::tuple(2, 1, 1'999'999LL, 1));
        if (e["ph"] == "f")
            CHECK(std::tuple(e["pid"].get<int>(), e["tid"].get<int>(), e["ts"].get<long long>(), e["id"].get<int>()) ==
                  std::tuple(2, 1, 5'000'000LL, 1));
    }
    // Instants: three arrivals, one preemption (on b's first GPU at 2 s).
    std::vector<std::string> instants;
    for (const auto& e : events)
        if (e["ph"] == "i")
            instants.push_back(fmt::format("{}@{}", e["name"].get<std::string>(), e["ts"].get<long long>()));
    CHECK(instants ==
          std::vector<std::string>{"arrival a@0", "arrival b@1000000", "arrival c@2000000", "preempt b@2000000"});

    // Counters: the step functions, hand-derived, and their averages over each of the time series'
    // intervals equal to the series.
    std::map<long long, double> queued, busy;
    for (const auto& e : events) {
        if (e["ph"] != "C") continue;
        if (e["name"] == "queued jobs") queued[e["ts"].get<long long>()] = e["args"]["queued"].get<double>();
        if (e["name"] == "busy GPUs") busy[e["ts"].get<long long>()] = e["args"]["g"].get<double>();
    }
    CHECK(queued == std::map<long long, double>{
                        {0, 0}, {1'000'000, 0}, {2'000'000, 1}, {5'000'000, 0}, {10'000'000, 0}, {25'500'000, 0}});
    CHECK(busy == std::map<long long, double>{
                      {0, 2}, {1'000'000, 4}, {2'000'000, 4}, {5'000'000, 4}, {10'000'000, 2}, {25'500'000, 0}});
    const auto average = [](const std::map<long long, double>& steps, double a, double b) {
        double sum = 0;
        for (auto it = steps.begin(); it != steps.end(); ++it) {
            const double from = std::max(a, static_cast<double>(it->first) / 1e6);
            const auto next = std::next(it);
            const double to = std::min(b, next == steps.end() ? b : static_cast<double>(next->first) / 1e6);
            if (to > from) sum += it->second * (to - from);
        }
        return sum / (b - a);
    };
    const Timeseries& ts = o.timeseries;
    REQUIRE(ts.time.size() > 2);
    for (std::size_t i = 0; i < ts.time.size(); ++i) {
        const double end = i + 1 < ts.time.size() ? ts.time[i + 1] : 25.5;
        INFO("time series interval " << ts.time[i] << " - " << end);
        CHECK(average(queued, ts.time[i], end) == Approx(ts.queued[i]).epsilon(1e-9));
        CHECK(average(busy, ts.time[i], end) == Approx(ts.busy[0][i]).epsilon(1e-9));
    }

    // Batsim's out_jobs.csv, field by field (times in s; stretch = turnaround / execution time).
    const auto csv = lines_of(c.jobs_csv);
    REQUIRE(csv.size() == 4);
    CHECK(csv[0] ==
          "job_id,workload_name,submission_time,requested_number_of_resources,requested_time,success,"
          "starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources");
    CHECK(csv[1] == "a,trace,0,2,10,1,0,10,10,0,10,1,0-1");
    CHECK(csv[2] == "b,trace,1,2,20,1,1,24.5,25.5,0,24.5,1,2-3");
    CHECK(csv[3] == "c,trace,2,2,3,1,2,3,5,0,3,1,2-3");

    // allocated_resources: the GPUs of the nodes the event log shows each job starting on.
    std::map<std::string, std::set<int>> logged;
    for (const std::string& line : lines_of(c.event_log)) {
        const auto e = json_fields::Json::parse(line);
        if (e["event"] != "start") continue;
        for (const auto& share : e["nodes"]) {
            REQUIRE(share[1] == 2);  // whole nodes: the node names its GPUs
            for (int g = 0; g < 2; ++g) logged[e["job_id"].get<std::string>()].insert(2 * share[0].get<int>() + g);
        }
    }
    for (std::size_t j = 0; j < 3; ++j) {
        const std::string id = in.trace.jobs[j].id;
        INFO(id);
        const std::vector<GpuIdx> held(logged[id].begin(), logged[id].end());
        CHECK(o.held_gpus[j] == held);
        CHECK(csv[j + 1].substr(csv[j + 1].rfind(',') + 1) == interval_set(held));
    }
}

TEST_CASE("timeline: a window clips slices and keeps only its instants", "[engine][timeline]") {
    const RunInputs in = inputs_from_text(homogeneous_cluster_json(2, 2), kUnusedProfile, kTrace);
    RunConfig c = config("timeline-window");
    c.timeline_from = 3;
    c.timeline_to = 7;
    simulate(in, c);
    const auto events = json_fields::parse_file(c.timeline)["traceEvents"];
    const auto by_job = slices_by_job(events);
    CHECK(by_job.at("a") ==
          std::vector<Slice>{{1, 1, 3'000'000, 4'000'000, "running"}, {1, 2, 3'000'000, 4'000'000, "running"}});
    CHECK(by_job.at("b") == std::vector<Slice>{{2, 1, 5'000'000, 1'500'000, "restart"},
                                               {2, 2, 5'000'000, 1'500'000, "restart"},
                                               {2, 1, 6'500'000, 500'000, "running"},
                                               {2, 2, 6'500'000, 500'000, "running"}});
    int instants = 0, flows = 0, counters_before = 0;
    for (const auto& e : events) {
        instants += e["ph"] == "i";
        flows += e["ph"] == "s" || e["ph"] == "f";
        if (e["ph"] == "C") counters_before += e["ts"].get<long long>() < 3'000'000;
    }
    CHECK(instants == 0);  // arrivals and the preemption are before 3 s
    CHECK(flows == 0);     // its start is outside: the resume has nothing to link to
    CHECK(counters_before == 0);
}

TEST_CASE("timeline window and Batsim table: bad values and the interval-set text", "[bad-input][timeline]") {
    CHECK(interval_set({}).empty());
    CHECK(interval_set({0, 1, 2, 3, 8, 10, 11}) == "0-3 8 10-11");
    CHECK(interval_set({5}) == "5");
    for (const char* bad : {"5:3", "x:1", "-1:4", "3", "3:3"}) {
        INFO(bad);
        RunConfig c;
        CHECK_THROWS_WITH(apply_flag(c, *find_run_config_key("timeline_window"), {bad}),
                          Catch::Contains("--timeline-window: expected FROM:TO") && Catch::Contains(bad));
    }
    RunConfig open;
    apply_flag(open, *find_run_config_key("timeline_window"), {"10:"});
    apply_flag(open, *find_run_config_key("jobs_csv_format"), {"batsim"});
    CHECK(open.timeline_from == 10);
    CHECK(open.timeline_to == -1);
    CHECK(open.jobs_csv_format == JobsCsvFormat::Batsim);
    CHECK_THROWS_WITH(apply_flag(open, *find_run_config_key("jobs_csv_format"), {"swf"}),
                      Catch::Contains("--jobs-csv-format"));
}

}  // namespace dlsim::test::timeline_tests
