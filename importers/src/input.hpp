#pragma once
// A telemetry file opened for reading, plain or gzip-compressed (recognised by its magic bytes, whatever its
// name) and then decompressed on the fly by zlib. Private to ct_importers.
#include <clustertwin/importers/format.hpp>

#include <cstdint>
#include <istream>
#include <memory>
#include <string>

namespace ct::importers::detail {

class InputFile {
public:
    /// Throws ImportError naming the path when it cannot be opened.
    explicit InputFile(const std::string& path);
    ~InputFile();
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    std::istream& stream() { return *stream_; }
    /// The name formats are recognised by: no directory, and no ".gz" when compressed.
    const std::string& formatName() const { return name_; }
    /// Bytes the parsers will read, for progress: the file's size, or 0 (unknown) when compressed.
    std::uint64_t sizeHint() const { return size_hint_; }

private:
    class GzBuf;
    std::unique_ptr<GzBuf> gz_;
    std::unique_ptr<std::istream> stream_;
    std::string name_;
    std::uint64_t size_hint_ = 0;
};

}  // namespace ct::importers::detail
