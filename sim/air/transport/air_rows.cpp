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
    const std::size_t row = static_cast<std::size_t>(nx), block = row * static_cast<std::size_t>(rows);
    std::vector<float> mine(block * static_cast<std::size_t>(nz));
    for (int k = 0; k < nz; ++k)
        std::copy_n(field + row * (static_cast<std::size_t>(row0) + static_cast<std::size_t>(ny) * static_cast<std::size_t>(k)), block,
                    mine.data() + block * static_cast<std::size_t>(k));
    gatherSlabRows(*row_slabs, mine, field, nx, ny, nz);
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
    const std::size_t row_bytes = elem * static_cast<std::size_t>(nx), row_floats = row_bytes / sizeof(float);
    std::vector<float> out[2], in[2];
    for (int s = 0; s < 2; ++s) {
        if (peer[s] < 0) continue;
        out[s].resize(row_floats * static_cast<std::size_t>(nz));
        in[s].resize(out[s].size());
        // The bits as they are (a double is two floats' worth of bytes): the neighbour gets the same numbers.
        for (int kk = 0; kk < nz; ++kk)
            std::memcpy(out[s].data() + row_floats * static_cast<std::size_t>(kk),
                        v + elem * static_cast<std::size_t>(idx(0, send_row[s], kk)), row_bytes);
    }
    const std::vector<float>* const outs[2] = {&out[0], &out[1]};
    std::vector<float>* const ins[2] = {&in[0], &in[1]};
    row_slabs->start(peer, outs, ins);
    row_slabs->finish();
    for (int s = 0; s < 2; ++s) {
        if (peer[s] < 0) continue;
        for (int kk = 0; kk < nz; ++kk)
            std::memcpy(v + elem * static_cast<std::size_t>(idx(0, recv_row[s], kk)),
                        in[s].data() + row_floats * static_cast<std::size_t>(kk), row_bytes);
    }
}

namespace {
/// Rows [j0, j1) of every plane of a field of nx × ny × nz cells as bytes, plane after plane.
template <class T>
std::string packRows(const T* v, int nx, int ny, int nz, int j0, int j1) {
    const std::size_t row = static_cast<std::size_t>(nx);
    const std::size_t block = row * static_cast<std::size_t>(j1 - j0);
    std::string bytes(sizeof(T) * block * static_cast<std::size_t>(nz), '\0');
    for (int kk = 0; kk < nz; ++kk)
        std::memcpy(bytes.data() + sizeof(T) * block * static_cast<std::size_t>(kk),
                    v + row * (static_cast<std::size_t>(j0) + static_cast<std::size_t>(ny) * static_cast<std::size_t>(kk)),
                    sizeof(T) * block);
    return bytes;
}
template <class T>
void unpackRows(const std::string& bytes, T* v, int nx, int ny, int nz, int j0, int j1, int slab) {
    const std::size_t row = static_cast<std::size_t>(nx), block = row * static_cast<std::size_t>(j1 - j0);
    if (bytes.size() != sizeof(T) * block * static_cast<std::size_t>(nz))
        throw SimError("air: rank " + std::to_string(slab) + " of the hall sent " + std::to_string(bytes.size()) +
                       " bytes of its flow rows");
    for (int kk = 0; kk < nz; ++kk)
        std::memcpy(v + row * (static_cast<std::size_t>(j0) + static_cast<std::size_t>(ny) * static_cast<std::size_t>(kk)),
                    bytes.data() + sizeof(T) * block * static_cast<std::size_t>(kk), sizeof(T) * block);
}
}  // namespace

void AirModel::Impl::gatherFlowRows(std::vector<double>& x) {
    // Round a ring, point to point: at each turn every rank passes up the rows it received the turn before (its
    // own at first) and takes its lower neighbour's; after count − 1 turns each has every rank's. The doubles
    // travel as their bytes.
    const int me = row_slabs->index(), count = row_slabs->count();
    const int peer[2] = {(me + count - 1) % count, (me + 1) % count};
    const std::size_t row = static_cast<std::size_t>(nx), plane = row * static_cast<std::size_t>(ny);
    constexpr std::size_t kFloats = sizeof(double) / sizeof(float);
    auto block = [&](int slab) {  // doubles of one plane's rows of `slab`
        const auto [f0, f1] = flowRowsOf(slab);
        return std::make_pair(row * static_cast<std::size_t>(f0), row * static_cast<std::size_t>(f1 - f0));
    };
    std::vector<float>&passing = flow_ring[0], &incoming = flow_ring[1];
    {
        const auto [at, len] = block(me);
        passing.resize(kFloats * len * static_cast<std::size_t>(nz));
        for (int kk = 0; kk < nz; ++kk)
            std::memcpy(passing.data() + kFloats * len * static_cast<std::size_t>(kk), x.data() + at + plane * static_cast<std::size_t>(kk),
                        sizeof(double) * len);
    }
    const std::vector<float> nothing;
    std::vector<float> unused;
    for (int turn = 1; turn < count; ++turn) {
        const int from = (me + count - turn) % count;  // whose rows arrive at this turn
        const auto [at, len] = block(from);
        incoming.resize(kFloats * len * static_cast<std::size_t>(nz));
        const std::vector<float>* const outs[2] = {&nothing, &passing};
        std::vector<float>* const ins[2] = {&incoming, &unused};
        row_slabs->start(peer, outs, ins);
        row_slabs->finish();
        for (int kk = 0; kk < nz; ++kk)
            std::memcpy(x.data() + at + plane * static_cast<std::size_t>(kk),
                        incoming.data() + kFloats * len * static_cast<std::size_t>(kk), sizeof(double) * len);
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
