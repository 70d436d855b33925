// A hall's heat split by rows over the ranks of its lattice's slabs (AirModel::splitRows, issue 42): each rank
// steps its own rows of the TVD transport; between sub-steps it receives of the others' rows what its stencil
// and the coupling read (their two edge rows a side and their port cells), and after each advance the whole
// field, so that every rank then holds it, equal to the bit to one process's.
#include <clustertwin/sim/air/lattice.hpp>

#include "air_model_impl.hpp"

#include <algorithm>

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

}  // namespace ct::sim
