#pragma once
// A run's halls spread over processes (issue 42, docs/scale-out.md): each rank steps the room air of its own
// halls, and every rank steps the rest of the site (power chain, equipment, liquid, plant, network, jobs,
// alerts) from the same inputs in the same order, so every rank holds the same site; what a hall's air gives
// the site (its racks' inlets and exhausts, its units' returns, loads and airflow, its sensors) goes from its
// rank to every other once per engine step. No MPI here: a front end gives an implementation (the CLI's, over
// ranks::World).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ct::sim {

class LatticeSlabs;

class HallRanks {
public:
    virtual ~HallRanks() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    /// Every rank's bytes, in rank order, at every rank (a collective: every rank calls it).
    virtual std::vector<std::string> allGather(const std::string& mine) const = 0;
    /// At rank 0 every rank's bytes in rank order; elsewhere empty (a collective).
    virtual std::vector<std::string> gather(const std::string& mine) const = 0;
    /// This rank's slab of a hall's lattice split over `members` (its ranks in slab order); null where this
    /// rank is not one of them. A collective: every rank calls it for every split hall, in hall order.
    virtual std::unique_ptr<LatticeSlabs> slabs(const std::vector<int>& members) const = 0;
};

/// Which rank steps each hall, balanced by the halls' air grids (`weights`, e.g. their bytes): the halls
/// largest first (the lower index first among equals), each to the rank with the least weight so far (the
/// lower rank among equals). A rank may be left without a hall when there are more ranks than halls.
std::vector<int> assignHalls(const std::vector<std::uint64_t>& weights, int ranks);

/// Which ranks step each hall (its first leads it: it speaks for the hall in the exchange). With no hall whose
/// lattice can split (`max_slabs` ≤ 1: quick air), one rank each by assignHalls. With no more ranks than halls,
/// the same, unless the halls do not divide among the ranks (H = q·N + r, 0 < r) and sharing the r smallest
/// takes the busiest rank's load down by a tenth or more: then the q·N largest go whole by assignHalls and each
/// of the r smallest is split over a group of N/r consecutive ranks (over all N when r does not divide N), the
/// largest first to the group whose busiest rank has least (three equal halls on two ranks: one each, the third
/// over both). A rank then steps whole halls and slabs, all in hall order. With more ranks than halls, every
/// rank steps one hall: the spare ranks go one by one to the hall with the most weight per
/// rank (the lower index among equals) while it has fewer than max_slabs, and split its lattice into slabs
/// (LatticeSlabs); a hall's ranks are consecutive, the halls taking them largest first. Ranks left over step no
/// hall.
std::vector<std::vector<int>> assignHallRanks(const std::vector<std::uint64_t>& weights, const std::vector<int>& max_slabs, int ranks);

/// Whether `mine` holds on any rank (a collective); `mine` itself without ranks.
bool anyRank(const HallRanks* ranks, bool mine);

}  // namespace ct::sim
