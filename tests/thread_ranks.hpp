#pragma once
// Ranks as threads of one test process (issue 42): an in-memory exchange in place of MPI, so that the engine's
// and the lattice's side of running over ranks are checked without mpirun (and leak-checked under ASan);
// tst_sweep starts the real thing under mpirun.
#include <clustertwin/sim/air/lattice.hpp>
#include <clustertwin/sim/hall_ranks.hpp>

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace thread_ranks {

/// Every rank's bytes to every rank, through memory: a round completes when all ranks have given theirs.
class Exchange {
public:
    explicit Exchange(int ranks) : slots_(static_cast<std::size_t>(ranks)) {}
    std::vector<std::string> all(int rank, const std::string& mine) {
        std::unique_lock<std::mutex> lock(m_);
        const long round = round_;
        slots_[static_cast<std::size_t>(rank)] = mine;
        if (++arrived_ == static_cast<int>(slots_.size())) {
            result_ = slots_;
            arrived_ = 0;
            ++round_;
            cv_.notify_all();
            return result_;
        }
        // A rank that failed leaves the others waiting: give up rather than hang the test.
        if (!cv_.wait_for(lock, std::chrono::minutes(5), [&] { return round_ != round; }))
            throw std::runtime_error("rank " + std::to_string(rank) + ": the other ranks never came");
        return result_;
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    std::vector<std::string> slots_, result_;
    int arrived_ = 0;
    long round_ = 0;
};

/// body(r) for r = 0 … count − 1, each on a thread of its own, all at once: their results, and in `failed` what
/// each threw (empty where it returned).
template <class T, class Body>
std::vector<T> onThreads(int count, Body&& body, std::vector<std::string>& failed) {
    std::vector<T> out(static_cast<std::size_t>(count));
    failed.assign(static_cast<std::size_t>(count), {});
    std::vector<std::thread> threads;
    for (int r = 0; r < count; ++r)
        threads.emplace_back([&, r] {
            try {
                out[static_cast<std::size_t>(r)] = body(r);
            } catch (const std::exception& e) {
                failed[static_cast<std::size_t>(r)] = e.what();
            }
        });
    for (auto& t : threads) t.join();
    return out;
}

/// Point-to-point messages of floats, by (to, from, tag), in the order sent.
class Mailbox {
public:
    void post(int to, int from, int tag, std::vector<float> v) {
        std::lock_guard<std::mutex> lock(m_);
        box_[{to, from, tag}].push_back(std::move(v));
        cv_.notify_all();
    }
    std::vector<float> take(int to, int from, int tag) {
        std::unique_lock<std::mutex> lock(m_);
        auto& q = box_[{to, from, tag}];
        if (!cv_.wait_for(lock, std::chrono::minutes(5), [&] { return !q.empty(); }))
            throw std::runtime_error("slab " + std::to_string(to) + ": slab " + std::to_string(from) + " never sent its row");
        std::vector<float> v = std::move(q.front());
        q.erase(q.begin());
        return v;
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    std::map<std::tuple<int, int, int>, std::vector<std::vector<float>>> box_;
};

/// One slab of a lattice split over thread-ranks.
class ThreadSlabs : public ct::sim::LatticeSlabs {
public:
    ThreadSlabs(int index, int count, std::shared_ptr<Exchange> ex, std::shared_ptr<Mailbox> mail)
        : index_(index), count_(count), ex_(std::move(ex)), mail_(std::move(mail)) {}
    int index() const override { return index_; }
    int count() const override { return count_; }
    void start(const int peer[2], const std::vector<float>* const out[2], std::vector<float>* const in[2]) override {
        for (int s = 0; s < 2; ++s) {
            pending_[s] = {peer[s], in[s]};
            if (peer[s] >= 0) mail_->post(peer[s], index_, s, *out[s]);
        }
    }
    void finish() override {
        for (int s = 0; s < 2; ++s)
            if (pending_[s].first >= 0) {
                *pending_[s].second = mail_->take(index_, pending_[s].first, 1 - s);
                received_ += pending_[s].second->size() * sizeof(float);
            }
    }
    std::vector<std::string> allGather(const std::string& mine) override {
        auto all = ex_->all(index_, mine);
        for (std::size_t s = 0; s < all.size(); ++s)
            if (static_cast<int>(s) != index_) received_ += all[s].size();
        return all;
    }

private:
    int index_, count_;
    std::shared_ptr<Exchange> ex_;
    std::shared_ptr<Mailbox> mail_;
    std::pair<int, std::vector<float>*> pending_[2] = {{-1, nullptr}, {-1, nullptr}};
};

/// What the slabs of one group share: made by the first member to ask.
class SlabGroups {
public:
    std::unique_ptr<ct::sim::LatticeSlabs> join(const std::vector<int>& members, int rank) {
        std::lock_guard<std::mutex> lock(m_);
        auto& g = groups_[members];
        if (!g.first) g = {std::make_shared<Exchange>(static_cast<int>(members.size())), std::make_shared<Mailbox>()};
        for (std::size_t i = 0; i < members.size(); ++i)
            if (members[i] == rank)
                return std::make_unique<ThreadSlabs>(static_cast<int>(i), static_cast<int>(members.size()), g.first, g.second);
        return nullptr;
    }

private:
    std::mutex m_;
    std::map<std::vector<int>, std::pair<std::shared_ptr<Exchange>, std::shared_ptr<Mailbox>>> groups_;
};

class ThreadRanks : public ct::sim::HallRanks {
public:
    ThreadRanks(int rank, int size, std::shared_ptr<Exchange> ex, std::shared_ptr<SlabGroups> groups = std::make_shared<SlabGroups>())
        : rank_(rank), size_(size), ex_(std::move(ex)), groups_(std::move(groups)) {}
    int rank() const override { return rank_; }
    int size() const override { return size_; }
    std::vector<std::string> allGather(const std::string& mine) const override { return ex_->all(rank_, mine); }
    std::vector<std::string> gather(const std::string& mine) const override {
        auto all = ex_->all(rank_, mine);
        return rank_ == 0 ? all : std::vector<std::string>{};
    }
    std::unique_ptr<ct::sim::LatticeSlabs> slabs(const std::vector<int>& members) const override { return groups_->join(members, rank_); }

private:
    int rank_, size_;
    std::shared_ptr<Exchange> ex_;
    std::shared_ptr<SlabGroups> groups_;
};

}  // namespace thread_ranks
