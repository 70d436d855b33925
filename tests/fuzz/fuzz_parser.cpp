// libFuzzer target for one telemetry parser (CT_FUZZ_PARSER picks it; one executable per parser). Built with
// clang when CT_FUZZ=ON (scripts/fuzz); the parsers must never crash, hang or leak on any input.
#include <clustertwin/importers/parse.hpp>
#include <clustertwin/importers/chunk_codec.hpp>
#include <clustertwin/importers/slurm.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <string>

namespace im = ct::importers;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::istringstream in(text);
    im::ParseOptions opt;
    opt.file_name = "fuzz";
    opt.default_time_s = 1e9;
#if defined(CT_FUZZ_SACCT)
    (void)im::parseSacct(in, opt, "JobID,JobName,User,Partition,NodeList,State,Submit,Start,End,AllocTRES");
#elif defined(CT_FUZZ_SLURM_JSON)
    (void)im::parseSlurmJson(in, opt);
#elif defined(CT_FUZZ_HOSTLIST)
    try {
        (void)im::expandHostlist(text);
    } catch (const im::ImportError&) {
    }
#elif defined(CT_FUZZ_CHUNK)
    std::vector<std::pair<double, double>> points;
    try {
        im::chunk::decode(data, size, points);
    } catch (const im::ImportError&) {
    }
#elif defined(CT_FUZZ_CLUSTERCOCKPIT)
    // A job directory: the input up to its first NUL is meta.json, the rest data.json.
    static const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("ct-fuzz-cc-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const auto nul = text.find('\0');
    std::ofstream(dir / "meta.json", std::ios::binary | std::ios::trunc) << text.substr(0, nul);
    std::ofstream(dir / "data.json", std::ios::binary | std::ios::trunc) << (nul == std::string::npos ? std::string() : text.substr(nul + 1));
    try {
        (void)im::parseClusterCockpitJob((dir / "meta.json").string(), opt);
    } catch (const im::ImportError&) {
    }
#else
    (void)CT_FUZZ_PARSER(in, opt, {}, size);
#endif
    return 0;
}
