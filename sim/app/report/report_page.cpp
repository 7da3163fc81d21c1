#include "sim/app/report/report_page.hpp"

#include "models/base/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace dlsim::report {

namespace {

/// The columns as one binary block (little-endian typed arrays, each 8-byte aligned so the page views
/// them in place) and its directory: name -> [byte offset, element count, type].
class Blob {
public:
    template <class T>
    void add(const std::string& name, const std::vector<T>& v, const char* type) {
        while (bytes_.size() % 8 != 0) bytes_.push_back('\0');
        directory_[name] = {bytes_.size(), v.size(), type};
        const std::size_t at = bytes_.size();
        bytes_.resize(at + v.size() * sizeof(T));
        if (!v.empty()) std::memcpy(bytes_.data() + at, v.data(), v.size() * sizeof(T));
    }
    const Json& directory() const { return directory_; }
    const std::string& bytes() const { return bytes_; }

private:
    Json directory_ = Json::object();
    std::string bytes_;
};

/// Base64 of `in`, written in pieces of about 4 MiB.
void base64(std::string_view in, const Sink& out) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    constexpr std::size_t kPiece = 3u << 20;  // input bytes per piece: a multiple of 3
    std::string text;
    const auto* s = reinterpret_cast<const unsigned char*>(in.data());
    for (std::size_t from = 0; from < in.size(); from += kPiece) {
        const std::size_t to = std::min(in.size(), from + kPiece);
        text.clear();
        std::size_t i = from;
        for (; i + 2 < to; i += 3) {
            const unsigned v = (unsigned{s[i]} << 16) | (unsigned{s[i + 1]} << 8) | s[i + 2];
            text += kAlphabet[(v >> 18) & 63];
            text += kAlphabet[(v >> 12) & 63];
            text += kAlphabet[(v >> 6) & 63];
            text += kAlphabet[v & 63];
        }
        if (i < to) {  // the last piece's last one or two bytes
            const unsigned v = (unsigned{s[i]} << 16) | (i + 1 < to ? unsigned{s[i + 1]} << 8 : 0u);
            text += kAlphabet[(v >> 18) & 63];
            text += kAlphabet[(v >> 12) & 63];
            text += i + 1 < to ? kAlphabet[(v >> 6) & 63] : '=';
            text += '=';
        }
        out(text);
    }
}

/// JSON that is safe inside <script>: "<" only occurs in strings, where \u003c means the same.
std::string script_json(const Json& v) {
    const std::string text = v.dump(-1, ' ', false, Json::error_handler_t::replace);
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        if (c == '<')
            out += "\\u003c";
        else
            out += c;
    }
    return out;
}

std::string html_escape(std::string_view s) {
    std::string out;
    for (const char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

/// A value of the template: written straight to the page.
using Part = std::function<void(const Sink&)>;

Part text_part(std::string text) {
    return [text = std::move(text)](const Sink& out) { out(text); };
}

/// The template with its {{NAME}} markers replaced, each once, in the template's own text only.
void fill(std::string_view page, const std::vector<std::pair<std::string_view, Part>>& values, const Sink& out) {
    std::size_t at = 0;
    for (;;) {
        const std::size_t open = page.find("{{", at);
        if (open == std::string_view::npos) break;
        const std::size_t close = page.find("}}", open);
        if (close == std::string_view::npos) break;
        out(page.substr(at, open - at));
        const std::string_view name = page.substr(open + 2, close - open - 2);
        const auto it = std::find_if(values.begin(), values.end(), [&](const auto& v) { return v.first == name; });
        if (it == values.end()) throw InternalError(fmt::format("report page: no value for {{{{{}}}}}", name));
        it->second(out);
        at = close + 2;
    }
    out(page.substr(at));
}

Part data_blocks(const Json& meta, const Json& ids, const Blob* blob) {
    return [&meta, &ids, blob](const Sink& out) {
        out("<script type=\"application/json\" id=\"dlsim-meta\">" + script_json(meta) + "</script>\n");
        if (!ids.is_null())
            out("<script type=\"application/json\" id=\"dlsim-ids\">" + script_json(ids) + "</script>\n");
        if (blob != nullptr) {
            out("<script type=\"text/plain\" id=\"dlsim-blob\">");
            base64(blob->bytes(), out);
            out("</script>\n");
        }
    };
}

}  // namespace

void run_page(const ReportData& d, const Sink& out) {
    const JobColumns& c = d.jobs;
    Blob blob;
    blob.add("submit", c.submit, "f64");
    blob.add("start", c.start, "f64");
    blob.add("finish", c.finish, "f64");
    blob.add("pending", c.pending, "f64");
    blob.add("gpus", c.gpus, "u32");
    blob.add("preemptions", c.preemptions, "u32");
    blob.add("migrations", c.migrations, "u32");
    blob.add("resizes", c.resizes, "u32");
    blob.add("type", c.type, "u8");
    blob.add("state", c.state, "u8");
    blob.add("reason_offsets", c.reason_offsets, "u32");
    blob.add("reason_name", c.reason_name, "u8");
    blob.add("reason_seconds", c.reason_seconds, "f64");
    const Gantt& g = d.gantt;
    std::vector<std::uint8_t> lane_type;
    Json lanes = Json::array();
    for (const Lane& l : g.lanes) {
        lanes.push_back(l.label);
        const auto it = std::find(d.types.begin(), d.types.end(), l.type);
        lane_type.push_back(it == d.types.end() ? kNoType : static_cast<std::uint8_t>(it - d.types.begin()));
    }
    blob.add("lane_offsets", g.offsets, "u32");
    blob.add("lane_type", lane_type, "u8");
    blob.add("slice_start", g.start, "f64");
    blob.add("slice_end", g.end, "f64");
    blob.add("slice_job", g.job, "u32");
    const JobEvents& e = d.events;
    blob.add("ev_offsets", e.offsets, "u32");
    blob.add("ev_time", e.time, "f64");
    blob.add("ev_kind", e.kind, "u8");
    blob.add("ev_number", e.number, "f64");
    blob.add("ev_ref", e.ref, "i32");
    blob.add("ev_text", e.text, "u32");
    blob.add("rest_time", d.wait_rest.time, "f64");
    blob.add("rest_ref", d.wait_rest.ref, "i32");
    blob.add("rest_text", d.wait_rest.text, "u32");
    Json meta = {{"kind", "run"},
                 {"result", d.result_path},
                 {"event_log", d.event_log_path.empty() ? Json() : Json(d.event_log_path)},
                 {"event_lines", d.event_lines},
                 {"run_id", d.run_id},
                 {"config", d.config},
                 {"summary", d.summary},
                 {"timeseries", d.timeseries},
                 {"run", d.run},
                 {"jobs", c.size()},
                 {"types", d.types},
                 {"states", std::vector<std::string>(std::begin(kStates), std::end(kStates))},
                 {"reasons", d.reasons},
                 {"strings", d.strings},
                 {"event_kinds",
                  {"arrive", "wait", "start", "preempt", "finish", "migrate", "resize", "rate", "reject", "other"}},
                 {"gantt", {{"from_event_log", g.from_event_log}, {"t0", g.t0}, {"lanes", lanes}}},
                 {"arrays", blob.directory()}};
    const std::string title =
        fmt::format("dlsim report: {} on {}", d.config.value("policy", std::string("?")), d.result_path);
    const Json ids(c.ids);
    fill(asset("report.html"),
         {{"TITLE", text_part(html_escape(title))},
          {"CSS", text_part(std::string(asset("report.css")))},
          {"DATA", data_blocks(meta, ids, &blob)},
          {"JS", text_part(std::string(asset("common.js")) + std::string(asset("report.js")))}},
         out);
}

void sweep_page(const std::string& dir, const Json& index, const std::vector<std::string>& links, const Sink& out) {
    Json meta = index;
    meta["kind"] = "sweep";
    meta["dir"] = dir;
    meta["links"] = links;
    const std::string title = fmt::format("dlsim sweep: {}", index.value("sweep", std::string(dir)));
    const Json none;
    fill(asset("sweep.html"),
         {{"TITLE", text_part(html_escape(title))},
          {"CSS", text_part(std::string(asset("report.css")))},
          {"DATA", data_blocks(meta, none, nullptr)},
          {"JS", text_part(std::string(asset("common.js")) + std::string(asset("sweep.js")))}},
         out);
}

}  // namespace dlsim::report
