#include <clustertwin/importers/alert_rules.hpp>
#include <clustertwin/importers/formats.hpp>
#include <clustertwin/importers/import_session.hpp>

#include <clustertwin/importers/mapping.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <future>
#include <optional>
#include <thread>
#include <unordered_map>

namespace ct::importers {

using runs::BufferedWriter;
using runs::EntityInfo;
using runs::SeriesKey;
using runs::StoredEvent;
using runs::TelemetryStore;
using runs::WriteStats;

namespace {

/// Two 64-bit lanes over 8-byte words (multiply, rotate, xor-shift mixing): a content fingerprint, not a
/// cryptographic hash; with the size, two different files agreeing is not a practical concern.
class Fingerprint {
public:
    void add(const char* p, std::size_t n) {
        size_ += n;
        for (std::size_t i = 0; i < n; ++i) {
            tail_ |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * fill_);
            if (++fill_ == 8) {
                mix(tail_);
                tail_ = 0;
                fill_ = 0;
            }
        }
    }
    std::string hex() {
        if (fill_) mix(tail_ ^ (std::uint64_t{fill_} << 56));
        char buf[64];
        std::snprintf(buf, sizeof buf, "%016llx%016llx-%llu", static_cast<unsigned long long>(final(a_)),
                      static_cast<unsigned long long>(final(b_)), static_cast<unsigned long long>(size_));
        return buf;
    }

private:
    static std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
    static std::uint64_t final(std::uint64_t h) {
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 33;
        h *= 0xc4ceb9fe1a85ec53ULL;
        return h ^ (h >> 33);
    }
    void mix(std::uint64_t w) {
        a_ = rotl(a_ ^ (w * 0x9e3779b97f4a7c15ULL), 31) * 0x87c37b91114253d5ULL;
        b_ = rotl(b_ + (w ^ 0x4cf5ad432745937fULL), 27) * 0x52dce729ULL + a_;
    }
    std::uint64_t a_ = 0x243f6a8885a308d3ULL, b_ = 0x13198a2e03707344ULL, tail_ = 0, size_ = 0;
    unsigned fill_ = 0;
};

/// Informational warnings: nothing was lost (a job that never started or uses no GPUs has nothing to replay).
bool informational(const std::string& kind) {
    return kind == "no_data" || kind == "empty" || kind == "note" || kind == "not_started" || kind == "no_gpus";
}

struct Parsed {
    enum class Kind { Samples, Jobs, Skipped, Failed } kind = Kind::Failed;
    std::string format;  ///< the format's id
    ParseResult result;
    std::string error;
};

}  // namespace

std::string contentHash(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ImportError(path + ": cannot open");
    Fingerprint f;
    std::vector<char> buf(1 << 20);
    while (in) {
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        f.add(buf.data(), static_cast<std::size_t>(in.gcount()));
    }
    if (in.bad()) throw ImportError(path + ": read error");
    return f.hex();
}

std::string contentHashOf(std::string_view bytes) {
    Fingerprint f;
    f.add(bytes.data(), bytes.size());
    return f.hex();
}

std::size_t ImportSummary::failedRecords() const {
    std::size_t n = static_cast<std::size_t>(written.conflicts);
    for (const auto& [kind, v] : warning_kinds)
        if (!informational(kind) && kind != "collision") n += v.first;  // collisions are counted readings
    return n;
}

int ImportSummary::exitCode() const {
    const bool read_something = samples_read > 0 || !jobs.empty() || links > 0 || !entities.empty() || unchanged_files > 0;
    if (!failed.empty() || failedRecords() > 0) return read_something ? 3 : 2;
    return read_something || files > 0 ? 0 : 2;  // files > 0: read, and empty (a tool that printed nothing)
}

struct ImportSession::Impl {
    Impl(TelemetryStore& s, ImportOptions o) : store(s), opt(std::move(o)), writer(s, opt.flush_every) {}
    TelemetryStore& store;
    ImportOptions opt;
    BufferedWriter writer;
    ImportSummary sum;
    bool created = false;
    std::size_t events = 0;
    std::unordered_map<std::string, std::int64_t> series_ids;  // entity \x1f metric \x1f source
    // The series of the previous source by position: scrapes of one exporter list their series in the same
    // order each time, so most samples find their id by comparing two strings instead of hashing.
    struct Slot {
        std::string entity, metric;
        std::int64_t id = 0;
    };
    std::vector<Slot> by_position;
    std::unordered_map<std::string, std::size_t> entity_at;  // id → index in sum.entities
    std::string by_position_format;
    std::atomic<bool> cancel{false};
    WriteStats early;  // repeats found within a source, before the store

    void warn(std::vector<ImportWarning> ws, const std::string& file, const std::function<std::string(const std::string&)>& shown) {
        if (ws.empty()) return;
        auto fix = [&](const std::string& text) { return shown ? shown(text) : text; };
        ImportSummary::FileWarnings fw{fix(file), ws.size(), {}};
        for (auto& w : ws) {
            w.location = fix(w.location);
            auto& [n, first] = sum.warning_kinds[w.kind];
            if (n++ == 0) first = w.location + ": " + w.message;
            if (fw.first.size() < ImportSummary::kFirstWarnings) fw.first.push_back(std::move(w));
        }
        sum.warnings.push_back(std::move(fw));
    }

    void storeSamples(ParseResult& r, const std::string& source, const std::string& fmt, const std::string& hash) {
        if (opt.mapper) {
            const MappingReport rep = opt.mapper->apply(r);
            sum.matched += rep.matched;
            sum.unmatched.insert(rep.unmatched.begin(), rep.unmatched.end());
        }
        // Entities: each scrape lists the same ones again; only new or changed ones are written and kept.
        std::vector<EntityInfo> ents;
        for (auto& e : r.entities) {
            auto [it, is_new] = entity_at.try_emplace(e.id, sum.entities.size());
            if (is_new) {
                ents.push_back({e.id, e.kind, e.parent, e.name});
                sum.entities.push_back(std::move(e));
            } else if (ImportedEntity& known = sum.entities[it->second];
                       known.kind != e.kind || known.parent != e.parent || known.name != e.name || known.labels != e.labels) {
                ents.push_back({e.id, e.kind, e.parent, e.name});
                known = std::move(e);
            }
        }
        for (const auto& l : r.links)
            ents.push_back({l.from + ":" + std::to_string(l.from_port) + "-" + l.to + ":" + std::to_string(l.to_port), "link", l.from,
                            l.speed + " to " + l.to});
        sum.links += r.links.size();
        if (!ents.empty()) store.upsertEntities(ents);
        // Series ids: known ones from the map, new ones created together in one transaction.
        std::vector<std::int64_t> ids(r.samples.size());
        std::vector<SeriesKey> fresh;
        std::unordered_map<std::string, std::size_t> fresh_at;
        std::string key;
        if (fmt != by_position_format) {
            by_position.clear();
            by_position_format = fmt;
        }
        if (by_position.size() < r.samples.size()) by_position.resize(r.samples.size());
        std::vector<std::size_t> slot_misses;
        for (std::size_t i = 0; i < r.samples.size(); ++i) {
            const auto& s = r.samples[i];
            const Slot& slot = by_position[i];
            if (slot.id > 0 && slot.entity == s.entity && slot.metric == s.metric) {
                ids[i] = slot.id;
                continue;
            }
            slot_misses.push_back(i);
            key.assign(s.entity).append(1, '\x1f').append(s.metric).append(1, '\x1f').append(fmt);
            if (auto it = series_ids.find(key); it != series_ids.end()) {
                ids[i] = it->second;
                continue;
            }
            auto [it, is_new] = fresh_at.try_emplace(key, fresh.size());
            if (is_new) fresh.push_back({s.entity, s.metric, s.unit, fmt});
            ids[i] = -1 - static_cast<std::int64_t>(it->second);
        }
        if (!fresh.empty()) {
            const std::vector<std::int64_t> made = store.seriesMany(sum.run, fresh);
            for (const auto& [k, at] : fresh_at) series_ids.emplace(k, made[at]);
            for (auto& id : ids)
                if (id < 0) id = made[static_cast<std::size_t>(-1 - id)];
        }
        for (std::size_t i : slot_misses) by_position[i] = {r.samples[i].entity, r.samples[i].metric, ids[i]};
        addChecked(r, ids, source);
        sum.samples_read += static_cast<std::int64_t>(r.samples.size());
        if (!hash.empty()) writer.addSource({sum.run, hash, source, static_cast<std::int64_t>(r.samples.size())});
        sum.series = series_ids.size();
    }

    /// Hands the samples to the writer, except a second reading of one series at one time within this source:
    /// the same value is a duplicate; another value means the source's identities do not tell two things
    /// apart, a collision named here with its file and series (the store counts any across sources).
    void addChecked(const ParseResult& r, const std::vector<std::int64_t>& ids, const std::string& source) {
        if (ids.empty()) return;
        const auto [lo, hi] = std::minmax_element(ids.begin(), ids.end());
        const std::int64_t base = *lo;
        std::vector<std::uint32_t> last(static_cast<std::size_t>(*hi - base + 1), UINT32_MAX);
        struct Collision {
            std::size_t count = 0;
            double t = 0, kept = 0, dropped = 0;
        };
        std::map<std::size_t, Collision> collisions;  // by the first sample of the series, in file order
        for (std::size_t i = 0; i < r.samples.size(); ++i) {
            const auto& smp = r.samples[i];
            std::uint32_t& at = last[static_cast<std::size_t>(ids[i] - base)];
            if (at != UINT32_MAX && r.samples[at].t_s == smp.t_s) {
                const double kept = r.samples[at].value;
                if (kept == smp.value || (!std::isfinite(kept) && !std::isfinite(smp.value))) {
                    ++early.duplicates;
                } else {
                    ++early.conflicts;
                    Collision& c = collisions[at];
                    if (c.count++ == 0) c = {1, smp.t_s, kept, smp.value};
                }
                continue;
            }
            at = static_cast<std::uint32_t>(i);
            writer.add({ids[i], smp.t_s, smp.value});
        }
        std::vector<ImportWarning> ws;
        for (const auto& [first, c] : collisions) {
            const auto& smp = r.samples[first];
            char buf[160];
            std::snprintf(buf, sizeof buf, "%zu more reading(s) at t=%.10g s: kept %.10g, dropped %.10g", c.count, c.t, c.kept, c.dropped);
            ws.push_back(
                {source, "collision", smp.entity + " " + smp.metric + ": " + buf + " (two things this source reports are not told apart)"});
        }
        warn(std::move(ws), source, {});
    }

    /// `hash` empty: the source is recorded with its samples.
    void storeJobs(std::vector<SlurmJob>& jobs, const std::string& source, const std::string& hash) {
        std::vector<StoredEvent> evs;
        for (const auto& j : jobs) {
            std::string nodes;
            for (const auto& n : j.nodes) nodes += (nodes.empty() ? "" : ",") + n;
            const std::string msg = j.name + " (" + j.state + ", " + std::to_string(j.gpus) + " GPUs" +
                                    (j.user.empty() ? "" : ", user " + j.user) + ") on " + (nodes.empty() ? "no nodes" : nodes);
            if (j.start_s) evs.push_back({*j.start_s, "job_start", "slurm-" + j.id, std::nullopt, msg});
            if (j.end_s && j.start_s) evs.push_back({*j.end_s, "job_stop", "slurm-" + j.id, std::nullopt, j.state});
        }
        store.writeEvents(sum.run, evs);
        events += evs.size();
        if (!hash.empty()) writer.addSource({sum.run, hash, source, 0});
        sum.jobs.insert(sum.jobs.end(), std::make_move_iterator(jobs.begin()), std::make_move_iterator(jobs.end()));
    }

    /// `real_name`: the path is the file's own name (not a stand-in such as standard input's temporary copy),
    /// so a host may be named after it.
    /// A parsed file into the store and the summary, as its kind says.
    void storeParsed(Parsed& p, const std::string& file, const std::string& hash,
                     const std::function<std::string(const std::string&)>& shown);
    Parsed parse(const std::string& file, bool walked, bool real_name, const Progress& progress) const {
        Parsed p;
        try {
            Detection det = detectFileFormat(file);
            // sacct text without a header is recognised by the --format list it was printed with.
            if (!det && !opt.sacct_format.empty() && !walked) det.format = findFormat("slurm-sacct");
            if (!det && walked) {  // a mockup's $metadata, a README: not telemetry
                p.kind = Parsed::Kind::Skipped;
                return p;
            }
            if (det && !det.format->read_through.empty() && walked) {  // read through the file beside it, when there is one
                std::error_code ec;
                if (std::filesystem::is_regular_file(std::filesystem::path(file).parent_path() / det.format->read_through, ec)) {
                    p.kind = Parsed::Kind::Skipped;
                    return p;
                }
            }
            p.format = std::string(det.id());
            ParseOptions po;
            po.host = opt.host;
            po.host_from_path = real_name;
            po.tz_offset_s = opt.tz_offset_s;
            po.trace_start_s = opt.trace_start_s;
            po.sacct_fields = opt.sacct_format;
            p.result = parseFileAs(file, det, po, progress);  // detected once, above
            // Jobs and nothing else (Slurm accounting, job traces): the file is recorded with its jobs.
            const bool jobs_only =
                !p.result.jobs.empty() && p.result.samples.empty() && p.result.entities.empty() && p.result.links.empty();
            p.kind = jobs_only || (det && det.format->kind == FormatKind::Jobs && p.result.samples.empty()) ? Parsed::Kind::Jobs
                                                                                                            : Parsed::Kind::Samples;
        } catch (const std::exception& e) {
            p.kind = Parsed::Kind::Failed;
            p.error = e.what();
        }
        return p;
    }
};

ImportSession::ImportSession(TelemetryStore& store, ImportOptions opt) : d_(std::make_unique<Impl>(store, std::move(opt))) {
    for (const auto& r : store.runs())
        if (r.kind == "imported" && r.name == d_->opt.run_name) d_->sum.run = r.id;
    if (d_->sum.run == 0) {
        d_->sum.run = store.createRun(d_->opt.run_name, "imported", d_->opt.scenario_id);
        d_->created = true;
    }
}

ImportSession::~ImportSession() = default;

std::int64_t ImportSession::run() const { return d_->sum.run; }

void ImportSession::cancel() { d_->cancel = true; }

void ImportSession::Impl::storeParsed(Parsed& p, const std::string& file, const std::string& hash,
                                      const std::function<std::string(const std::string&)>& shown) {
    const std::string name = shown ? shown(file) : file;
    switch (p.kind) {
        case Parsed::Kind::Skipped:
            ++sum.skipped_files;
            break;
        case Parsed::Kind::Failed:
            sum.failed.push_back(shown ? shown(p.error) : p.error);
            break;
        case Parsed::Kind::Jobs:
            ++sum.files;
            ++sum.formats[p.format];
            warn(std::move(p.result.warnings), file, shown);
            storeJobs(p.result.jobs, name, hash);
            break;
        case Parsed::Kind::Samples:
            ++sum.files;
            ++sum.formats[p.format];
            warn(std::move(p.result.warnings), file, shown);
            if (p.result.cancelled) {
                cancel = true;  // a file cut short is not stored, nor marked read
            } else {
                if (!p.result.jobs.empty()) storeJobs(p.result.jobs, name, {});
                storeSamples(p.result, name, p.format, hash);
            }
            break;
    }
}

void ImportSession::importFiles(const std::vector<std::pair<std::string, bool>>& files, const FileProgress& progress,
                                const std::function<std::string(const std::string&)>& shown) {
    Impl& d = *d_;
    auto show = [&](const std::string& p) { return shown ? shown(p) : p; };
    struct Pending {
        std::size_t index;
        std::string hash;
        std::unique_ptr<std::atomic<double>> within;  // how far its parse is, 0..1
        std::future<Parsed> parsed;
    };
    // Files are parsed ahead, one per core, while this thread stores them in order. The content hash decides
    // first whether a file is read at all (the same content was imported into the run before: skipped).
    // A task frees the result stored before it on its own thread (glibc's arenas: freeing on another thread
    // contends for the lock the parser allocates under).
    const std::size_t ahead = std::max(1u, std::thread::hardware_concurrency());
    std::deque<Pending> pending;
    std::vector<Parsed> spent;
    std::size_t k = 0;
    auto launch_next = [&] {
        for (; k < files.size() && !d.cancel; ++k) {
            const std::string& file = files[k].first;  // not a structured binding: clang 14 cannot capture one
            const bool walked = files[k].second;
            std::string hash;
            try {
                hash = contentHash(file);
            } catch (const ImportError& e) {
                d.sum.failed.push_back(show(e.what()));
                continue;
            }
            if (d.store.source(d.sum.run, hash)) {
                ++d.sum.unchanged_files;
                continue;
            }
            auto within = std::make_unique<std::atomic<double>>(0.0);
            Progress parse_progress = [w = within.get(), &d](double f) {
                *w = f;
                return !d.cancel.load();
            };
            Parsed old;
            if (!spent.empty()) {
                old = std::move(spent.back());
                spent.pop_back();
            }
            const bool real_name = show(file) == file;
            auto task = [&d, &file, walked, real_name, parse_progress, old = std::move(old)]() mutable {
                old = Parsed{};
                return d.parse(file, walked, real_name, parse_progress);
            };
            pending.push_back({k, std::move(hash), std::move(within), std::async(std::launch::async, std::move(task))});
            ++k;
            return;
        }
    };
    for (std::size_t i = 0; i < ahead; ++i) launch_next();
    while (!pending.empty()) {
        Pending& cur = pending.front();
        const std::string& file = files[cur.index].first;
        auto tell = [&] {
            if (progress && !progress(cur.index, files.size(), cur.within->load(), show(file))) d.cancel = true;
        };
        tell();
        while (cur.parsed.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) tell();
        Parsed p = cur.parsed.get();
        if (!d.cancel) d.storeParsed(p, file, cur.hash, shown);
        spent.push_back(std::move(p));
        pending.pop_front();
        launch_next();
    }
    if (d.cancel) d.sum.cancelled = true;
    if (progress) progress(files.size(), files.size(), 1.0, {});
}

void ImportSession::add(ParseResult& r, const std::string& source, const std::string& format, const std::string& hash) {
    ++d_->sum.formats[format];
    ++d_->sum.files;
    d_->warn(std::move(r.warnings), source, {});
    if (!r.jobs.empty()) d_->storeJobs(r.jobs, source, {});
    d_->storeSamples(r, source, format, hash);
}

ImportSummary ImportSession::finish() {
    Impl& d = *d_;
    d.writer.flush();
    d.sum.written = d.writer.stats();
    if (d.sum.written.conflicts > 0) {  // across sources: name the series
        for (const auto& [key, id] : d.series_ids)
            if (id == d.sum.written.conflict_series) {
                std::string name = key.substr(0, key.rfind('\x1f'));
                std::replace(name.begin(), name.end(), '\x1f', ' ');
                char buf[160];
                std::snprintf(buf, sizeof buf, " at t=%.10g s: kept %.10g, dropped %.10g", d.sum.written.conflict_t_s,
                              d.sum.written.conflict_kept, d.sum.written.conflict_dropped);
                d.sum.collision_note = std::to_string(d.sum.written.conflicts) +
                                       " reading(s) fell on a series and time already holding another value (from another file or an "
                                       "earlier import); first: " +
                                       name + buf;
            }
    }
    d.sum.written.duplicates += d.early.duplicates;
    d.sum.written.conflicts += d.early.conflicts;
    TelemetryStore& s = d.store;
    if (d.created && d.sum.written.stored == 0 && d.events == 0) {
        s.deleteRun(d.sum.run);  // an import that read nothing leaves no empty run behind
        d.sum.run_removed = true;
    } else {
        // The alert rules on what was measured, with the real GPU models' limits (issue 40).
        AlertRunResult alerts = d.opt.alerts ? d.opt.alerts->evaluate(s, d.sum.run) : raiseAlerts(s, d.sum.run, defaultAlertRules());
        d.sum.alerts = alerts.raised.size();
        d.sum.alert_notes = std::move(alerts.notes);
        s.finishRun(d.sum.run, 0);
        if (d.opt.mapper && d.sum.matched > 0 && !d.opt.mapped_onto.empty()) {
            runs::RunMeta meta;
            for (const auto& r : s.runs())
                if (r.id == d.sum.run) meta = r.meta;
            meta.mapped_onto = d.opt.mapped_onto;
            if (!d.opt.mapped_onto_file.empty()) meta.scenario_file = d.opt.mapped_onto_file;
            s.setRunMeta(d.sum.run, meta);
        }
    }
    return std::move(d.sum);
}

}  // namespace ct::importers
