#pragma once
// The processes of one command (issue 42): under an MPI launcher (mpirun, srun) each is a rank of
// MPI_COMM_WORLD; started alone, the only rank and MPI is never initialised, so one process needs no MPI at run
// time. A build without MPI is always one rank. No MPI header here: the rest of the program stays free of it.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ct::ranks {

/// Some of the ranks with a communicator of their own (MPI_Comm_split): floats between two of them without
/// blocking, and gathers among them. Made by World::split.
class Group {
public:
    ~Group();
    Group(const Group&) = delete;
    Group& operator=(const Group&) = delete;
    int rank() const { return rank_; }  ///< within the group
    int size() const { return size_; }
    /// Starts sending `n` floats to member `to` with `tag` (they must stay put until wait()).
    void send(const float* data, std::size_t n, int to, int tag);
    /// Starts receiving `n` floats from member `from` with `tag` into `into`.
    void receive(float* into, std::size_t n, int from, int tag);
    /// Waits for every send and receive started; throws std::runtime_error where one failed.
    void wait();
    /// Every member's bytes in group order, at every member.
    std::vector<std::string> allGather(const std::string& mine) const;

private:
    friend class World;
    struct Comm;
    Group(std::unique_ptr<Comm> comm, int rank, int size);
    std::unique_ptr<Comm> comm_;
    int rank_ = 0, size_ = 1;
};

/// Whether this process was started by an MPI launcher (its environment: Open MPI's OMPI_COMM_WORLD_SIZE,
/// PMIx's PMIX_RANK, PMI's PMI_RANK), whatever the build.
bool launchedByMpi();
/// Whether this build can run as MPI ranks.
bool builtWithMpi();

class World {
public:
    /// MPI_Init when launched by MPI and built with it; otherwise one rank. Throws std::runtime_error when
    /// launched by MPI in a build without it (N copies would each do all the work).
    World();
    ~World();  ///< MPI_Finalize
    World(const World&) = delete;
    World& operator=(const World&) = delete;

    int rank() const { return rank_; }
    int size() const { return size_; }
    bool mpi() const { return mpi_; }
    /// The host this rank runs on (MPI's processor name, else the host name).
    const std::string& host() const { return host_; }

    void barrier() const;
    /// At rank 0, every rank's text in rank order (its own first); elsewhere empty.
    std::vector<std::string> gather(const std::string& mine) const;
    /// Every rank's text in rank order, at every rank.
    std::vector<std::string> allGather(const std::string& mine) const;
    /// Rank 0's value at every rank.
    int broadcast(int value) const;
    /// The largest of every rank's value, at every rank.
    int maxOf(int value) const;
    /// A file's bytes from rank `from` to rank 0, written there to `to_path` (atomically); every other rank
    /// does nothing. In pieces of 64 MiB. Throws std::runtime_error when a side cannot read or write its file.
    void sendFileToRoot(int from, const std::string& from_path, const std::string& to_path) const;
    /// The group of the ranks that give the same `color` (≥ 0), ordered by `key`; null for a rank that gives a
    /// negative colour. A collective: every rank calls it. Throws std::runtime_error without MPI.
    std::unique_ptr<Group> split(int color, int key) const;
    /// Ends every rank at once with `code` (MPI_Abort), after `message` on stderr; exit(code) with one rank.
    [[noreturn]] void abort(const std::string& message, int code) const;

private:
    int rank_ = 0, size_ = 1;
    bool mpi_ = false;
    std::string host_;
};

}  // namespace ct::ranks
