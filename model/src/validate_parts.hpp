#pragma once
// Parts of the scenario validator that live in their own files. Private to the model library.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/error.hpp>
#include <clustertwin/model/scenario.hpp>

#include <string>

namespace ct::model::detail {

/// Containment, in-row coolers, rear doors, blanking and loop references of one hall at `hall_pointer`.
void checkCooling(const Scenario& s, const Hall& h, const std::string& hall_pointer, const Catalog& c, Diagnostics& d);
/// The plant's water loops.
void checkLoops(const Scenario& s, Diagnostics& d);
/// The network: generator parameters against the radix, explicit switches and links, overrides.
void checkNetwork(const Scenario& s, const Catalog& c, Diagnostics& d);
/// A training job's parallel layout at `pointer`, for a job of `gpus` GPUs on nodes of `gpus_per_node`.
void checkTraining(const TrainingSpec& t, const std::string& pointer, int gpus, int gpus_per_node, Diagnostics& d);
/// An inference job's serving layout at `pointer`, for a job of `gpus` GPUs.
void checkInference(const InferenceSpec& i, const std::string& pointer, int gpus, Diagnostics& d);

}  // namespace ct::model::detail
