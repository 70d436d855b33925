// A hall's heat split by rows over the ranks of its lattice's slabs (AirModel::splitRows, issue 42): each rank
// steps its own rows of the TVD transport; between sub-steps it receives of the others' rows what its stencil
// and the coupling read (their two edge rows a side and their port cells), and after each advance the whole
// field, so that every rank then holds it, equal to the bit to one process's. The flow's CG (the lattice's flux
// projection) splits over the same ranks by pairs of rows: halos of one row, dot products from every row's sum.
#include <clustertwin/sim/air/lattice.hpp>

#include "air_model_impl.hpp"

#include <algorithm>
#include <cstring>
#include <string>

namespace ct::sim {

namespace {
/// Rows [j0, j1) of every plane of an nx × ny × nz field of `elem`-byte cells, and the same rows packed plane after
/// plane: packs them (`pack`) or puts them back into the field.
void moveRows(unsigned char* field, unsigned char* packed, std::size_t elem, int nx, int ny, int nz, int j0, int j1, bool pack) {
    const std::size_t row = elem * static_cast<std::size_t>(nx), block = row * static_cast<std::size_t>(j1 - j0);
    for (int kk = 0; kk < nz; ++kk) {
        unsigned char* f = field + row * (static_cast<std::size_t>(j0) + static_cast<std::size_t>(ny) * static_cast<std::size_t>(kk));
        unsigned char* p = packed + block * static_cast<std::size_t>(kk);
        if (pack) std::memcpy(p, f, block);
        else std::memcpy(f, p, block);
    }
}
template <class T>
unsigned char* bytesOf(T* v) {
    return reinterpret_cast<unsigned char*>(v);
}
}  // namespace

void AirModel::splitRows(LatticeSlabs* slabs) {
    Impl& d = *d_;
    d.row_slabs = nullptr;
    d.row0 = 0;
    d.rows = -1;
    d.share_cells.clear();
    if (!slabs || slabs->count() <= 1) return;
    if (d.spec.backend != Backend::Cpu) throw SimError("air: a hall's heat split by rows runs on the CPU");
    if (d.ny < slabs->count())
        throw SimError("air: " + std::to_string(d.ny) + " rows along y cannot split over " + std::to_string(slabs->count()) + " ranks");
    const auto [first, count] = slabRows(d.ny, slabs->count(), slabs->index());
    d.row_slabs = slabs;
    d.row0 = first;
    d.rows = count;
}

void AirModel::Impl::buildShares() {
    const int slabs = row_slabs->count();
    share_cells.assign(static_cast<std::size_t>(slabs), {});
    for (int s = 0; s < slabs; ++s) {
        const auto [first, count] = slabRows(ny, slabs, s);
        std::vector<int>& cells = share_cells[static_cast<std::size_t>(s)];
        for (int j = first; j < first + count; ++j) {
            // The TVD stencil reaches two cells upwind: the neighbours read a slab's two rows at each edge.
            if (j - first >= 2 && first + count - 1 - j >= 2) continue;
            for (int k = 0; k < nz; ++k)
                for (int i = 0; i < nx; ++i) cells.push_back(i + nx * (j + ny * k));
        }
        for (const Port& p : ports)
            for (int c : p.cells) {
                const int j = (c / nx) % ny;
                if (j >= first && j < first + count) cells.push_back(c);
            }
        std::sort(cells.begin(), cells.end());
        cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
    }
    share_ports = ports.size();
}

void AirModel::Impl::gatherRows(float* field, bool whole) {
    const int me = row_slabs->index();
    if (!whole) {
        if (share_cells.empty() || share_ports != ports.size()) buildShares();
        const std::vector<int>& mine_cells = share_cells[static_cast<std::size_t>(me)];
        std::string mine(sizeof(float) * mine_cells.size(), '\0');
        auto* out = reinterpret_cast<float*>(mine.data());
        for (std::size_t e = 0; e < mine_cells.size(); ++e) out[e] = field[mine_cells[e]];
        const auto all = row_slabs->allGather(mine);
        for (std::size_t s = 0; s < all.size(); ++s) {
            if (static_cast<int>(s) == me) continue;
            const std::vector<int>& cells = share_cells[s];
            if (all[s].size() != sizeof(float) * cells.size())
                throw SimError("air: rank " + std::to_string(s) + " of the hall sent " + std::to_string(all[s].size()) + " bytes of cells");
            const auto* v = reinterpret_cast<const float*>(all[s].data());
            for (std::size_t e = 0; e < cells.size(); ++e) field[cells[e]] = v[e];
        }
        return;
    }
    gatherOwnRows(*row_slabs, field, nx, ny, nz);  // this rank's rows are [row0, row0 + rows): slabRows'
}

void AirModel::Impl::gatherOwnRows(LatticeSlabs& slabs, float* field, int nx, int ny, int nz) {
    const auto [first, count] = slabRows(ny, slabs.count(), slabs.index());
    std::vector<float> mine(static_cast<std::size_t>(nx) * static_cast<std::size_t>(count) * static_cast<std::size_t>(nz));
    moveRows(bytesOf(field), bytesOf(mine.data()), sizeof(float), nx, ny, nz, first, first + count, true);
    gatherSlabRows(slabs, mine, field, nx, ny, nz);
}

void AirModel::Impl::gatherWhole() {
    gatherRows(T(), true);
    if (!tr.empty()) gatherRows(tr.data() + kPad, true);
}

// ---- The flow's CG split by the same ranks (the lattice's flux projection; air_flow.cpp, flow_multigrid.hpp).

bool AirModel::Impl::flowSplit() const { return row_slabs && row_slabs->count() > 1 && (ny + 1) / 2 >= row_slabs->count(); }

std::pair<int, int> AirModel::Impl::flowRowsOf(int slab) const {
    const auto [first, count] = slabRows((ny + 1) / 2, row_slabs->count(), slab);
    return {2 * first, std::min(ny, 2 * (first + count))};
}

void AirModel::Impl::flowHalo(void* field, std::size_t elem, int j0, int j1) {
    auto* v = static_cast<unsigned char*>(field);
    const int me = row_slabs->index();
    const int peer[2] = {me > 0 ? me - 1 : -1, me + 1 < row_slabs->count() ? me + 1 : -1};
    const int send_row[2] = {j0, j1 - 1}, recv_row[2] = {j0 - 1, j1};
    // The bits as they are (a double is two floats' worth of bytes): the neighbour gets the same numbers.
    const std::size_t floats = elem / sizeof(float) * static_cast<std::size_t>(nx) * static_cast<std::size_t>(nz);
    std::vector<float> out[2], in[2];
    for (int s = 0; s < 2; ++s) {
        if (peer[s] < 0) continue;
        out[s].resize(floats);
        in[s].resize(floats);
        moveRows(v, bytesOf(out[s].data()), elem, nx, ny, nz, send_row[s], send_row[s] + 1, true);
    }
    const std::vector<float>* const outs[2] = {&out[0], &out[1]};
    std::vector<float>* const ins[2] = {&in[0], &in[1]};
    row_slabs->start(peer, outs, ins);
    row_slabs->finish();
    for (int s = 0; s < 2; ++s)
        if (peer[s] >= 0) moveRows(v, bytesOf(in[s].data()), elem, nx, ny, nz, recv_row[s], recv_row[s] + 1, false);
}

namespace {
/// Rows [j0, j1) of every plane of a field of nx × ny × nz cells as bytes, plane after plane, and back.
template <class T>
std::string packRows(T* v, int nx, int ny, int nz, int j0, int j1) {
    std::string bytes(sizeof(T) * static_cast<std::size_t>(nx) * static_cast<std::size_t>(j1 - j0) * static_cast<std::size_t>(nz), '\0');
    moveRows(bytesOf(v), bytesOf(bytes.data()), sizeof(T), nx, ny, nz, j0, j1, true);
    return bytes;
}
template <class T>
void unpackRows(std::string bytes, T* v, int nx, int ny, int nz, int j0, int j1, int slab) {
    if (bytes.size() != sizeof(T) * static_cast<std::size_t>(nx) * static_cast<std::size_t>(j1 - j0) * static_cast<std::size_t>(nz))
        throw SimError("air: rank " + std::to_string(slab) + " of the hall sent " + std::to_string(bytes.size()) +
                       " bytes of its flow rows");
    moveRows(bytesOf(v), bytesOf(bytes.data()), sizeof(T), nx, ny, nz, j0, j1, false);
}
}  // namespace

void AirModel::Impl::gatherFlowRows(std::vector<double>& x) {
    // Round a ring, point to point: at each turn every rank passes up the rows it received the turn before (its
    // own at first) and takes its lower neighbour's; after count − 1 turns each has every rank's. The doubles
    // travel as their bytes.
    const int me = row_slabs->index(), count = row_slabs->count();
    const int peer[2] = {(me + count - 1) % count, (me + 1) % count};
    auto floatsOf = [&](int slab) {  // a double is two floats' worth of bytes
        const auto [f0, f1] = flowRowsOf(slab);
        return sizeof(double) / sizeof(float) * static_cast<std::size_t>(nx) * static_cast<std::size_t>(f1 - f0) *
               static_cast<std::size_t>(nz);
    };
    std::vector<float>&passing = flow_ring[0], &incoming = flow_ring[1];
    passing.resize(floatsOf(me));
    const auto [m0, m1] = flowRowsOf(me);
    moveRows(bytesOf(x.data()), bytesOf(passing.data()), sizeof(double), nx, ny, nz, m0, m1, true);
    const std::vector<float> nothing;
    std::vector<float> unused;
    for (int turn = 1; turn < count; ++turn) {
        const int from = (me + count - turn) % count;  // whose rows arrive at this turn
        incoming.resize(floatsOf(from));
        const std::vector<float>* const outs[2] = {&nothing, &passing};
        std::vector<float>* const ins[2] = {&incoming, &unused};
        row_slabs->start(peer, outs, ins);
        row_slabs->finish();
        const auto [f0, f1] = flowRowsOf(from);
        moveRows(bytesOf(x.data()), bytesOf(incoming.data()), sizeof(double), nx, ny, nz, f0, f1, false);
        passing.swap(incoming);
    }
}

void AirModel::Impl::dotsRows(std::initializer_list<std::pair<const std::vector<double>*, const std::vector<double>*>> pairs, double* out,
                              int j0, int j1, bool split) {
    const std::size_t per = static_cast<std::size_t>(ny) * static_cast<std::size_t>(nz), m = pairs.size();
    std::vector<double> sums(per * m, 0.0);  // pair q's row j of plane k: q·per + j + ny·k
    run(static_cast<std::size_t>(nz), [&](std::size_t kc) {
        const int kk = static_cast<int>(kc);
        std::size_t q = 0;
        for (const auto& [a, b] : pairs) {
            for (int j = j0; j < j1; ++j) {
                const std::size_t c0 = static_cast<std::size_t>(idx(0, j, kk));
                double s = 0;
                for (std::size_t c = c0; c < c0 + static_cast<std::size_t>(nx); ++c) s += (*a)[c] * (*b)[c];
                sums[q * per + static_cast<std::size_t>(j + ny * kk)] = s;
            }
            ++q;
        }
    });
    if (split) {
        // The rows' sums of every pair from every rank (as if the pairs were planes of one field).
        const int me = row_slabs->index();
        const int planes = nz * static_cast<int>(m);
        const auto all = row_slabs->allGather(packRows(sums.data(), 1, ny, planes, j0, j1));
        for (std::size_t s = 0; s < all.size(); ++s) {
            if (static_cast<int>(s) == me) continue;
            const auto [f0, f1] = flowRowsOf(static_cast<int>(s));
            unpackRows(all[s], sums.data(), 1, ny, planes, f0, f1, static_cast<int>(s));
        }
    }
    for (std::size_t q = 0; q < m; ++q) {
        double total = 0;
        for (int kk = 0; kk < nz; ++kk) {
            double plane = 0;
            for (int j = 0; j < ny; ++j) plane += sums[q * per + static_cast<std::size_t>(j + ny * kk)];
            total += plane;
        }
        out[q] = total;
    }
}

}  // namespace ct::sim
