#pragma once
// A small fixed pool for the grid loops. Work is split into chunks by index, so results never depend on the
// number of threads (each cell's update reads only the previous state; reductions sum per-chunk partials in
// chunk order).
#include <condition_variable>
#include <cstddef>
#include <functional>
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
    /// Calls fn(chunk) for chunk in [0, chunks) across the pool and the calling thread; returns when all are done.
    void run(std::size_t chunks, const std::function<void(std::size_t)>& fn);

private:
    void worker();
    std::vector<std::thread> workers_;
    std::mutex m_;
    std::condition_variable cv_, done_cv_;
    const std::function<void(std::size_t)>* job_ = nullptr;
    std::size_t chunks_ = 0, next_ = 0, finished_ = 0;
    std::size_t generation_ = 0;
    bool stop_ = false;
};

} // namespace ct::sim
