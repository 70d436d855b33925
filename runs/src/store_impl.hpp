#pragma once
// The store's SQLite plumbing, shared by store.cpp (runs, entities, events, air fields) and
// store_samples.cpp (the sample chunks). Private.
#include <clustertwin/runs/store.hpp>

#include <sqlite3.h>

#include <map>
#include <string>
#include <vector>

namespace ct::runs::detail {

/// A prepared statement, finalized on destruction.
class Stmt {
public:
    Stmt(sqlite3* db, const char* sql, const std::string& path) : db_(db), path_(path) {
        if (sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) != SQLITE_OK) fail("prepare");
    }
    ~Stmt() { sqlite3_finalize(s_); }
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;
    Stmt& bind(int i, double v) { return check(sqlite3_bind_double(s_, i, v)); }
    Stmt& bind(int i, std::int64_t v) { return check(sqlite3_bind_int64(s_, i, v)); }
    Stmt& bind(int i, const std::string& v) {
        return check(sqlite3_bind_text(s_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    }
    Stmt& bindNull(int i) { return check(sqlite3_bind_null(s_, i)); }
    Stmt& bindFloats(int i, const std::vector<float>& v) {
        if (v.empty()) return bindNull(i);
        return check(sqlite3_bind_blob64(s_, i, v.data(), v.size() * sizeof(float), SQLITE_TRANSIENT));
    }
    Stmt& bindBlob(int i, const std::string& v) { return check(sqlite3_bind_blob64(s_, i, v.data(), v.size(), SQLITE_TRANSIENT)); }
    const void* blob(int c) const { return sqlite3_column_blob(s_, c); }
    std::size_t bytes(int c) const { return static_cast<std::size_t>(sqlite3_column_bytes(s_, c)); }
    std::vector<float> floats(int c) const {
        const auto* p = static_cast<const float*>(sqlite3_column_blob(s_, c));
        const auto n = static_cast<std::size_t>(sqlite3_column_bytes(s_, c)) / sizeof(float);
        return p ? std::vector<float>(p, p + n) : std::vector<float>();
    }
    /// Steps once: true while a row is available.
    bool step() {
        const int rc = sqlite3_step(s_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        fail("step");
        return false;
    }
    void reset() {
        sqlite3_reset(s_);
        sqlite3_clear_bindings(s_);
    }
    double real(int c) const { return sqlite3_column_double(s_, c); }
    std::int64_t integer(int c) const { return sqlite3_column_int64(s_, c); }
    bool null(int c) const { return sqlite3_column_type(s_, c) == SQLITE_NULL; }
    std::string text(int c) const {
        const auto* p = sqlite3_column_text(s_, c);
        return p ? std::string(reinterpret_cast<const char*>(p)) : std::string();
    }

private:
    Stmt& check(int rc) {
        if (rc != SQLITE_OK) fail("bind");
        return *this;
    }
    [[noreturn]] void fail(const char* what) const { throw StoreError(path_ + ": SQLite " + what + " failed: " + sqlite3_errmsg(db_)); }
    sqlite3* db_;
    sqlite3_stmt* s_ = nullptr;
    const std::string& path_;
};

/// Schema versions 1 and 2 kept one row per sample in samples(series_id, t, value): moves them into chunks
/// and drops the table. Call inside a transaction.
void moveRowSamplesIntoChunks(sqlite3* db, const std::string& path);

}  // namespace ct::runs::detail

namespace ct::runs {

struct TelemetryStore::Impl {
    sqlite3* db = nullptr;
    std::string path;
    std::map<std::pair<std::int64_t, std::string>, std::int64_t> series_cache;  // (run, entity\x1fmetric\x1fsource)

    ~Impl() {
        if (db) sqlite3_close_v2(db);
    }
    /// Runs fn inside BEGIN/COMMIT; rolls back and rethrows on failure.
    template <class F>
    void transaction(F&& fn) {
        exec("BEGIN");
        try {
            fn();
            exec("COMMIT");
        } catch (...) {
            sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    }
    void exec(const char* sql) {
        char* msg = nullptr;
        if (sqlite3_exec(db, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
            std::string m = msg ? msg : "unknown error";
            sqlite3_free(msg);
            throw StoreError(path + ": SQLite: " + m);
        }
    }
};

}  // namespace ct::runs
