#pragma once
// A small fixed pool for the grid loops. Work is split into chunks by index, so results never depend on the
// number of threads (each cell's update reads only the previous state; reductions sum per-chunk partials in
// chunk order).
//
// The air models dispatch thousands of short loops a second (a quick-mode substep is ~0.1 ms of work), so a
// worker spins briefly on the next job before it sleeps: waking a sleeping thread costs as much as the loop.
// Each thread owns a contiguous block of chunks and takes from the others' only when its own is done, so a
// thread sees the same part of a grid every step and finds it in its own cache.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ct::sim {

class ThreadPool {
public:
    /// `threads` ≤ 0: one per hardware thread.
    explicit ThreadPool(int threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return static_cast<int>(workers_.size()) + 1; }
    /// How many threads a run from the calling thread spreads over: size(), or 1 inside one of the pool's chunks.
    int width() const { return inside() ? 1 : size(); }
    /// Calls fn(chunk) for chunk in [0, chunks) across the pool and the calling thread; returns when all are done.
    /// Called from inside one of this pool's chunks (a hall stepped beside others, each on a thread of the pool),
    /// it calls fn for every chunk in turn in the calling thread: the same chunks, so the same result.
    void run(std::size_t chunks, const std::function<void(std::size_t)>& fn);
    /// Whether the calling thread is inside one of this pool's chunks (a run there goes chunk by chunk, inline).
    bool inside() const;

private:
    void worker(std::size_t self);
    /// Claims and runs chunks of generation `gen`, its own block (`self`) first, until none is left.
    void work(std::uint32_t gen, std::size_t self);
    std::vector<std::thread> workers_;
    std::mutex m_;
    std::condition_variable cv_;
    std::atomic<const std::function<void(std::size_t)>*> job_{nullptr};
    std::atomic<std::size_t> finished_{0};
    /// The current generation (job number).
    std::atomic<std::uint32_t> generation_{0};
    /// Per thread's block, one word: generation (24 bits), the next unclaimed chunk (20 bits) and the block's
    /// end (20 bits). A chunk is claimed by a compare-and-swap of the word, so a late worker can never run a
    /// chunk of a job that has already returned.
    struct alignas(64) Block {
        std::atomic<std::uint64_t> ticket{0};
    };
    void runBatch(std::size_t chunks, const std::function<void(std::size_t)>& fn);
    std::unique_ptr<Block[]> blocks_;
    std::atomic<int> sleepers_{0};
    std::atomic<bool> stop_{false};
};

}  // namespace ct::sim
