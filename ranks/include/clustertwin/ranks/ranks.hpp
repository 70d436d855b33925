#pragma once
// The processes of one command (issue 42): under an MPI launcher (mpirun, srun) each is a rank of
// MPI_COMM_WORLD; started alone, the only rank and MPI is never initialised, so one process needs no MPI at run
// time. A build without MPI is always one rank. No MPI header here: the rest of the program stays free of it.
#include <cstdint>
#include <string>
#include <vector>

namespace ct::ranks {

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
    /// Ends every rank at once with `code` (MPI_Abort), after `message` on stderr; exit(code) with one rank.
    [[noreturn]] void abort(const std::string& message, int code) const;

private:
    int rank_ = 0, size_ = 1;
    bool mpi_ = false;
    std::string host_;
};

}  // namespace ct::ranks
