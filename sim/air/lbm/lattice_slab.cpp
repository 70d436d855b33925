// A lattice split into slabs of whole rows along y over ranks (issue 42, docs/scale-out.md): each slab updates its
// own rows; every step it sends the populations its edge rows give the neighbouring slabs (the five directions
// that cross the edge) and updates the rows inside while they travel, then its edge rows. A cell's update is
// the same arithmetic on the same numbers as in the whole lattice, so the slabs' fields equal the whole
// lattice's bit for bit.
#include "lattice_impl.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <sstream>

namespace ct::sim {

namespace {

constexpr int kQ = lattice_detail::kQ;

std::string bytesOf(const void* p, std::size_t n) { return std::string(static_cast<const char*>(p), n); }

template <class T>
std::vector<T> valuesOf(const std::string& s) {
    std::vector<T> v(s.size() / sizeof(T));
    if (!v.empty()) std::memcpy(v.data(), s.data(), v.size() * sizeof(T));
    return v;
}

}  // namespace

std::pair<int, int> slabRows(int ny, int slabs, int index) {
    const int base = ny / slabs, extra = ny % slabs;
    return {index * base + std::min(index, extra), base + (index < extra ? 1 : 0)};
}

void gatherSlabRows(LatticeSlabs& slabs, const std::vector<float>& mine, float* whole, int nx, int ny, int nz, int per_cell) {
    const auto all = slabs.allGather(bytesOf(mine.data(), mine.size() * sizeof(float)));
    const std::size_t row = static_cast<std::size_t>(per_cell) * static_cast<std::size_t>(nx);
    for (std::size_t s = 0; s < all.size(); ++s) {
        const auto [first, rows] = slabRows(ny, static_cast<int>(all.size()), static_cast<int>(s));
        const std::size_t block = row * static_cast<std::size_t>(rows);
        if (all[s].size() != sizeof(float) * block * static_cast<std::size_t>(nz))
            throw SimError("slab " + std::to_string(s) + " sent " + std::to_string(all[s].size()) + " bytes of its rows");
        for (int k = 0; k < nz; ++k)  // its rows of plane k lie side by side in the whole box too
            std::memcpy(whole + row * (static_cast<std::size_t>(first) + static_cast<std::size_t>(ny) * static_cast<std::size_t>(k)),
                        all[s].data() + sizeof(float) * block * static_cast<std::size_t>(k), sizeof(float) * block);
    }
}

void Lattice::Impl::placeSlab() {
    LatticeSlabs* s = spec.slabs;
    if (!s || s->count() <= 1) return;
    if (gny < s->count())
        throw SimError("lattice: " + std::to_string(gny) + " rows along y cannot split into " + std::to_string(s->count()) + " slabs");
    const auto [first, rows] = slabRows(gny, s->count(), s->index());
    j0 = first;
    ny = rows;
    slabs = s;
    const int me = s->index(), last = s->count() - 1;
    peer[0] = me > 0 ? me - 1 : (spec.periodic_y ? last : -1);
    peer[1] = me < last ? me + 1 : (spec.periodic_y ? 0 : -1);
}

void Lattice::Impl::flagEdgeRows() {
    for (int s = 0; s < 2; ++s) {
        if (peer[s] < 0) continue;
        const int jp = s == 0 ? 0 : py - 1;
        const int gj = ((s == 0 ? j0 - 1 : j0 + ny) + gny) % gny;
        for (int k = 0; k < nz; ++k)
            for (int i = 0; i < nx; ++i)
                flag[static_cast<std::size_t>(pad(i, jp - 1, k))] =
                    solid[static_cast<std::size_t>(i) + static_cast<std::size_t>(nx) * (gj + static_cast<std::size_t>(gny) * k)] ? 1 : 0;
    }
}

// Side 0 (below) pulls, from this slab's first row, the directions with cy = −1; side 1 (above), from its last row,
// those with cy = +1. What arrives from below is what the slab below's last row sends up (cy = +1), and so on.
void Lattice::Impl::packEdge(int s) {
    const int jp = s == 0 ? 1 : ny, sign = s == 0 ? -1 : 1;
    std::vector<float>& out = halo_out[s];
    out.resize(static_cast<std::size_t>(5) * nx * nz);
    std::size_t o = 0;
    for (int q = 1; q < kQ; ++q) {
        if (lbm::cy(q) != sign) continue;
        for (int k = 1; k <= nz; ++k) {
            const float* row = a.data() + static_cast<std::size_t>(q) * n + static_cast<std::size_t>(pad(0, jp - 1, k - 1));
            std::copy(row, row + nx, out.data() + o);
            o += static_cast<std::size_t>(nx);
        }
    }
}

void Lattice::Impl::unpackEdge(int s) {
    const int jp = s == 0 ? 0 : py - 1, sign = s == 0 ? 1 : -1;
    const std::vector<float>& in = halo_in[s];
    if (in.size() != static_cast<std::size_t>(5) * nx * nz)
        throw SimError("lattice: slab " + std::to_string(peer[s]) + " sent an edge row of " + std::to_string(in.size()) + " values");
    std::size_t o = 0;
    for (int q = 1; q < kQ; ++q) {
        if (lbm::cy(q) != sign) continue;
        for (int k = 1; k <= nz; ++k) {
            const auto r = static_cast<std::size_t>(pad(0, jp - 1, k - 1));
            float* row = a.data() + static_cast<std::size_t>(q) * n + r;
            for (int i = 0; i < nx; ++i)  // a solid cell there keeps the bounce-back value edge_links give it
                if (fluid[r + static_cast<std::size_t>(i)] != 0.f) row[i] = in[o + static_cast<std::size_t>(i)];
            o += static_cast<std::size_t>(nx);
        }
    }
}

void Lattice::Impl::copyPeriodicRow(int jp) {
    for (int q = 0; q < kQ; ++q) {
        float* v = a.data() + static_cast<std::size_t>(q) * n;
        if (spec.periodic_x)
            for (int k = 0; k < pz; ++k) {
                const int r = px * (jp + py * k);
                v[r] = v[r + nx];
                v[r + nx + 1] = v[r + 1];
            }
        if (spec.periodic_z)
            for (int i = 0; i < px; ++i) {
                v[i + px * jp] = v[i + px * (jp + py * nz)];
                v[i + px * (jp + py * (nz + 1))] = v[i + px * (jp + py)];
            }
    }
}

void Lattice::Impl::slabStep(const lattice_detail::RowArgs& r, lattice_detail::RowFn row, std::vector<unsigned char>& bad) {
    for (int s = 0; s < 2; ++s) {
        if (peer[s] < 0) continue;
        packEdge(s);
        halo_in[s].resize(halo_out[s].size());
    }
    const std::vector<float>* out[2] = {&halo_out[0], &halo_out[1]};
    std::vector<float>* in[2] = {&halo_in[0], &halo_in[1]};
    slabs->start(peer, out, in);
    // The rows inside need nothing from the neighbours: they run while the edge rows travel.
    copyPeriodic(a.data(), kQ);
    bounceBack(a.data(), links);
    if (ny > 2)
        run(static_cast<std::size_t>(nz), [&](std::size_t kc) { bad[kc] |= rowsStep(r, row, 1, ny - 1, static_cast<int>(kc)) ? 1 : 0; });
    slabs->finish();
    for (int s = 0; s < 2; ++s) {
        if (peer[s] < 0) continue;
        unpackEdge(s);
        copyPeriodicRow(s == 0 ? 0 : py - 1);
    }
    bounceBack(a.data(), edge_links);
    run(static_cast<std::size_t>(nz), [&](std::size_t kc) {
        const int k = static_cast<int>(kc);
        bool any = rowsStep(r, row, 0, 1, k);
        if (ny > 1) any |= rowsStep(r, row, ny - 1, ny, k);
        bad[kc] |= any ? 1 : 0;
    });
}

#ifdef CT_HAVE_CUDA
// Host-staged and not overlapped: the edge rows come down, travel, and go up before the step is launched, so a
// step waits for its exchange. The same per-cell arithmetic as the whole lattice on the device, on the same
// numbers: the slabs' fields equal a whole device lattice's (tst_slabs' cuda rows).
void Lattice::Impl::deviceSlabSteps(int count, const detail::LatticeStepParams& prm) {
    std::int64_t failed = -1;
    int failed_plane = -1;
    for (int step = 0; step < count; ++step) {
        for (int s = 0; s < 2; ++s) {
            if (peer[s] < 0) continue;
            dev->getEdge(s == 0 ? 1 : ny, s == 0 ? -1 : 1, halo_out[s]);
            halo_in[s].resize(halo_out[s].size());
        }
        const std::vector<float>* out[2] = {&halo_out[0], &halo_out[1]};
        std::vector<float>* in[2] = {&halo_in[0], &halo_in[1]};
        slabs->start(peer, out, in);
        slabs->finish();
        for (int s = 0; s < 2; ++s) {
            if (peer[s] < 0) continue;
            if (halo_in[s].size() != static_cast<std::size_t>(5) * nx * nz)
                throw SimError("lattice: slab " + std::to_string(peer[s]) + " sent an edge row of " + std::to_string(halo_in[s].size()) +
                               " values");
            dev->setHalo(s == 0 ? 0 : py - 1, s == 0 ? 1 : -1, halo_in[s]);
        }
        dev->beginBatch();
        dev->step(prm);
        int failed_in_batch = -1;
        const long long bad = dev->endBatch(failed_in_batch);
        host_stale = true;
        ++steps;
        if (sampling) ++samples;
        if (bad >= 0 && failed < 0) {
            failed = steps;
            failed_plane = static_cast<int>(bad / (static_cast<long long>(px) * py)) - 1;
        }
    }
    if (failed >= 0) syncHost();  // the failing slab names its cell from the host's copy
    agreeStable(failed, failed_plane, steps);
}
#endif

void Lattice::Impl::agreeStable(std::int64_t failed_step, int failed_plane, std::int64_t end_step) {
    const auto failed = slabs->allGather(failed_step >= 0 ? std::to_string(failed_step) : std::string());
    int first = -1;
    std::int64_t at = std::numeric_limits<std::int64_t>::max();
    for (std::size_t s = 0; s < failed.size(); ++s)
        if (!failed[s].empty() && std::stoll(failed[s]) < at) {
            at = std::stoll(failed[s]);
            first = static_cast<int>(s);
        }
    if (first < 0) return;
    // The slab that failed first names the cell (in the state at the batch's end, as a device does); every
    // slab throws its words.
    std::string report;
    if (first == slabs->index()) {
        steps = failed_step;
        try {
            reportInstability(failed_plane);
        } catch (const LatticeUnstable& e) {
            std::ostringstream o;
            o << e.i << ' ' << e.j << ' ' << e.k << ' ' << e.step << '\n'
              << e.what() << " (slab " << first << " of " << slabs->count() << ", rows " << j0 << "–" << j0 + ny - 1 << ")";
            report = o.str();
        }
        steps = end_step;
    }
    const std::string words = slabs->allGather(report)[static_cast<std::size_t>(first)];
    std::istringstream in(words);
    int i = 0, j = 0, k = 0;
    std::int64_t step = 0;
    in >> i >> j >> k >> step;
    in.get();
    std::string what;
    std::getline(in, what, '\0');
    throw LatticeUnstable(what, i, j, k, step);
}

std::vector<float> Lattice::Impl::wholeField(const std::vector<float>& mine, int per_cell) const {
    std::vector<float> out(static_cast<std::size_t>(per_cell) * nx * static_cast<std::size_t>(gny) * nz, 0.f);
    gatherSlabRows(*slabs, mine, out.data(), nx, gny, nz, per_cell);
    return out;
}

std::vector<double> Lattice::Impl::wholeDensities(const std::vector<int>& cells, const std::vector<double>& rho) const {
    std::vector<double> mine;
    for (std::size_t e = 0; e < cells.size(); ++e)
        if (holds(cells[e])) mine.push_back(rho[e]);
    const auto all = slabs->allGather(bytesOf(mine.data(), mine.size() * sizeof(double)));
    std::vector<double> out(cells.size(), 0.0);
    for (std::size_t s = 0; s < all.size(); ++s) {
        const auto [first, rows] = slabRows(gny, static_cast<int>(all.size()), static_cast<int>(s));
        const std::vector<double> v = valuesOf<double>(all[s]);
        std::size_t at = 0;
        for (std::size_t e = 0; e < cells.size(); ++e) {
            const int j = (cells[e] / nx) % gny;
            if (j < first || j >= first + rows) continue;
            if (at >= v.size()) throw SimError("lattice: slab " + std::to_string(s) + " sent too few densities");
            out[e] = v[at++];
        }
    }
    return out;
}

double Lattice::Impl::sumOverSlabs(double mine) const {
    double sum = 0;
    for (const auto& s : slabs->allGather(bytesOf(&mine, sizeof mine)))
        for (double v : valuesOf<double>(s)) sum += v;
    return sum;
}

double Lattice::Impl::maxOverSlabs(double mine) const {
    double m = mine;
    for (const auto& s : slabs->allGather(bytesOf(&mine, sizeof mine)))
        for (double v : valuesOf<double>(s)) m = std::max(m, v);
    return m;
}

}  // namespace ct::sim
