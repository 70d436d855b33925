#include <clustertwin/sim/thread_pool.hpp>

#include <algorithm>
#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CT_PAUSE() _mm_pause()
#else
#define CT_PAUSE() std::this_thread::yield()
#endif

namespace ct::sim {

namespace {
/// How long an idle worker keeps polling for the next job before it sleeps.
constexpr auto kSpin = std::chrono::microseconds(150);
constexpr std::uint64_t kMask20 = (1u << 20) - 1;
constexpr std::uint32_t kMask24 = (1u << 24) - 1;
std::uint32_t generationOf(std::uint64_t ticket) { return static_cast<std::uint32_t>(ticket >> 40); }
std::uint64_t nextOf(std::uint64_t ticket) { return (ticket >> 20) & kMask20; }
std::uint64_t endOf(std::uint64_t ticket) { return ticket & kMask20; }
std::uint64_t ticketOf(std::uint32_t gen, std::uint64_t next, std::uint64_t end) {
    return static_cast<std::uint64_t>(gen & kMask24) << 40 | next << 20 | end;
}
/// The pool whose chunk this thread is running (null: none), so that a run from inside a chunk goes inline.
thread_local const ThreadPool* t_running = nullptr;
/// Marks this thread as inside `pool`'s chunk for its lifetime (and restores what was there: pools may nest).
struct Inside {
    const ThreadPool* saved;
    explicit Inside(const ThreadPool* pool) : saved(t_running) { t_running = pool; }
    ~Inside() { t_running = saved; }
    Inside(const Inside&) = delete;
    Inside& operator=(const Inside&) = delete;
};
}  // namespace

bool ThreadPool::inside() const { return t_running == this; }

ThreadPool::ThreadPool(int threads) {
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    blocks_ = std::make_unique<Block[]>(static_cast<std::size_t>(threads));
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker(static_cast<std::size_t>(i)); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lk(m_);
        stop_.store(true);
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
}

void ThreadPool::work(std::uint32_t gen, std::size_t self) {
    const Inside in(this);
    const auto* fn = job_.load(std::memory_order_acquire);
    const std::size_t n = static_cast<std::size_t>(size());
    for (std::size_t k = 0; k < n; ++k) {
        Block& b = blocks_[(self + k) % n];
        std::uint64_t v = b.ticket.load(std::memory_order_acquire);
        for (;;) {
            if (generationOf(v) != gen || nextOf(v) >= endOf(v)) break;
            // Success proves the generation is still open, so fn (read after it began) is its own.
            if (!b.ticket.compare_exchange_weak(v, v + (1u << 20), std::memory_order_acq_rel, std::memory_order_acquire)) continue;
            (*fn)(static_cast<std::size_t>(nextOf(v)));
            finished_.fetch_add(1, std::memory_order_acq_rel);
            v = b.ticket.load(std::memory_order_acquire);
        }
    }
}

void ThreadPool::run(std::size_t chunks, const std::function<void(std::size_t)>& fn) {
    if (chunks == 0) return;
    if (workers_.empty() || chunks == 1 || inside()) {
        for (std::size_t c = 0; c < chunks; ++c) fn(c);
        return;
    }
    // Chunk numbers live in 20 bits of a ticket: larger jobs go in batches.
    for (std::size_t first = 0; first < chunks; first += kMask20) {
        const std::size_t count = std::min<std::size_t>(kMask20, chunks - first);
        if (first == 0 && count == chunks) runBatch(chunks, fn);
        else runBatch(count, [&](std::size_t c) { fn(first + c); });
    }
}

void ThreadPool::runBatch(std::size_t chunks, const std::function<void(std::size_t)>& fn) {
    const std::uint32_t gen = (generation_.load() + 1) & kMask24;
    job_.store(&fn, std::memory_order_relaxed);
    finished_.store(0, std::memory_order_relaxed);
    const std::size_t n = static_cast<std::size_t>(size());
    for (std::size_t p = 0; p < n; ++p)
        blocks_[p].ticket.store(ticketOf(gen, chunks * p / n, chunks * (p + 1) / n), std::memory_order_release);
    generation_.store(gen);  // seq_cst: publishes the job before sleepers_ is read
    if (sleepers_.load() > 0) {
        std::lock_guard<std::mutex> lk(m_);
        cv_.notify_all();
    }
    work(gen, 0);  // the caller works too
    for (unsigned spins = 0; finished_.load(std::memory_order_acquire) != chunks; ++spins) {
        if (spins < 4096) CT_PAUSE();
        else std::this_thread::yield();  // a worker was descheduled mid-chunk
    }
}

void ThreadPool::worker(std::size_t self) {
    std::uint32_t seen = 0;
    auto fresh = [&] { return generation_.load() != seen; };
    for (;;) {
        const auto until = std::chrono::steady_clock::now() + kSpin;
        for (unsigned i = 0; !fresh() && !stop_.load(std::memory_order_relaxed); ++i) {
            CT_PAUSE();
            if ((i & 63u) == 63u && std::chrono::steady_clock::now() > until) break;
        }
        if (!fresh() && !stop_.load()) {
            std::unique_lock<std::mutex> lk(m_);
            sleepers_.fetch_add(1);  // seq_cst, before the predicate reads the ticket: no lost wake-up
            cv_.wait(lk, [&] { return stop_.load() || fresh(); });
            sleepers_.fetch_sub(1);
        }
        if (stop_.load()) return;
        seen = generation_.load();
        work(seen, self);
    }
}

}  // namespace ct::sim
