#pragma once
// A live Prometheus over its HTTP API (GET /api/v1/query_range, through libcurl): range queries split into
// pieces Prometheus accepts (at most 10,000 points per series), retried when the server is busy or the
// connection drops, read by the same parser as saved query_range JSON. Errors say what went wrong in words:
// the server cannot be reached, the query is not PromQL, a piece came back incomplete.
#include <clustertwin/importers/parse.hpp>

#include <functional>
#include <string>
#include <vector>

namespace ct::importers {

class ImportSession;

struct PrometheusRange {
    std::string url;                   ///< base URL: "http://127.0.0.1:9090" (a path prefix is kept)
    std::vector<std::string> queries;  ///< PromQL
    double from_s = 0, to_s = 0;       ///< Unix seconds
    double step_s = 15;
    double timeout_s = 30;  ///< per request
    int retries = 3;        ///< more tries of a request that failed for a reason that may pass
};

/// The DCGM exporter's default metrics (etc/default-counters.csv), as queries of their own names.
const std::vector<std::string>& dcgmPresetQueries();

/// One piece of a fetch: which query, which part of the range, and its response (query_range JSON).
struct PrometheusPiece {
    std::string query;
    double from_s = 0, to_s = 0;
    std::string body;
};

/// Called for each piece fetched, in order; `done` of `total` pieces. Return false to stop.
using PieceSink = std::function<bool(const PrometheusPiece& piece, std::size_t done, std::size_t total)>;

/// Fetches every query over the range, piece by piece. Throws ImportError when the server cannot be reached
/// or refuses a query (the query and Prometheus' own message named); a piece that fails after its retries
/// throws too, after the pieces before it were handed to `sink`. Returns false when the sink stopped it.
bool fetchPrometheusRange(const PrometheusRange& range, const PieceSink& sink);

/// Parses a piece as query_range JSON (parsePrometheusApiJson), named "<url> <query> [from, to]" in
/// warnings; the response's own "warnings" (partial data) become "partial" warnings.
ParseResult parsePrometheusPiece(const PrometheusRange& range, const PrometheusPiece& piece);

/// Reads the range into an import session (clustertwin-cli import --prometheus, the app's Connect to
/// Prometheus): each piece is a source "<url> <query>" with the content hash of its response. Tells
/// `progress(done, total, query)` after each piece; false from it stops. Returns what failed (the server
/// unreachable, a query refused, a piece lost after its retries), empty when everything was read.
std::vector<std::string> importPrometheusRange(ImportSession& session, const PrometheusRange& range,
                                               const std::function<bool(std::size_t, std::size_t, const std::string&)>& progress = {});

}  // namespace ct::importers
