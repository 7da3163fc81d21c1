// The CSV splitter every reader uses (traces/readers/csv_reader.hpp): quoting, line endings, blank lines,
// line numbers and separators.
#include "models/base/input_error.hpp"
#include "models/base/parse.hpp"
#include "traces/readers/csv_reader.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

using namespace dlsim;

namespace dlsim::test::csv_reader_tests {

using Catch::Matchers::Contains;

namespace {

/// Every field of a CSV line as owned strings.
std::vector<std::string> owned(const std::vector<std::string_view>& f) { return {f.begin(), f.end()}; }

}  // namespace

TEST_CASE("CsvLines: quotes, doubled quotes, CRLF, blank lines and line numbers", "[unit]") {
    std::string text =
        "a,b,c\r\n"                             // 1
        "\r\n"                                  // 2 blank
        "\"x,y\",\"he said \"\"hi\"\"\",z\r\n"  // 3
        "   \n"                                 // 4 blank (spaces)
        "1,,3,\n"                               // 5 trailing empty field
        "\t\r\n"                                // 6 blank (tab)
        "\"\",last,\"q\"\n"                     // 7
        "plain, spaced ,\"a\"\"\"";             // 8, no final newline
    CsvLines csv(text, "mem.csv", ',');
    std::vector<std::string_view> f;

    REQUIRE(csv.next(f));
    CHECK(csv.line() == 1u);
    CHECK(owned(f) == std::vector<std::string>{"a", "b", "c"});
    REQUIRE(csv.next(f));
    CHECK(csv.line() == 3u);
    CHECK(owned(f) == std::vector<std::string>{"x,y", "he said \"hi\"", "z"});
    REQUIRE(csv.next(f));
    CHECK(csv.line() == 5u);
    CHECK(owned(f) == std::vector<std::string>{"1", "", "3", ""});
    REQUIRE(csv.next(f));
    CHECK(csv.line() == 7u);
    CHECK(owned(f) == std::vector<std::string>{"", "last", "q"});
    REQUIRE(csv.next(f));
    CHECK(csv.line() == 8u);
    CHECK(owned(f) == std::vector<std::string>{"plain", " spaced ", "a\""});  // fields are not trimmed
    CHECK_FALSE(csv.next(f));
    CHECK(f.empty());
    CHECK(csv.origin() == "mem.csv");
}

TEST_CASE("CsvLines: other separators, unterminated quotes", "[unit]") {
    CsvLines semi("a;\"b;c\";d\n", "s.csv", ';');
    std::vector<std::string_view> f;
    REQUIRE(semi.next(f));
    CHECK(owned(f) == std::vector<std::string>{"a", "b;c", "d"});
    CHECK_FALSE(semi.next(f));

    CsvLines bad("h\n\n\"open,x\n", "bad.csv", ',');
    REQUIRE(bad.next(f));
    CHECK_THROWS_AS(bad.next(f), InputError);
    CsvLines bad2("h\n\n\"open,x\n", "bad.csv", ',');
    REQUIRE(bad2.next(f));
    CHECK_THROWS_WITH(bad2.next(f), Contains("bad.csv:3"));

    CHECK(trim(" \t x y \t") == "x y");
    CHECK(trim("   ").empty());
}

}  // namespace dlsim::test::csv_reader_tests
