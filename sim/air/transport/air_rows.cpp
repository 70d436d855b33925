// A hall's heat split by rows over the ranks of its lattice's slabs (AirModel::splitRows, issue 42): each rank
// steps its own rows of the TVD transport and gathers the others', so every rank holds the whole field.
#include <clustertwin/sim/air/lattice.hpp>

#include "air_model_impl.hpp"

#include <algorithm>

namespace ct::sim {

void AirModel::splitRows(LatticeSlabs* slabs) {
    Impl& d = *d_;
    d.row_slabs = nullptr;
    d.row0 = 0;
    d.rows = -1;
    if (!slabs || slabs->count() <= 1) return;
    if (d.spec.backend != Backend::Cpu) throw SimError("air: a hall's heat split by rows runs on the CPU");
    if (d.ny < slabs->count())
        throw SimError("air: " + std::to_string(d.ny) + " rows along y cannot split over " + std::to_string(slabs->count()) + " ranks");
    const auto [first, count] = slabRows(d.ny, slabs->count(), slabs->index());
    d.row_slabs = slabs;
    d.row0 = first;
    d.rows = count;
}

void AirModel::Impl::gatherRows(float* field) {
    const std::size_t row = static_cast<std::size_t>(nx), plane = row * static_cast<std::size_t>(ny);
    std::string mine(sizeof(float) * row * static_cast<std::size_t>(rows) * static_cast<std::size_t>(nz), '\0');
    for (int k = 0; k < nz; ++k)
        std::copy_n(field + plane * static_cast<std::size_t>(k) + row * static_cast<std::size_t>(row0),
                    row * static_cast<std::size_t>(rows),
                    reinterpret_cast<float*>(mine.data()) + row * static_cast<std::size_t>(rows) * static_cast<std::size_t>(k));
    const auto all = row_slabs->allGather(mine);
    for (std::size_t s = 0; s < all.size(); ++s) {
        if (static_cast<int>(s) == row_slabs->index()) continue;
        const auto [first, count] = slabRows(ny, static_cast<int>(all.size()), static_cast<int>(s));
        const std::size_t block = row * static_cast<std::size_t>(count);
        if (all[s].size() != sizeof(float) * block * static_cast<std::size_t>(nz))
            throw SimError("air: rank " + std::to_string(s) + " of the hall sent " + std::to_string(all[s].size()) + " bytes of rows");
        const auto* v = reinterpret_cast<const float*>(all[s].data());
        for (int k = 0; k < nz; ++k)
            std::copy_n(v + block * static_cast<std::size_t>(k), block,
                        field + plane * static_cast<std::size_t>(k) + row * static_cast<std::size_t>(first));
    }
}

}  // namespace ct::sim
