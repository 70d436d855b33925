// The store's samples: compressed chunks per series (chunk_codec.hpp), written by merging into the chunks
// a batch touches, read by decoding the chunks a window overlaps.
#include "store_impl.hpp"

#include <clustertwin/runs/chunk_codec.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ct::runs {

using detail::Stmt;

namespace {

using Points = std::vector<std::pair<double, double>>;

/// Equal as the store keeps them: non-finite values are all "missing".
bool sameValue(double a, double b) { return a == b || (!std::isfinite(a) && !std::isfinite(b)); }

void countRepeat(WriteStats& st, std::int64_t series, double t, double kept, double dropped) {
    if (sameValue(kept, dropped)) {
        ++st.duplicates;
        return;
    }
    if (st.conflicts++ == 0) {
        st.conflict_series = series;
        st.conflict_t_s = t;
        st.conflict_kept = kept;
        st.conflict_dropped = dropped;
    }
}

/// Sorts by (series, time), keeping the order of equal keys: a counting sort by series when the ids are
/// dense (the usual batch: every series of many scrapes), then a stable sort of each series' run by time
/// (already in order for scrapes read in time order).
void sortSamples(std::vector<Sample>& s) {
    auto by_time = [](const Sample& a, const Sample& b) { return a.t_s < b.t_s; };
    auto less = [](const Sample& a, const Sample& b) { return a.series != b.series ? a.series < b.series : a.t_s < b.t_s; };
    if (std::is_sorted(s.begin(), s.end(), less)) return;
    const auto [lo, hi] = std::minmax_element(s.begin(), s.end(), [](const Sample& a, const Sample& b) { return a.series < b.series; });
    const std::int64_t lo_id = lo->series, range = hi->series - lo_id + 1;
    if (range > static_cast<std::int64_t>(4 * s.size() + 1024)) {
        std::stable_sort(s.begin(), s.end(), less);
        return;
    }
    std::vector<std::size_t> start(static_cast<std::size_t>(range) + 1, 0);
    for (const Sample& x : s) ++start[static_cast<std::size_t>(x.series - lo_id) + 1];
    for (std::size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
    std::vector<Sample> out(s.size());
    std::vector<std::size_t> at(start.begin(), start.end() - 1);
    for (const Sample& x : s) out[at[static_cast<std::size_t>(x.series - lo_id)]++] = x;
    for (std::size_t k = 0; k + 1 < start.size(); ++k)
        if (!std::is_sorted(out.begin() + start[k], out.begin() + start[k + 1], by_time))
            std::stable_sort(out.begin() + start[k], out.begin() + start[k + 1], by_time);
    s.swap(out);
}

/// The statements a write uses, prepared once per batch.
struct ChunkWriter {
    ChunkWriter(sqlite3* db, const std::string& path)
        : before(db, "SELECT t0, t1, n, data FROM chunks WHERE series_id = ?1 AND t0 < ?2 ORDER BY t0 DESC LIMIT 1", path),
          within(db, "SELECT t0, data FROM chunks WHERE series_id = ?1 AND t0 >= ?2 AND t0 <= ?3 ORDER BY t0", path),
          remove(db, "DELETE FROM chunks WHERE series_id = ?1 AND t0 = ?2", path),
          insert(db, "INSERT INTO chunks(series_id, t0, t1, n, data) VALUES(?1, ?2, ?3, ?4, ?5)", path) {}
    /// Full chunks first, the remainder last (where the next append will go).
    void put(std::int64_t series, const Points& p) {
        for (std::size_t i = 0; i < p.size(); i += chunk::kChunkSamples) {
            const std::size_t n = std::min(chunk::kChunkSamples, p.size() - i);
            insert.bind(1, series).bind(2, p[i].first).bind(3, p[i + n - 1].first).bind(4, static_cast<std::int64_t>(n));
            insert.bindBlob(5, chunk::encode(&p[i], n));
            insert.step();
            insert.reset();
        }
    }
    Stmt before, within, remove, insert;
};

/// The chunks of `series` that overlap [t0, t1] decoded, oldest first (empty when none).
Points chunkPoints(sqlite3* db, const std::string& path, std::int64_t series, double t0, double t1) {
    // From the last chunk starting at or before t0 (it may reach into the window) to the last starting by t1.
    Stmt s(db,
           "SELECT data FROM chunks WHERE series_id = ?1 AND t0 <= ?3 AND "
           "t0 >= COALESCE((SELECT MAX(t0) FROM chunks WHERE series_id = ?1 AND t0 <= ?2), -1e308) ORDER BY t0",
           path);
    s.bind(1, series).bind(2, t0).bind(3, t1);
    Points p;
    while (s.step()) chunk::decode(s.blob(0), s.bytes(0), p);
    return p;
}

}  // namespace

WriteStats& WriteStats::operator+=(const WriteStats& o) {
    if (conflicts == 0 && o.conflicts > 0) {
        conflict_series = o.conflict_series;
        conflict_t_s = o.conflict_t_s;
        conflict_kept = o.conflict_kept;
        conflict_dropped = o.conflict_dropped;
    }
    stored += o.stored;
    duplicates += o.duplicates;
    conflicts += o.conflicts;
    return *this;
}

WriteStats TelemetryStore::writeBatch(std::vector<Sample> samples, const std::vector<SourceRecord>& sources) {
    WriteStats st;
    if (samples.empty() && sources.empty()) return st;
    for (const Sample& x : samples)
        if (!std::isfinite(x.t_s)) throw StoreError(d_->path + ": a sample of series " + std::to_string(x.series) + " has no valid time");
    sortSamples(samples);
    d_->transaction([&] {
        ChunkWriter w(d_->db, d_->path);
        Points fresh, old, merged;
        std::vector<double> old_starts;
        for (std::size_t a = 0; a < samples.size();) {
            const std::int64_t series = samples[a].series;
            std::size_t b = a;
            fresh.clear();
            for (; b < samples.size() && samples[b].series == series; ++b) {
                if (!fresh.empty() && fresh.back().first == samples[b].t_s)
                    countRepeat(st, series, samples[b].t_s, fresh.back().second, samples[b].value);
                else fresh.emplace_back(samples[b].t_s, samples[b].value);
            }
            a = b;
            const double lo = fresh.front().first, hi = fresh.back().first;
            // The chunks to merge with: the one before `lo` when it reaches into the batch or is not full (an
            // append continues it), and every one starting inside [lo, hi].
            old.clear();
            old_starts.clear();
            w.before.bind(1, series).bind(2, lo);
            if (w.before.step() && (w.before.real(1) >= lo || w.before.integer(2) < static_cast<std::int64_t>(chunk::kChunkSamples))) {
                old_starts.push_back(w.before.real(0));
                chunk::decode(w.before.blob(3), w.before.bytes(3), old);
            }
            w.before.reset();
            w.within.bind(1, series).bind(2, lo).bind(3, hi);
            while (w.within.step()) {
                old_starts.push_back(w.within.real(0));
                chunk::decode(w.within.blob(1), w.within.bytes(1), old);
            }
            w.within.reset();
            if (old.empty()) {
                w.put(series, fresh);
                st.stored += static_cast<std::int64_t>(fresh.size());
                continue;
            }
            merged.clear();
            merged.reserve(old.size() + fresh.size());
            std::int64_t added = 0;
            std::size_t i = 0, j = 0;
            while (i < old.size() || j < fresh.size()) {
                if (j == fresh.size() || (i < old.size() && old[i].first < fresh[j].first)) {
                    merged.push_back(old[i++]);
                } else if (i == old.size() || fresh[j].first < old[i].first) {
                    merged.push_back(fresh[j++]);
                    ++added;
                } else {
                    countRepeat(st, series, old[i].first, old[i].second, fresh[j].second);
                    merged.push_back(old[i++]);
                    ++j;
                }
            }
            if (added == 0) continue;  // all there already (a re-import): nothing to rewrite
            st.stored += added;
            for (double t0 : old_starts) {
                w.remove.bind(1, series).bind(2, t0);
                w.remove.step();
                w.remove.reset();
            }
            w.put(series, merged);
        }
        Stmt src(d_->db, "INSERT OR REPLACE INTO sources(run_id, hash, name, samples, imported_at) VALUES(?1, ?2, ?3, ?4, datetime('now'))",
                 d_->path);
        for (const auto& s : sources) {
            src.bind(1, s.run).bind(2, s.hash).bind(3, s.name).bind(4, s.samples);
            src.step();
            src.reset();
        }
    });
    return st;
}

std::optional<SourceRecord> TelemetryStore::source(std::int64_t run, const std::string& hash) const {
    Stmt s(d_->db, "SELECT name, samples FROM sources WHERE run_id = ?1 AND hash = ?2", d_->path);
    s.bind(1, run).bind(2, hash);
    if (!s.step()) return std::nullopt;
    return SourceRecord{run, hash, s.text(0), s.integer(1)};
}

std::vector<SourceRecord> TelemetryStore::sources(std::int64_t run) const {
    Stmt s(d_->db, "SELECT hash, name, samples FROM sources WHERE run_id = ?1 ORDER BY rowid", d_->path);
    s.bind(1, run);
    std::vector<SourceRecord> out;
    while (s.step()) out.push_back({run, s.text(0), s.text(1), s.integer(2)});
    return out;
}

void TelemetryStore::deleteRun(std::int64_t run) {
    d_->transaction([&] {
        Stmt c(d_->db, "DELETE FROM chunks WHERE series_id IN (SELECT id FROM series WHERE run_id = ?1)", d_->path);
        c.bind(1, run);
        c.step();
        Stmt r(d_->db, "DELETE FROM runs WHERE id = ?1", d_->path);  // series, events, air fields, sources cascade
        r.bind(1, run);
        r.step();
    });
    for (auto it = d_->series_cache.begin(); it != d_->series_cache.end();)
        it = it->first.first == run ? d_->series_cache.erase(it) : std::next(it);
}

std::optional<std::pair<double, double>> TelemetryStore::timeSpan(std::int64_t run) const {
    Stmt s(d_->db, "SELECT MIN(c.t0), MAX(c.t1) FROM series r JOIN chunks c ON c.series_id = r.id WHERE r.run_id = ?1", d_->path);
    s.bind(1, run);
    if (!s.step() || s.null(0)) return std::nullopt;
    return std::make_pair(s.real(0), s.real(1));
}

std::vector<SeriesSummary> TelemetryStore::seriesSummary(std::int64_t run) const {
    Stmt s(d_->db,
           "SELECT r.id, r.entity, r.metric, r.unit, r.source, COALESCE(SUM(c.n), 0), MIN(c.t0), MAX(c.t1) "
           "FROM series r LEFT JOIN chunks c ON c.series_id = r.id WHERE r.run_id = ?1 GROUP BY r.id ORDER BY r.entity, r.metric, r.source",
           d_->path);
    s.bind(1, run);
    std::vector<SeriesSummary> out;
    while (s.step())
        out.push_back({s.integer(0),
                       {s.text(1), s.text(2), s.text(3), s.text(4)},
                       s.integer(5),
                       s.null(6) ? 0.0 : s.real(6),
                       s.null(7) ? 0.0 : s.real(7)});
    return out;
}

std::vector<SeriesValues> TelemetryStore::values(std::int64_t run, const std::string& metric, const std::vector<std::string>& entities,
                                                 double t0, double t1) const {
    Stmt ser(d_->db, "SELECT id, entity, metric, unit, source FROM series WHERE run_id = ?1 AND metric = ?2 ORDER BY entity, source",
             d_->path);
    ser.bind(1, run).bind(2, metric);
    std::vector<SeriesValues> out;
    while (ser.step()) {
        SeriesValues v;
        v.series = ser.integer(0);
        v.key = {ser.text(1), ser.text(2), ser.text(3), ser.text(4)};
        if (!entities.empty() && std::find(entities.begin(), entities.end(), v.key.entity) == entities.end()) continue;
        out.push_back(std::move(v));
    }
    for (auto& v : out)
        for (const auto& p : chunkPoints(d_->db, d_->path, v.series, t0, t1))
            if (p.first >= t0 && p.first <= t1) v.points.push_back(p);
    return out;
}

std::optional<double> TelemetryStore::latest(std::int64_t series, double t_s) const {
    Stmt s(d_->db, "SELECT data FROM chunks WHERE series_id = ?1 AND t0 <= ?2 ORDER BY t0 DESC LIMIT 1", d_->path);
    s.bind(1, series).bind(2, t_s);
    if (!s.step()) return std::nullopt;
    Points p;
    chunk::decode(s.blob(0), s.bytes(0), p);
    auto it = std::upper_bound(p.begin(), p.end(), t_s, [](double t, const std::pair<double, double>& x) { return t < x.first; });
    if (it == p.begin() || !std::isfinite(std::prev(it)->second)) return std::nullopt;  // before the series, or a gap
    return std::prev(it)->second;
}

std::vector<Bucket> TelemetryStore::buckets(std::int64_t series, double t0, double t1, int n) const {
    if (n < 1 || !(t1 > t0)) throw StoreError("buckets: need n >= 1 and t1 > t0");
    std::vector<Bucket> out(static_cast<std::size_t>(n));
    const double w = (t1 - t0) / n;
    for (int i = 0; i < n; ++i) {
        out[i].t0_s = t0 + i * w;
        out[i].t1_s = t0 + (i + 1) * w;
        out[i].min = std::numeric_limits<double>::infinity();
        out[i].max = -std::numeric_limits<double>::infinity();
    }
    for (const auto& [t, v] : chunkPoints(d_->db, d_->path, series, t0, t1)) {
        if (t < t0 || t > t1 || !std::isfinite(v)) continue;
        Bucket& b = out[static_cast<std::size_t>(std::min(static_cast<std::int64_t>((t - t0) / w), static_cast<std::int64_t>(n - 1)))];
        b.min = std::min(b.min, v);
        b.max = std::max(b.max, v);
        b.mean += v;
        ++b.count;
    }
    for (auto& b : out) {
        if (b.count) b.mean /= static_cast<double>(b.count);
        else b.min = b.max = 0;
    }
    return out;
}

std::int64_t TelemetryStore::sampleCount() const {
    Stmt s(d_->db, "SELECT COALESCE(SUM(n), 0) FROM chunks", d_->path);
    s.step();
    return s.integer(0);
}

std::int64_t TelemetryStore::diskBytes() {
    d_->exec("PRAGMA wal_checkpoint(TRUNCATE)");
    Stmt pages(d_->db, "PRAGMA page_count", d_->path), size(d_->db, "PRAGMA page_size", d_->path);
    pages.step();
    size.step();
    return pages.integer(0) * size.integer(0);
}

std::vector<SeriesValues> TelemetryStore::allSeries(std::int64_t run, const std::function<bool(double)>& progress) const {
    return readSeries(run, -std::numeric_limits<double>::infinity(), progress);
}

std::vector<SeriesValues> TelemetryStore::seriesSince(std::int64_t run, double after_s) const { return readSeries(run, after_s, {}); }

std::vector<SeriesValues> TelemetryStore::readSeries(std::int64_t run, double after_s, const std::function<bool(double)>& progress) const {
    Stmt ser(d_->db, "SELECT id, entity, metric, unit, source FROM series WHERE run_id = ?1 ORDER BY id", d_->path);
    ser.bind(1, run);
    std::vector<SeriesValues> out;
    std::map<std::int64_t, std::size_t> at;
    while (ser.step()) {
        at[ser.integer(0)] = out.size();
        out.push_back({ser.integer(0), {ser.text(1), ser.text(2), ser.text(3), ser.text(4)}, {}});
    }
    if (out.empty()) return out;
    Stmt pts(d_->db, "SELECT series_id, data FROM chunks WHERE series_id >= ?1 AND series_id <= ?2 AND t1 > ?3 ORDER BY series_id, t0",
             d_->path);
    pts.bind(1, out.front().series).bind(2, out.back().series).bind(3, after_s);
    std::size_t rows = 0;
    while (pts.step()) {
        // Chunks come by series: the series reached is a fair measure of the way done.
        auto it = at.find(pts.integer(0));
        if (it == at.end()) continue;  // another run's series between ours
        if (progress && ++rows % 256 == 0 && !progress(static_cast<double>(it->second + 1) / static_cast<double>(out.size())))
            throw StoreCancelled();
        chunk::decode(pts.blob(1), pts.bytes(1), out[it->second].points);
    }
    return out;
}

BufferedWriter::~BufferedWriter() {
    try {
        flush();
    } catch (...) {  // a destructor must not throw; callers who care call flush() themselves
    }
}

void BufferedWriter::flush() {
    if (buf_.empty() && sources_.empty()) return;
    std::vector<Sample> batch;
    batch.swap(buf_);
    std::vector<SourceRecord> sources;
    sources.swap(sources_);
    stats_ += store_.writeBatch(std::move(batch), sources);
}

namespace detail {

void moveRowSamplesIntoChunks(sqlite3* db, const std::string& path) {
    {
        Stmt has(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'samples'", path);
        if (!has.step()) return;
    }
    {
        Stmt rows(db, "SELECT series_id, t, value FROM samples ORDER BY series_id, t", path);
        ChunkWriter w(db, path);
        Points p;
        std::int64_t series = 0;
        while (rows.step()) {
            if (!p.empty() && rows.integer(0) != series) {
                w.put(series, p);
                p.clear();
            }
            series = rows.integer(0);
            p.emplace_back(rows.real(1), rows.null(2) ? std::nan("") : rows.real(2));
        }
        if (!p.empty()) w.put(series, p);
    }
    char* msg = nullptr;
    if (sqlite3_exec(db, "DROP TABLE samples", nullptr, nullptr, &msg) != SQLITE_OK) {
        const std::string m = msg ? msg : "unknown error";
        sqlite3_free(msg);
        throw StoreError(path + ": SQLite: " + m);
    }
}

}  // namespace detail

}  // namespace ct::runs
