// The processes of one command as MPI ranks, or one process (ranks.hpp).
#include <clustertwin/ranks/ranks.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include <unistd.h>

#ifdef CT_HAVE_MPI
// The C API only: Open MPI's mpi.h would bring its deprecated C++ bindings, which need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace ct::ranks {

namespace {

constexpr std::int64_t kPiece = 64LL << 20;

std::string hostName() {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
    return buf;
}

#ifdef CT_HAVE_MPI
/// Where each rank's piece starts when they are laid end to end (MPI's displacements); throws when they would
/// pass the 2 GiB an int counts.
std::vector<int> offsetsOf(const std::vector<int>& lens, int rank) {
    std::vector<int> displs(lens.size());
    long long total = 0;
    for (std::size_t i = 0; i < lens.size(); ++i) {
        if (total + lens[i] > 0x7fffffffLL) throw std::runtime_error("rank " + std::to_string(rank) + ": over 2 GiB to gather at once");
        displs[i] = static_cast<int>(total);
        total += lens[i];
    }
    return displs;
}

/// The pieces laid end to end in `all`, one per rank.
std::vector<std::string> piecesOf(const std::string& all, const std::vector<int>& lens, const std::vector<int>& displs) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < lens.size(); ++i)
        out.push_back(all.substr(static_cast<std::size_t>(displs[i]), static_cast<std::size_t>(lens[i])));
    return out;
}

/// Every rank's bytes of `comm` in rank order, at every rank.
std::vector<std::string> allGatherOn(MPI_Comm comm, int rank, int size, const std::string& mine) {
    const int len = static_cast<int>(mine.size());
    std::vector<int> lens(static_cast<std::size_t>(size));
    MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, comm);
    const std::vector<int> displs = offsetsOf(lens, rank);
    std::string all(static_cast<std::size_t>(displs.back() + lens.back()), '\0');
    MPI_Allgatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, comm);
    return piecesOf(all, lens, displs);
}
#endif

}  // namespace

bool launchedByMpi() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
        if (std::getenv(v)) return true;
    return false;
}

bool builtWithMpi() {
#ifdef CT_HAVE_MPI
    return true;
#else
    return false;
#endif
}

World::World() : host_(hostName()) {
    if (!launchedByMpi()) return;
#ifdef CT_HAVE_MPI
    int ready = 0;
    MPI_Initialized(&ready);
    if (!ready) MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    mpi_ = true;
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int len = 0;
    if (MPI_Get_processor_name(name, &len) == MPI_SUCCESS && len > 0) host_.assign(name, static_cast<std::size_t>(len));
#else
    throw std::runtime_error("started by an MPI launcher, but this build has no MPI (libopenmpi-dev was missing when it was built)");
#endif
}

World::~World() {
#ifdef CT_HAVE_MPI
    if (mpi_) {
        int done = 0;
        MPI_Finalized(&done);
        if (!done) MPI_Finalize();
    }
#endif
}

void World::barrier() const {
#ifdef CT_HAVE_MPI
    if (mpi_) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

std::vector<std::string> World::gather(const std::string& mine) const {
    if (!mpi_) return {mine};
#ifdef CT_HAVE_MPI
    const int len = static_cast<int>(mine.size());
    std::vector<int> lens(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
    MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    const std::vector<int> displs = offsetsOf(lens, rank_);
    std::string all(static_cast<std::size_t>(lens.empty() ? 0 : displs.back() + lens.back()), '\0');
    MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
    return piecesOf(all, lens, displs);
#else
    return {mine};
#endif
}

std::vector<std::string> World::allGather(const std::string& mine) const {
    if (!mpi_) return {mine};
#ifdef CT_HAVE_MPI
    return allGatherOn(MPI_COMM_WORLD, rank_, size_, mine);
#else
    return {mine};
#endif
}

int World::broadcast(int value) const {
#ifdef CT_HAVE_MPI
    if (mpi_) MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
    return value;
}

int World::maxOf(int value) const {
#ifdef CT_HAVE_MPI
    int out = value;
    if (mpi_) MPI_Allreduce(&value, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return out;
#else
    return value;
#endif
}

void World::sendFileToRoot(int from, const std::string& from_path, const std::string& to_path) const {
    if (from == 0) {
        if (rank_ == 0 && from_path != to_path)
            std::filesystem::copy_file(from_path, to_path, std::filesystem::copy_options::overwrite_existing);
        return;
    }
#ifdef CT_HAVE_MPI
    if (rank_ == from) {
        std::ifstream in(from_path, std::ios::binary);
        std::int64_t size = in ? static_cast<std::int64_t>(std::filesystem::file_size(from_path)) : -1;
        MPI_Send(&size, 1, MPI_INT64_T, 0, 1, MPI_COMM_WORLD);
        std::vector<char> buf(static_cast<std::size_t>(std::min(kPiece, std::max<std::int64_t>(size, 0))));
        for (std::int64_t sent = 0; sent < size;) {
            const std::int64_t n = std::min(kPiece, size - sent);
            in.read(buf.data(), n);
            MPI_Send(buf.data(), static_cast<int>(n), MPI_BYTE, 0, 2, MPI_COMM_WORLD);
            sent += n;
        }
        if (size < 0) throw std::runtime_error("rank " + std::to_string(rank_) + ": cannot read " + from_path);
    } else if (rank_ == 0) {
        std::int64_t size = 0;
        MPI_Recv(&size, 1, MPI_INT64_T, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (size < 0) throw std::runtime_error("rank " + std::to_string(from) + " could not read its " + from_path);
        const std::string tmp = to_path + ".part";
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        std::vector<char> buf(static_cast<std::size_t>(std::min(kPiece, size)));
        for (std::int64_t got = 0; got < size;) {
            const std::int64_t n = std::min(kPiece, size - got);
            MPI_Recv(buf.data(), static_cast<int>(n), MPI_BYTE, from, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            out.write(buf.data(), n);
            got += n;
        }
        out.close();
        if (!out) throw std::runtime_error("rank 0: cannot write " + tmp);
        std::filesystem::rename(tmp, to_path);
    }
#else
    (void)from_path;
    (void)to_path;
#endif
}

#ifdef CT_HAVE_MPI
struct Group::Comm {
    MPI_Comm comm = MPI_COMM_NULL;
    std::vector<MPI_Request> pending;
};
#else
struct Group::Comm {};
#endif

Group::Group(std::unique_ptr<Comm> comm, int rank, int size) : comm_(std::move(comm)), rank_(rank), size_(size) {}

Group::~Group() {
#ifdef CT_HAVE_MPI
    int done = 0;
    MPI_Finalized(&done);
    if (!done && comm_ && comm_->comm != MPI_COMM_NULL) MPI_Comm_free(&comm_->comm);
#endif
}

namespace {
[[noreturn]] void noMpi() { throw std::runtime_error("this build has no MPI: a group of ranks needs it"); }

#ifdef CT_HAVE_MPI
int countOf(std::size_t n) {
    if (n > 0x7fffffffULL) throw std::runtime_error("over 2^31 floats in one message");
    return static_cast<int>(n);
}
#endif
}  // namespace

void Group::send(const float* data, std::size_t n, int to, int tag) {
#ifdef CT_HAVE_MPI
    MPI_Request r;
    MPI_Isend(data, countOf(n), MPI_FLOAT, to, tag, comm_->comm, &r);
    comm_->pending.push_back(r);
#else
    (void)data, (void)n, (void)to, (void)tag;
    noMpi();
#endif
}

void Group::receive(float* into, std::size_t n, int from, int tag) {
#ifdef CT_HAVE_MPI
    MPI_Request r;
    MPI_Irecv(into, countOf(n), MPI_FLOAT, from, tag, comm_->comm, &r);
    comm_->pending.push_back(r);
#else
    (void)into, (void)n, (void)from, (void)tag;
    noMpi();
#endif
}

void Group::wait() {
#ifdef CT_HAVE_MPI
    if (comm_->pending.empty()) return;
    const int rc = MPI_Waitall(static_cast<int>(comm_->pending.size()), comm_->pending.data(), MPI_STATUSES_IGNORE);
    comm_->pending.clear();
    if (rc != MPI_SUCCESS) throw std::runtime_error("rank " + std::to_string(rank_) + " of a group: an exchange failed");
#endif
}

std::vector<std::string> Group::allGather(const std::string& mine) const {
#ifdef CT_HAVE_MPI
    return allGatherOn(comm_->comm, rank_, size_, mine);
#else
    return {mine};
#endif
}

std::unique_ptr<Group> World::split(int color, int key) const {
#ifdef CT_HAVE_MPI
    if (!mpi_) noMpi();
    auto comm = std::make_unique<Group::Comm>();
    MPI_Comm_split(MPI_COMM_WORLD, color < 0 ? MPI_UNDEFINED : color, key, &comm->comm);
    if (comm->comm == MPI_COMM_NULL) return nullptr;
    int rank = 0, size = 1;
    MPI_Comm_rank(comm->comm, &rank);
    MPI_Comm_size(comm->comm, &size);
    return std::unique_ptr<Group>(new Group(std::move(comm), rank, size));
#else
    (void)color, (void)key;
    noMpi();
#endif
}

void World::abort(const std::string& message, int code) const {
    std::cerr << message << std::endl;
#ifdef CT_HAVE_MPI
    if (mpi_ && size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
#endif
    std::exit(code);
}

}  // namespace ct::ranks
