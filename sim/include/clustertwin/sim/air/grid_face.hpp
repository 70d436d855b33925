#pragma once
// The six faces of an air grid (a hall's box or a lattice), shared by every air solver's wall conditions.

namespace ct::sim {

enum class GridFace { XLow, XHigh, YLow, YHigh, ZLow, ZHigh };

}  // namespace ct::sim
