// libFuzzer target for one format of the formats table (CT_FUZZ_FORMAT names it; one executable per format),
// or for the other inputs CT_FUZZ_* names. Built with clang when CT_FUZZ=ON (scripts/fuzz); the parsers must
// never crash, hang or leak on any input.
#include <clustertwin/importers/formats.hpp>
#include <clustertwin/importers/parse.hpp>
#include <clustertwin/importers/slurm.hpp>
#include <clustertwin/runs/chunk_codec.hpp>
#include <clustertwin/runs/error.hpp>

#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace im = ct::importers;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::istringstream in(text);
    im::ParseOptions opt;
    opt.file_name = "fuzz";
    opt.default_time_s = 1e9;
#if defined(CT_FUZZ_HOSTLIST)
    try {
        (void)im::expandHostlist(text);
    } catch (const im::ImportError&) {}
#elif defined(CT_FUZZ_CHUNK)
    std::vector<std::pair<double, double>> points;
    try {
        ct::runs::chunk::decode(data, size, points);
    } catch (const ct::runs::StoreError&) {}
#elif defined(CT_FUZZ_CLUSTERCOCKPIT)
    // A job directory: the input up to its first NUL is meta.json, the rest data.json.
    static const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("ct-fuzz-cc-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const auto nul = text.find('\0');
    std::ofstream(dir / "meta.json", std::ios::binary | std::ios::trunc) << text.substr(0, nul);
    std::ofstream(dir / "data.json", std::ios::binary | std::ios::trunc)
        << (nul == std::string::npos ? std::string() : text.substr(nul + 1));
    try {
        (void)im::parseClusterCockpitJob((dir / "meta.json").string(), opt);
    } catch (const im::ImportError&) {}
#else
    static const im::FormatInfo* const format = im::findFormat(CT_FUZZ_FORMAT);
    if (!format || !format->parse) __builtin_trap();  // a target for a format that is not in the table
    opt.sacct_fields = "JobID,JobName,User,Partition,NodeList,State,Submit,Start,End,AllocTRES";  // headerless sacct
    (void)format->parse(in, opt, {}, size);
#endif
    return 0;
}
