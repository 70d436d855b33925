#include <clustertwin/importers/import_session.hpp>
#include <clustertwin/importers/prometheus_http.hpp>

#include "parse_common.hpp"

#include <curl/curl.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <thread>

namespace ct::importers {

namespace {

/// libcurl's global state, set up once before the first request.
void curlOnce() {
    static const bool ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    if (!ok) throw ImportError("libcurl could not be initialised");
}

std::size_t collect(char* p, std::size_t size, std::size_t n, void* out) {
    static_cast<std::string*>(out)->append(p, size * n);
    return size * n;
}

std::string number(double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", x);
    return buf;
}

struct Response {
    long status = 0;
    std::string body;
    CURLcode code = CURLE_OK;
    std::string error;
};

Response get(const std::string& url, double timeout_s) {
    curlOnce();
    Response r;
    CURL* c = curl_easy_init();
    if (!c) throw ImportError("libcurl could not start a request");
    char err[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_s * 1000));
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::min(timeout_s, 10.0) * 1000));
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");  // gzip when the server offers it
    curl_easy_setopt(c, CURLOPT_USERAGENT, "clustertwin");
    r.code = curl_easy_perform(c);
    if (r.code != CURLE_OK) r.error = err[0] ? err : curl_easy_strerror(r.code);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_easy_cleanup(c);
    return r;
}

std::string escape(const std::string& s) {
    curlOnce();
    char* e = curl_easy_escape(nullptr, s.c_str(), static_cast<int>(s.size()));
    std::string out = e ? e : "";
    curl_free(e);
    return out;
}

}  // namespace

const std::vector<std::string>& dcgmPresetQueries() {
    // dcgm-exporter's etc/default-counters.csv (the fields it exports when not told otherwise), but
    // DCGM_FI_DRIVER_VERSION, which it exports as a label.
    static const std::vector<std::string> q = {"DCGM_FI_DEV_SM_CLOCK",
                                               "DCGM_FI_DEV_MEM_CLOCK",
                                               "DCGM_FI_DEV_MEMORY_TEMP",
                                               "DCGM_FI_DEV_GPU_TEMP",
                                               "DCGM_FI_DEV_POWER_USAGE",
                                               "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
                                               "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
                                               "DCGM_FI_DEV_GPU_UTIL",
                                               "DCGM_FI_DEV_MEM_COPY_UTIL",
                                               "DCGM_FI_DEV_ENC_UTIL",
                                               "DCGM_FI_DEV_DEC_UTIL",
                                               "DCGM_FI_DEV_XID_ERRORS",
                                               "DCGM_FI_DEV_FB_FREE",
                                               "DCGM_FI_DEV_FB_USED",
                                               "DCGM_FI_DEV_FB_RESERVED",
                                               "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
                                               "DCGM_FI_DEV_VGPU_LICENSE_STATUS",
                                               "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
                                               "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
                                               "DCGM_FI_DEV_ROW_REMAP_FAILURE",
                                               "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
                                               "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
                                               "DCGM_FI_PROF_DRAM_ACTIVE",
                                               "DCGM_FI_PROF_PCIE_TX_BYTES",
                                               "DCGM_FI_PROF_PCIE_RX_BYTES"};
    return q;
}

bool fetchPrometheusRange(const PrometheusRange& r, const PieceSink& sink) {
    if (r.url.empty()) throw ImportError("no Prometheus URL");
    if (r.queries.empty()) throw ImportError("no query");
    if (!(r.step_s > 0)) throw ImportError("the step must be positive");
    if (!(r.to_s >= r.from_s)) throw ImportError("the range ends before it starts");
    std::string base = r.url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    if (base.find("://") == std::string::npos) base = "http://" + base;
    // Prometheus refuses more than 11,000 points per series: pieces of at most 10,000 steps.
    const double span = 10000 * r.step_s;
    std::vector<std::pair<double, double>> parts;
    for (double t = r.from_s; t <= r.to_s; t += span + r.step_s) parts.push_back({t, std::min(r.to_s, t + span)});
    const std::size_t total = parts.size() * r.queries.size();
    std::size_t done = 0;
    for (const auto& q : r.queries) {
        for (const auto& [a, b] : parts) {
            const std::string url =
                base + "/api/v1/query_range?query=" + escape(q) + "&start=" + number(a) + "&end=" + number(b) + "&step=" + number(r.step_s);
            Response resp;
            for (int attempt = 0;; ++attempt) {
                resp = get(url, r.timeout_s);
                // Worth another try: no connection yet, a timeout, the server busy or restarting.
                const bool transient =
                    (resp.code != CURLE_OK && resp.code != CURLE_URL_MALFORMAT && resp.code != CURLE_UNSUPPORTED_PROTOCOL) ||
                    resp.status == 429 || resp.status == 502 || resp.status == 503 || resp.status == 504;
                if (!transient || attempt >= r.retries) break;
                std::this_thread::sleep_for(std::chrono::milliseconds(250 << std::min(attempt, 4)));
            }
            if (resp.code != CURLE_OK)
                throw ImportError("cannot reach Prometheus at " + base + ": " + resp.error +
                                  (r.retries > 0 ? " (tried " + std::to_string(r.retries + 1) + " times)" : ""));
            if (resp.status != 200) {
                // Prometheus explains a refusal in JSON: {"status":"error","errorType":"bad_data","error":"..."}.
                std::string why = "HTTP " + std::to_string(resp.status);
                const auto doc = nlohmann::json::parse(resp.body, nullptr, false);
                if (doc.is_object() && doc.contains("error") && doc["error"].is_string())
                    why = detail::jsonText(doc, "errorType", "error") + ": " + doc["error"].get<std::string>();
                else if (resp.status == 404) why += " (is " + base + " a Prometheus? /api/v1/query_range was not found)";
                throw ImportError("Prometheus at " + base + " refused the query '" + q + "': " + why);
            }
            ++done;
            if (sink && !sink({q, a, b, std::move(resp.body)}, done, total)) return false;
        }
    }
    return true;
}

ParseResult parsePrometheusPiece(const PrometheusRange& range, const PrometheusPiece& piece) {
    ParseOptions opt;
    opt.file_name = range.url + " " + piece.query + " [" + number(piece.from_s) + ", " + number(piece.to_s) + "]";
    opt.default_time_s = piece.to_s;
    std::istringstream in(piece.body);
    ParseResult r = parsePrometheusApiJson(in, opt);
    const auto doc = nlohmann::json::parse(piece.body, nullptr, false);
    if (doc.is_object() && doc.contains("warnings") && doc["warnings"].is_array())
        for (const auto& w : doc["warnings"])
            r.warnings.push_back({opt.file_name, "partial",
                                  "Prometheus says the answer may be incomplete: " + (w.is_string() ? w.get<std::string>() : w.dump())});
    return r;
}

std::vector<std::string> importPrometheusRange(ImportSession& session, const PrometheusRange& range,
                                               const std::function<bool(std::size_t, std::size_t, const std::string&)>& progress) {
    std::vector<std::string> failed;
    try {
        fetchPrometheusRange(range, [&](const PrometheusPiece& piece, std::size_t done, std::size_t total) {
            ParseResult pr = parsePrometheusPiece(range, piece);
            session.add(pr, range.url + " " + piece.query, "prometheus-api-json", contentHashOf(piece.body));
            return !progress || progress(done, total, piece.query);
        });
    } catch (const ImportError& e) {
        failed.push_back(e.what());
    }
    return failed;
}

}  // namespace ct::importers
