// The D3Q19 lattice on the CPU: a pull-scheme loop over rows of cells (lattice_row.cpp) calling lbm::collide, threads over
// z-planes (fixed chunks: the result never depends on the thread count). The layout: lattice_impl.hpp.
#include "lattice_impl.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <unistd.h>

namespace ct::sim {

namespace {

using lattice_detail::kMaxRho;
using lattice_detail::kMaxSpeed;
using lattice_detail::kMaxWallKinds;
using lattice_detail::kMinRho;
using lattice_detail::kQ;
using lattice_detail::RowArgs;
using lattice_detail::RowFn;
using lattice_detail::rowFunction;

}  // namespace

void Lattice::Impl::Links::clear() {
    solid.clear();
    fluid.clear();
    q.clear();
    term.clear();
}

void Lattice::Impl::Links::push(int s, int f, int qd, float t) {
    solid.push_back(s);
    fluid.push_back(f);
    q.push_back(static_cast<unsigned char>(qd));
    term.push_back(t);
}

// Direction by direction, cells in memory order: the pre-pass then walks two arrays at a time instead of jumping
// among all 19 for every solid cell (it was ~11 % of a hall's run). Each link writes its own population, so the
// order does not change the result.
void Lattice::Impl::Links::sortByDirection() {
    std::vector<std::size_t> order(q.size());
    for (std::size_t e = 0; e < order.size(); ++e) order[e] = e;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return q[x] < q[y]; });
    auto permute = [&](auto& v) {
        auto copy = v;
        for (std::size_t e = 0; e < order.size(); ++e) v[e] = copy[order[e]];
    };
    permute(solid);
    permute(fluid);
    permute(q);
    permute(term);
}

/// Brings the host's populations and sums up to date before they are read.
void Lattice::Impl::syncHost() {
#ifdef CT_HAVE_CUDA
    if (dev && host_stale) {
        try {
            dev->getPopulations(a);
            if (!sum_u.empty()) {  // the device keeps them by interior cell
                std::vector<float> su, snu;
                dev->getSums(su, snu);
                paddedFrom(su, 3, sum_u);
                paddedFrom(snu, 1, sum_nu);
            }
        } catch (const std::runtime_error& e) {
            throw SimError(std::string("CUDA lattice: ") + e.what());
        }
        host_stale = false;
    }
#endif
}

/// Flags of every padded cell: interior solids, halo walls (still or moving), periodic images and, in a slab, the
/// neighbours' edge rows.
void Lattice::Impl::buildFlags() {
    flag.assign(n, 0);
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) flag[pad(i, j, k)] = solidAt(i, j, k) ? 1 : 0;
    // Along y a slab's edge is a wall only where the whole box ends without a periodic neighbour.
    const bool per[3] = {spec.periodic_x, spec.periodic_y || split(), spec.periodic_z};
    const bool edge_wall[2] = {peer[0] < 0, peer[1] < 0};
    // Wall kinds: 1 still; 2 + face for a moving face.
    std::fill(std::begin(wall), std::end(wall), 0.f);
    for (int f = 0; f < 6; ++f) {
        const int kind = 2 + f;
        for (int q = 0; q < kQ; ++q) {
            const double cu = lbm::cx(q) * face_u[f][0] + lbm::cy(q) * face_u[f][1] + lbm::cz(q) * face_u[f][2];
            wall[kind * kQ + q] = static_cast<float>(6.0 * lbm::weight(q) * cu);
        }
    }
    for (int k = 0; k < pz; ++k)
        for (int j = 0; j < py; ++j)
            for (int i = 0; i < px; ++i) {
                const int ii[3] = {i, j, k}, dims[3] = {px, py, pz};
                bool halo = false;
                int kind = 1;
                for (int ax = 0; ax < 3; ++ax) {
                    const bool lo = ii[ax] == 0, hi = ii[ax] == dims[ax] - 1;
                    if (!(lo || hi)) continue;
                    if ((ax == 1 && split()) ? !edge_wall[hi ? 1 : 0] : per[ax]) continue;
                    halo = true;
                    const int face = 2 * ax + (hi ? 1 : 0);
                    if (face_moving[face]) kind = 2 + face;  // later faces win at edges
                }
                if (halo) flag[i + px * (j + py * k)] = static_cast<unsigned char>(kind);
            }
    std::fill(flag.begin() + static_cast<std::ptrdiff_t>(px) * py * pz, flag.end(), 1);  // past the box (n's rounding)
    if (split()) flagEdgeRows();
    // Periodic images: flags copied from the opposite layer (after the walls, so they wrap solids too).
    copyPeriodic(flag.data(), 1);
    fluid.resize(n);
    for (std::size_t c = 0; c < n; ++c) fluid[c] = flag[c] == 0 ? 1.f : 0.f;
    buildLinks();
    geometry_dirty = false;
}

void Lattice::Impl::buildLinks() {
    links.clear();
    edge_links.clear();
    for (int k = 0; k < pz; ++k)
        for (int j = 0; j < py; ++j)
            for (int i = 0; i < px; ++i) {
                const int s = i + px * (j + py * k);
                if (!flag[s]) continue;
                for (int q = 1; q < kQ; ++q) {
                    const int x = i + lbm::cx(q), y = j + lbm::cy(q), z = k + lbm::cz(q);
                    if (x < 0 || y < 0 || z < 0 || x >= px || y >= py || z >= pz) continue;
                    const int f = x + px * (y + py * z);
                    if (flag[f]) continue;
                    const float term = wall[flag[s] * kQ + q];
                    if (!split()) {
                        links.push(s, f, q, term);
                        continue;
                    }
                    // In a slab, a fluid cell of an edge row is the neighbour's to update (it has this link as
                    // its own); a solid one there is set once the row has arrived.
                    if (y == 0 || y == py - 1) continue;
                    if (j == 0 || j == py - 1) edge_links.push(s, f, q, term);
                    else links.push(s, f, q, term);
                }
            }
    links.sortByDirection();
    edge_links.sortByDirection();
    if (!split()) buildRowLinks();
}

void Lattice::Impl::buildRowLinks() {
    const std::size_t rows = static_cast<std::size_t>(ny) * static_cast<std::size_t>(nz);
    auto rowOf = [&](int f) -> std::ptrdiff_t {  // the fluid cell's interior row, or −1 in the halo (never pulled)
        const int i = f % px, j = (f / px) % py, k = f / (px * py);
        if (i < 1 || i > nx || j < 1 || j > ny || k < 1 || k > nz) return -1;
        return static_cast<std::ptrdiff_t>(j - 1) + static_cast<std::ptrdiff_t>(ny) * (k - 1);
    };
    row_links.begin.assign(rows + 1, 0);
    for (std::size_t e = 0; e < links.size(); ++e)
        if (const auto r = rowOf(links.fluid[e]); r >= 0) ++row_links.begin[static_cast<std::size_t>(r) + 1];
    for (std::size_t r = 0; r < rows; ++r) row_links.begin[r + 1] += row_links.begin[r];
    const std::size_t count = row_links.begin[rows];
    row_links.dst.resize(count);
    row_links.src.resize(count);
    row_links.term.resize(count);
    std::vector<std::size_t> at(row_links.begin.begin(), row_links.begin.end() - 1);
    for (std::size_t e = 0; e < links.size(); ++e) {  // direction by direction within a row, as the links are
        const auto r = rowOf(links.fluid[e]);
        if (r < 0) continue;
        const std::size_t w = at[static_cast<std::size_t>(r)]++;
        const int q = links.q[e];
        row_links.dst[w] = static_cast<std::size_t>(q) * n + static_cast<std::size_t>(links.solid[e]);
        row_links.src[w] = static_cast<std::size_t>(lbm::opposite(q)) * n + static_cast<std::size_t>(links.fluid[e]);
        row_links.term[w] = links.term[e];
    }
}

/// The bounce-back pre-pass on the populations about to be streamed.
void Lattice::Impl::bounceBack(float* f, const Links& l) {
    // Each link writes its own solid population and reads a fluid one: links split into chunks freely.
    auto apply = [&](std::size_t from, std::size_t to) {
        for (std::size_t e = from; e < to; ++e) {
            const int q = l.q[e];
            f[static_cast<std::size_t>(q) * n + static_cast<std::size_t>(l.solid[e])] =
                f[static_cast<std::size_t>(lbm::opposite(q)) * n + static_cast<std::size_t>(l.fluid[e])] + l.term[e];
        }
    };
    // A hall has 10,000–50,000 links: one chunk a thread from 4,096 on (run serially it was 9 % of a demo run
    // while the other thread waited).
    const std::size_t count = l.size(), threads = static_cast<std::size_t>(pool.width());
    if (count < 4096 || threads < 2) return apply(0, count);
    const std::size_t chunk = std::min<std::size_t>(16384, (count + threads - 1) / threads);
    const std::size_t chunks = (count + chunk - 1) / chunk;
    run(chunks, [&](std::size_t c) { apply(c * chunk, std::min(count, (c + 1) * chunk)); });
}

/// Copies the opposite interior layer into the halo on each periodic axis, for `stride`-separated arrays of
/// `count` fields (count = 19 for populations, 1 for flags). A slab's edge rows along y come from its neighbours.
template <class T>
void Lattice::Impl::copyPeriodic(T* base, int count) {
    for (int fld = 0; fld < count; ++fld) {
        T* v = base + static_cast<std::size_t>(fld) * n;
        if (spec.periodic_x)
            for (int k = 0; k < pz; ++k)
                for (int j = 0; j < py; ++j) {
                    const int r = px * (j + py * k);
                    v[r] = v[r + nx];
                    v[r + nx + 1] = v[r + 1];
                }
        if (spec.periodic_y && !split())
            for (int k = 0; k < pz; ++k)
                for (int i = 0; i < px; ++i) {
                    const int pl = px * py * k;
                    v[i + pl] = v[i + px * ny + pl];
                    v[i + px * (ny + 1) + pl] = v[i + px + pl];
                }
        if (spec.periodic_z) {
            const std::size_t plane = static_cast<std::size_t>(px) * py;
            std::copy(v + plane * nz, v + plane * (nz + 1), v);
            std::copy(v + plane, v + plane * 2, v + plane * (nz + 1));
        }
    }
}
template void Lattice::Impl::copyPeriodic<float>(float*, int);

RowArgs Lattice::Impl::rowArgs() {
    RowArgs r{};
    r.src = a.data();
    r.dst = b.data();
    r.fluid = fluid.data();
    r.temp = temp ? temp_pad.data() : nullptr;
    r.sum_u = sampling ? sum_u.data() : nullptr;
    r.sum_nu = sampling ? sum_nu.data() : nullptr;
    r.n = n;
    for (int q = 0; q < kQ; ++q) r.off[q] = lbm::cx(q) + px * (lbm::cy(q) + py * lbm::cz(q));
    r.tau0 = static_cast<float>(spec.tau);
    r.smag2 = static_cast<float>(spec.smagorinsky_cs * spec.smagorinsky_cs);
    r.fx = static_cast<float>(body[0]);
    r.fy = static_cast<float>(body[1]);
    r.fz = static_cast<float>(body[2]);
    r.buoy = static_cast<float>(buoy);
    r.t_ref = static_cast<float>(t_ref);
    return r;
}

/// Whether the rows stream their stores past the caches (lattice_row.cpp): as the spec says, or when the lattice's
/// two population copies are more than twice the last-level cache the system reports, taken within 8–32 MB (a VM
/// may report all of its host's: 532 MB on the 2-core EPYC VM here). Measured there (docs/performance.md): 27 MB
/// of populations ran 7 % slower streamed, 107 MB 6–17 % faster, the 1 GB of clustertwin-bench air 2–20 %.
bool Lattice::Impl::streamStores() const {
    if (spec.stream_stores >= 0) return spec.stream_stores > 0;
    static const std::size_t bound = [] {
        const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
        const std::size_t mb = std::size_t{1} << 20;
        return 2 * std::clamp(l3 > 0 ? static_cast<std::size_t>(l3) : 32 * mb, 8 * mb, 32 * mb);
    }();
    // The whole box's, not this slab's: a hall split in slabs streams as it does whole (the same instructions
    // for every cell, so the same bits).
    const std::size_t whole = static_cast<std::size_t>(px) * static_cast<std::size_t>(gny + 2) * static_cast<std::size_t>(pz);
    return 2 * kQ * whole * sizeof(float) > bound;
}

int Lattice::Impl::cpuStep() {
    const RowArgs r = rowArgs();
    const RowFn row = rowFunction(sampling, temp != nullptr, streamStores());
    preparePorts();
    std::vector<unsigned char> bad(static_cast<std::size_t>(nz), 0);
    if (split()) {
        slabStep(r, row, bad);
    } else {
        copyPeriodic(a.data(), kQ);
        // The bounce-back of a plane's rows right before the plane streams (RowLinks): no pass of its own. Each
        // plane's rows go as one line (rowsStep).
        run(static_cast<std::size_t>(nz), [&](std::size_t kc) {
            const int k = static_cast<int>(kc);
            for (int j = 0; j < ny; ++j) rowBounceBack(a.data(), j, k);
            bad[kc] = rowsStep(r, row, 0, ny, k) ? 1 : 0;
        });
    }
    std::swap(a, b);
    ++steps;
    if (sampling) ++samples;
    for (int k = 0; k < nz; ++k)
        if (bad[static_cast<std::size_t>(k)]) return k;
    return -1;
}

#ifdef CT_HAVE_CUDA
void Lattice::Impl::deviceSteps(int count, bool flags_changed) {
    if (flags_changed) {
        if (split()) {  // a slab's bounce-back in one pass: its own links and those of the neighbours' solid cells
            Links all = links;
            for (std::size_t e = 0; e < edge_links.size(); ++e)
                all.push(edge_links.solid[e], edge_links.fluid[e], edge_links.q[e], edge_links.term[e]);
            dev->setGeometry(flag, all.solid, all.fluid, all.q, all.term);
        } else {
            dev->setGeometry(flag, links.solid, links.fluid, links.q, links.term);
        }
    }
    if (dev_ports_stale) {
        std::vector<int> cells, port_of;
        for (std::size_t p = 0; p < ports.size(); ++p)
            for (int c : ports[p].cells) {
                cells.push_back(c);
                port_of.push_back(static_cast<int>(p));
            }
        dev->setPorts(cells, port_of);
        dev_ports_stale = false;
    }
    std::vector<float> q, jet;
    std::vector<unsigned char> src;
    for (const Port& p : ports) {
        q.push_back(static_cast<float>(p.q / static_cast<double>(p.all_cells)));
        src.push_back(p.source ? 1 : 0);
        for (int ax = 0; ax < 3; ++ax) jet.push_back(static_cast<float>(p.jet * p.dir[ax]));
    }
    if (!ports.empty()) dev->setPortState(q, src, jet);
    if (dev_state_stale) {
        dev->setPopulations(a);
        dev->resetSums();
        dev_state_stale = false;
    }
    if (temp && split()) {  // the slab's rows of the whole hall's field
        std::vector<float> mine(interior());
        const std::size_t row = static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny);
        for (int k = 0; k < nz; ++k)
            std::copy_n(temp + static_cast<std::size_t>(nx) * (j0 + static_cast<std::size_t>(gny) * k), row, mine.data() + row * k);
        dev->setTemperature(mine.data(), mine.size());
    } else if (temp) {
        dev->setTemperature(temp, interior());
    }
    detail::LatticeStepParams prm{static_cast<float>(spec.tau),
                                  static_cast<float>(spec.smagorinsky_cs * spec.smagorinsky_cs),
                                  static_cast<float>(body[0]),
                                  static_cast<float>(body[1]),
                                  static_cast<float>(body[2]),
                                  static_cast<float>(buoy),
                                  static_cast<float>(t_ref),
                                  {spec.periodic_x, spec.periodic_y && !split(), spec.periodic_z},
                                  sampling,
                                  temp != nullptr};
    if (split()) return deviceSlabSteps(count, prm);
    dev->beginBatch();
    for (int s = 0; s < count; ++s) dev->step(prm);
    host_stale = true;
    int failed_step = -1;
    const long long bad = dev->endBatch(failed_step);
    if (bad >= 0) {  // reported at the step that failed; the state shown is the batch's last
        steps += failed_step + 1;
        syncHost();
        const int pk = static_cast<int>(bad / (static_cast<long long>(px) * py));
        reportInstability(pk - 1);
    }
    steps += count;
    if (sampling) samples += count;
}
#endif

void Lattice::Impl::preparePorts() {
    if (row_ports_stale) {
        // Counting sort by row; a row's pairs then by cell and port (a cell in two ports gets them in order).
        const std::size_t rows = static_cast<std::size_t>(ny) * nz;
        std::vector<std::size_t> begin(rows + 1, 0);
        auto row_of = [&](int c) {
            return static_cast<std::size_t>((c / px) % py - 1) + static_cast<std::size_t>(ny) * (c / (px * py) - 1);
        };
        for (const Port& p : ports)
            for (int c : p.cells) ++begin[row_of(c) + 1];
        for (std::size_t q = 0; q < rows; ++q) begin[q + 1] += begin[q];
        std::vector<std::pair<int, int>> pairs(begin[rows]);
        std::vector<std::size_t> at(begin.begin(), begin.end() - 1);
        for (std::size_t p = 0; p < ports.size(); ++p)
            for (int c : ports[p].cells) pairs[at[row_of(c)]++] = {c, static_cast<int>(p)};
        for (std::size_t q = 0; q < rows; ++q)
            std::sort(pairs.begin() + static_cast<std::ptrdiff_t>(begin[q]), pairs.begin() + static_cast<std::ptrdiff_t>(begin[q + 1]));
        row_ports.begin = std::move(begin);
        row_ports.cell.resize(pairs.size());
        row_ports.port.resize(pairs.size());
        for (std::size_t e = 0; e < pairs.size(); ++e) {
            row_ports.cell[e] = pairs[e].first;
            row_ports.port[e] = pairs[e].second;
        }
        row_ports_stale = false;
    }
    port_now.resize(ports.size());
    for (std::size_t i = 0; i < ports.size(); ++i) {
        const Port& p = ports[i];
        PortNow& now = port_now[i];
        const double from[5] = {p.q / static_cast<double>(p.all_cells), p.jet, p.dir[0], p.dir[1], p.dir[2]};
        if (now.source == p.source && std::equal(from, from + 5, now.from)) continue;  // 2–4 % of a run, at every step
        std::copy(from, from + 5, now.from);
        now.q = static_cast<float>(p.q / static_cast<double>(p.all_cells));
        now.source = p.source;
        const float jx = static_cast<float>(p.jet * p.dir[0]), jy = static_cast<float>(p.jet * p.dir[1]),
                    jz = static_cast<float>(p.jet * p.dir[2]);
        for (int qd = 0; qd < kQ; ++qd) now.add[qd] = lbm::portInflow(qd, now.q, jx, jy, jz);
    }
}

void Lattice::Impl::rowPorts(float* f, int j, int k) const {
    // Applied port by port over the whole lattice after the step, each cell's 19 populations were a cache miss
    // apiece (8-9 % of the in-row sample's run); right after its row they are still in cache.
    const std::size_t r = static_cast<std::size_t>(j) + static_cast<std::size_t>(ny) * k;
    for (std::size_t e = row_ports.begin[r]; e < row_ports.begin[r + 1]; ++e) {
        const std::size_t c = static_cast<std::size_t>(row_ports.cell[e]);
        const PortNow& p = port_now[static_cast<std::size_t>(row_ports.port[e])];
        if (p.source) {
            for (int qd = 0; qd < kQ; ++qd) f[static_cast<std::size_t>(qd) * n + c] += p.add[qd];
            continue;
        }
        float v[kQ];
        for (int qd = 0; qd < kQ; ++qd) v[qd] = f[static_cast<std::size_t>(qd) * n + c];
        lbm::portOutflow(v, p.q);
        for (int qd = 0; qd < kQ; ++qd) f[static_cast<std::size_t>(qd) * n + c] = v[qd];
    }
}

void Lattice::Impl::cellMoments(int p, double& rho, double& ux, double& uy, double& uz) const {
    double d = 0, jx = 0, jy = 0, jz = 0;
    for (int q = 0; q < kQ; ++q) {
        const double v = a[static_cast<std::size_t>(q) * n + p];
        d += v;
        jx += lbm::cx(q) * v;
        jy += lbm::cy(q) * v;
        jz += lbm::cz(q) * v;
    }
    rho = 1 + d;
    ux = jx / rho;
    uy = jy / rho;
    uz = jz / rho;
}

/// Names the cell of plane k furthest from a sound state and why. The step's check saw the streamed state and
/// this is the collided one, so the named cell may sit just inside the limits; it is still the worst.
void Lattice::Impl::reportInstability(int k) const {
    int wi = 0, wj = 0;
    double worst = -1, wrho = 1, wsp = 0;
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            const int p = pad(i, j, k);
            if (flag[p]) continue;
            double rho, ux, uy, uz;
            cellMoments(p, rho, ux, uy, uz);
            const double sp = std::sqrt(ux * ux + uy * uy + uz * uz);
            const double score = std::isfinite(rho + sp) ? std::max(sp / kMaxSpeed, std::fabs(rho - 1) / (kMaxRho - 1)) : 1e300;
            if (score > worst) {
                worst = score;
                wi = i;
                wj = j + j0;
                wrho = rho;
                wsp = sp;
            }
        }
    std::string why;
    if (!std::isfinite(wrho + wsp)) why = "the populations became NaN or infinite";
    else if (wsp / kMaxSpeed >= std::fabs(wrho - 1) / (kMaxRho - 1))
        why = "the air speed reached " + std::to_string(wsp) + " in lattice units (Mach " + std::to_string(wsp * std::sqrt(3.0)) +
              ", limit 0.35): the flow is faster than the lattice's time step allows (an inflow faster than expected, or "
              "buoyancy from an extreme temperature)";
    else
        why = "the density reached " + std::to_string(wrho) +
              " (limits 0.5–1.5): mass is piling up or draining (ports that do not balance, or a flow too fast for the lattice)";
    throw LatticeUnstable("lattice unstable at cell (" + std::to_string(wi) + ", " + std::to_string(wj) + ", " + std::to_string(k) +
                              ") at step " + std::to_string(steps) + ": " + why,
                          wi, wj, k, steps);
}

}  // namespace ct::sim
