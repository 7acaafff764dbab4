/// @file
/// Writing rendered frames: PNG (one frame), GIF (in-process encoder) and MP4 (the ffmpeg
/// command, fed raw frames through a pipe). Every output goes through marrow's atomic-write path
/// (marrow/io/atomic_file.h): a temporary in the destination folder, renamed into place only when
/// complete, so a failure never leaves a partial file behind.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "marrow/base/error.h"
#include "marrow/io/atomic_file.h"
#include "marrow/render/rasterizer.h"

namespace marrow::render {

enum class OutputFormat { kPng, kGif, kMp4 };

/// The format named by the file's extension (.png, .gif, .mp4, any case), or an error naming
/// the file and the formats there are.
Result<OutputFormat> output_format_of(const std::string& path);

/// The files go through marrow's one atomic-write path (marrow/io/atomic_file.h).
using AtomicFile = marrow::AtomicFile;
using marrow::remove_temporaries_on_signal;

/// PNG bytes of an image (stb_image_write).
std::vector<std::uint8_t> encode_png(const Image& image);

/// The full path of `program` found on PATH, if it is there and executable.
std::optional<std::string> find_on_path(const std::string& program);

/// A sequence of frames going to a file. open() checks everything it can before the first frame
/// (the format, the folder, ffmpeg's presence for MP4).
class FrameWriter {
 public:
  static Result<std::unique_ptr<FrameWriter>> open(const std::string& path, int width, int height,
                                                   double fps);
  virtual ~FrameWriter() = default;
  virtual Status add(const Image& frame) = 0;
  /// Completes the file and renames it into place.
  virtual Status finish() = 0;
  /// Bytes written to the final file (after finish()).
  virtual std::uint64_t size() const = 0;
};

}  // namespace marrow::render
