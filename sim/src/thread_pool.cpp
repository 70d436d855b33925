#include <clustertwin/sim/thread_pool.hpp>

namespace ct::sim {

ThreadPool::ThreadPool(int threads) {
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { worker(); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lk(m_);
        stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
}

void ThreadPool::run(std::size_t chunks, const std::function<void(std::size_t)>& fn) {
    if (chunks == 0) return;
    if (workers_.empty() || chunks == 1) {
        for (std::size_t c = 0; c < chunks; ++c) fn(c);
        return;
    }
    {
        std::lock_guard<std::mutex> lk(m_);
        job_ = &fn;
        chunks_ = chunks;
        next_ = 0;
        finished_ = 0;
        ++generation_;
    }
    cv_.notify_all();
    for (;;) {  // the caller works too
        std::size_t c;
        {
            std::lock_guard<std::mutex> lk(m_);
            if (next_ >= chunks_) break;
            c = next_++;
        }
        fn(c);
        std::lock_guard<std::mutex> lk(m_);
        ++finished_;
    }
    std::unique_lock<std::mutex> lk(m_);
    done_cv_.wait(lk, [this] { return finished_ == chunks_; });
    job_ = nullptr;
}

void ThreadPool::worker() {
    std::size_t seen = 0;
    for (;;) {
        std::unique_lock<std::mutex> lk(m_);
        cv_.wait(lk, [&] { return stop_ || (generation_ != seen && job_ && next_ < chunks_); });
        if (stop_) return;
        seen = generation_;
        while (job_ && next_ < chunks_) {
            const std::size_t c = next_++;
            const auto* fn = job_;
            lk.unlock();
            (*fn)(c);
            lk.lock();
            ++finished_;
        }
        if (finished_ == chunks_) done_cv_.notify_all();
    }
}

} // namespace ct::sim
