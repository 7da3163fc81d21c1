// dlsim's own trace format (traces/readers/canonical_csv.hpp): what write_canonical_csv writes,
// parse_canonical_csv reads back field for field.
#include "traces/readers/canonical_csv.hpp"

#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <utility>

using namespace dlsim;

namespace dlsim::test::canonical_csv_tests {

TEST_CASE("canonical CSV: write then parse round-trips every field", "[unit]") {
    Trace t;
    t.path = "mem";
    auto add = [&](std::string id, double submit, int gpus, double dur) -> JobRecord& {
        JobRecord j;
        j.id = std::move(id);
        j.submit_time = submit;
        j.num_gpus = gpus;
        j.duration = dur;
        t.jobs.push_back(j);
        return t.jobs.back();
    };
    {
        JobRecord& j = add("job,1", 0.0, 1, 3600.000001);
        j.model = t.strings.intern("ResNet-50 (batch size 64)");
        j.gpu_type = t.strings.intern("V100");
        j.allowed_gpu_types = t.strings.intern("v100|p100");
        j.user = t.strings.intern("alice");
        j.vc = t.strings.intern("vc,A");
        j.status = t.strings.intern("Pass");
        j.work = 12345.5;
        j.gpu_fraction = 0.5;
        j.priority = -2;
    }
    {
        JobRecord& j = add("q\"uote\"d", 0.1 + 0.2, 8, 1e-6);  // 0.30000000000000004
        j.model = t.strings.intern("Transformer, \"big\"");
        j.user = t.strings.intern("bob \"b\"");
        j.priority = 1.0 / 3.0;
    }
    add("plain", 123456789.123456, 1000000, 1e12);  // no optional field at all

    std::ostringstream out;
    write_canonical_csv(t, out);
    INFO(out.str());
    const Trace back = parse_canonical_csv(out.str(), "roundtrip.csv");
    REQUIRE(back.jobs.size() == t.jobs.size());
    for (std::size_t i = 0; i < t.jobs.size(); ++i) {
        const JobRecord& a = t.jobs[i];
        const JobRecord& b = back.jobs[i];
        INFO("job " << i);
        CHECK(b.id == a.id);
        CHECK(b.submit_time == a.submit_time);  // exact: shortest round-trip formatting
        CHECK(b.num_gpus == a.num_gpus);
        CHECK(b.duration == a.duration);
        CHECK(b.work == a.work);
        CHECK(b.gpu_fraction == a.gpu_fraction);
        CHECK(b.priority == a.priority);
        CHECK(back.strings[b.model] == t.strings[a.model]);
        CHECK(back.strings[b.gpu_type] == t.strings[a.gpu_type]);
        CHECK(back.strings[b.allowed_gpu_types] == t.strings[a.allowed_gpu_types]);
        CHECK(back.strings[b.user] == t.strings[a.user]);
        CHECK(back.strings[b.vc] == t.strings[a.vc]);
        CHECK(back.strings[b.status] == t.strings[a.status]);
        CHECK(b.line == i + 2);
    }
    CHECK(back.report.rows_read == 3u);
    CHECK(back.report.kept == 3u);

    // Only the used optional columns are written.
    Trace bare;
    JobRecord j;
    j.id = "x";
    j.num_gpus = 2;
    j.duration = 5;
    bare.jobs.push_back(j);
    std::ostringstream o2;
    write_canonical_csv(bare, o2);
    CHECK(o2.str() == "job_id,submit_time,num_gpus,duration\nx,0,2,5\n");
}

TEST_CASE("canonical CSV: a quoted field with a line break round-trips (RFC 4180)", "[unit]") {
    // write_canonical_csv quotes fields holding '\n' (RFC 4180), but CsvLines splits lines before
    // unquoting, so the file the writer produces is rejected as "unterminated quoted field".
    Trace t;
    JobRecord j;
    j.id = "two\nlines";
    j.duration = 1;
    t.jobs.push_back(j);
    std::ostringstream out;
    write_canonical_csv(t, out);
    Trace back;
    REQUIRE_NOTHROW(back = parse_canonical_csv(out.str(), "nl.csv"));
    REQUIRE(back.jobs.size() == 1u);
    CHECK(back.jobs[0].id == "two\nlines");
}

}  // namespace dlsim::test::canonical_csv_tests
