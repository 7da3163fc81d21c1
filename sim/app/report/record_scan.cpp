#include "sim/app/report/record_scan.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

namespace dlsim::report {

namespace {

class Scanner {
public:
    explicit Scanner(std::string_view text) : s_(text) {}

    void ws() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
    }
    bool eat(char c) {
        ws();
        if (i_ < s_.size() && s_[i_] == c) {
            ++i_;
            return true;
        }
        return false;
    }
    bool peek(char c) {
        ws();
        return i_ < s_.size() && s_[i_] == c;
    }
    /// A string without escapes (dlsim writes ids and names so unless they hold quotes or controls).
    bool plain_string(std::string_view& out) {
        if (!eat('"')) return false;
        const std::size_t start = i_;
        while (i_ < s_.size() && s_[i_] != '"') {
            if (s_[i_] == '\\' || static_cast<unsigned char>(s_[i_]) < 0x20) return false;
            ++i_;
        }
        if (i_ == s_.size()) return false;
        out = s_.substr(start, i_ - start);
        ++i_;
        return true;
    }
    /// A JSON number (finite); `integral` when written without a fraction or exponent.
    bool number(double& out, bool& integral) {
        ws();
        const std::size_t start = i_;
        if (i_ < s_.size() && s_[i_] == '-') ++i_;
        if (i_ == s_.size() || s_[i_] < '0' || s_[i_] > '9') return false;
        integral = true;
        while (i_ < s_.size() && ((s_[i_] >= '0' && s_[i_] <= '9') || s_[i_] == '.' || s_[i_] == 'e' || s_[i_] == 'E' ||
                                  s_[i_] == '+' || s_[i_] == '-')) {
            if (s_[i_] == '.' || s_[i_] == 'e' || s_[i_] == 'E') integral = false;
            ++i_;
        }
        const auto [end, ec] = std::from_chars(s_.data() + start, s_.data() + i_, out);
        return ec == std::errc() && end == s_.data() + i_ && std::isfinite(out);
    }
    bool literal(std::string_view word) {
        ws();
        if (s_.substr(i_, word.size()) != word) return false;
        i_ += word.size();
        return true;
    }
    /// Skips one value of any kind (strings may hold escapes and brackets); false at malformed text.
    bool skip_value() {
        ws();
        if (i_ >= s_.size()) return false;
        if (s_[i_] == '"') return skip_string();
        if (s_[i_] != '{' && s_[i_] != '[') {
            while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ']') ++i_;
            return true;
        }
        int depth = 0;
        while (i_ < s_.size()) {
            const char c = s_[i_];
            if (c == '"') {
                if (!skip_string()) return false;
                continue;
            }
            if (c == '{' || c == '[') ++depth;
            if (c == '}' || c == ']') --depth;
            ++i_;
            if (depth == 0) return true;
        }
        return false;
    }
    std::size_t pos() const { return i_; }
    /// The text of a scalar that is not a string (a number or a literal), up to its delimiter.
    std::string_view token() {
        ws();
        const std::size_t start = i_;
        while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ']' && s_[i_] != ' ') ++i_;
        return s_.substr(start, i_ - start);
    }
    bool done() {
        ws();
        return i_ == s_.size();
    }

private:
    bool skip_string() {
        ++i_;
        while (i_ < s_.size() && s_[i_] != '"') i_ += s_[i_] == '\\' ? 2 : 1;
        if (i_ >= s_.size()) return false;
        ++i_;
        return true;
    }
    std::string_view s_;
    std::size_t i_ = 0;
};

std::uint8_t name_index(std::vector<std::string>& names, std::string_view name, std::size_t limit, bool& ok) {
    for (std::size_t k = 0; k < names.size(); ++k)
        if (names[k] == name) return static_cast<std::uint8_t>(k);
    if (names.size() >= limit) {
        ok = false;
        return 0;
    }
    names.emplace_back(name);
    return static_cast<std::uint8_t>(names.size() - 1);
}

/// One record into the columns; false (columns untouched beyond repair: the caller starts over) when it
/// is not a record as dlsim writes it.
bool scan_record(Scanner& sc, ReportData& d) {
    JobColumns& c = d.jobs;
    if (!sc.eat('{')) return false;
    std::string_view id, type, state;
    double submit = kNaN, start = kNaN, finish = kNaN, pending = kNaN, gpus = -1;
    double counts[3] = {0, 0, 0};  // preemptions, migrations, resizes
    bool has_submit = false, has_start = false, has_finish = false, has_pending = false, has_type = false;
    bool ok = true;
    if (!sc.peek('}')) do {
            std::string_view key;
            if (!sc.plain_string(key) || !sc.eat(':')) return false;
            double x = 0;
            bool integral = false;
            auto time = [&](double& out, bool& has, bool nullable) {
                has = true;
                if (nullable && sc.literal("null")) return true;
                return sc.number(out, integral);
            };
            if (key == "job_id") {
                if (!sc.plain_string(id) || id.empty()) return false;
            } else if (key == "submit_time") {
                if (!time(submit, has_submit, false)) return false;
            } else if (key == "start_time") {
                if (!time(start, has_start, true)) return false;
            } else if (key == "finish_time") {
                if (!time(finish, has_finish, true)) return false;
            } else if (key == "pending_time") {
                if (!time(pending, has_pending, true)) return false;
            } else if (key == "num_gpus" || key == "preemptions" || key == "migrations" || key == "resizes") {
                if (!sc.number(x, integral) || !integral || x < 0 || x > std::numeric_limits<std::uint32_t>::max())
                    return false;
                (key == "num_gpus" ? gpus : counts[key == "preemptions" ? 0 : key == "migrations" ? 1 : 2]) = x;
            } else if (key == "gpu_type") {
                has_type = true;
                if (!sc.literal("null") && (!sc.plain_string(type) || type.empty())) return false;
            } else if (key == "state") {
                if (!sc.plain_string(state)) return false;
            } else if (key == "pending_reasons") {
                if (!sc.eat('{')) return false;
                if (!sc.peek('}')) do {
                        std::string_view name;
                        if (!sc.plain_string(name) || !sc.eat(':') || !sc.number(x, integral) || x < 0) return false;
                        c.reason_name.push_back(name_index(d.reasons, name, 250, ok));
                        c.reason_seconds.push_back(x);
                    } while (sc.eat(','));
                if (!sc.eat('}') || !ok) return false;
            } else if (!sc.skip_value()) {
                return false;
            }
        } while (sc.eat(','));
    if (!sc.eat('}')) return false;
    const auto s = std::find(std::begin(kStates), std::end(kStates), state);
    if (id.empty() || !has_submit || !has_start || !has_finish || !has_pending || gpus < 0 || !has_type ||
        s == std::end(kStates))
        return false;
    c.ids.emplace_back(id);
    c.submit.push_back(submit);
    c.start.push_back(start);
    c.finish.push_back(finish);
    c.pending.push_back(pending);
    c.gpus.push_back(static_cast<std::uint32_t>(gpus));
    c.preemptions.push_back(static_cast<std::uint32_t>(counts[0]));
    c.migrations.push_back(static_cast<std::uint32_t>(counts[1]));
    c.resizes.push_back(static_cast<std::uint32_t>(counts[2]));
    c.type.push_back(type.empty() ? kNoType : name_index(d.types, type, kNoType, ok));
    c.state.push_back(static_cast<std::uint8_t>(s - std::begin(kStates)));
    c.reason_offsets.push_back(static_cast<std::uint32_t>(c.reason_name.size()));
    return ok;
}

}  // namespace

bool scan_result(std::string_view text, ReportData& d, Json& doc, std::size_t& records) {
    Scanner sc(text);
    if (!sc.eat('{')) return false;
    std::string rest = "{";
    bool jobs = false;
    records = 0;
    if (!sc.peek('}')) do {
            const std::size_t key_at = sc.pos();
            std::string_view key;
            if (!sc.plain_string(key) || !sc.eat(':')) return false;
            if (key == "jobs") {
                if (jobs || !sc.eat('[')) return false;
                jobs = true;
                if (!sc.peek(']')) do {
                        if (!scan_record(sc, d)) return false;
                        ++records;
                    } while (sc.eat(','));
                if (!sc.eat(']')) return false;
                rest += std::string(rest.size() > 1 ? "," : "") + "\"jobs\":[]";
                continue;
            }
            sc.ws();
            const std::size_t value_at = sc.pos();
            if (!sc.skip_value()) return false;
            rest += std::string(rest.size() > 1 ? "," : "");
            rest.append(text.substr(key_at, value_at - key_at));
            rest.append(text.substr(value_at, sc.pos() - value_at));
        } while (sc.eat(','));
    if (!sc.eat('}') || !sc.done() || !jobs) return false;
    rest += "}";
    try {
        doc = Json::parse(rest);
    } catch (const Json::exception&) {
        return false;
    }
    return true;
}

bool scan_log_line(std::string_view line, FlatLine& out) {
    out.fields.clear();
    out.nodes.clear();
    out.has_nodes = false;
    Scanner sc(line);
    if (!sc.eat('{')) return false;
    if (!sc.peek('}')) do {
            FlatLine::Field f;
            if (!sc.plain_string(f.key) || !sc.eat(':')) return false;
            if (f.key == "nodes") {
                if (out.has_nodes || !sc.eat('[')) return false;
                out.has_nodes = true;
                if (!sc.peek(']')) do {
                        double node = 0, gpus = 0;
                        bool int_node = false, int_gpus = false;
                        if (!sc.eat('[') || !sc.number(node, int_node) || !sc.eat(',') || !sc.number(gpus, int_gpus) ||
                            !sc.eat(']') || !int_node || !int_gpus || node < 0 || gpus < 0 || node > 1e6 || gpus > 1e6)
                            return false;
                        out.nodes.emplace_back(static_cast<std::uint32_t>(node), static_cast<std::uint32_t>(gpus));
                    } while (sc.eat(','));
                if (!sc.eat(']')) return false;
                continue;
            }
            if (sc.peek('"')) {
                if (!sc.plain_string(f.text)) return false;
                f.is_string = true;
            } else if (sc.peek('{') || sc.peek('[')) {
                return false;
            } else {
                f.text = sc.token();
                bool integral = false;
                Scanner number(f.text);
                f.is_number = number.number(f.number, integral) && number.done();
                if (!f.is_number && f.text != "true" && f.text != "false" && f.text != "null") return false;
            }
            if (out.find(f.key) != nullptr) return false;  // a repeated key: the general parser decides
            out.fields.push_back(f);
        } while (sc.eat(','));
    if (!sc.eat('}') || !sc.done()) return false;
    // The types the report relies on; anything else goes to the general parser for its message.
    const FlatLine::Field* time = out.find("time");
    const FlatLine::Field* event = out.find("event");
    if (time == nullptr || !time->is_number || event == nullptr || !event->is_string) return false;
    for (const char* key : {"job_id", "behind", "by", "packed_with"})
        if (const FlatLine::Field* f = out.find(key); f != nullptr && (!f->is_string || f->text.empty())) return false;
    const std::string_view what = event->text;
    if (what == "rate") {
        const FlatLine::Field* rate = out.find("rate");
        if (rate == nullptr || !rate->is_number) return false;
    }
    if ((what == "start" || what == "migrate" || what == "resize") && !out.has_nodes) return false;
    return true;
}

}  // namespace dlsim::report
