// What the browser tests share (tests/report/browser/): Debian's headless chromium run on a page
// written to disk, for a screenshot (decoded to RGBA with libpng) or for the DOM after the page's
// scripts ran (--dump-dom), and counting the pixels of one colour in a screenshot.
#pragma once

#include <png.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace smcompat::testing {

// A screenshot decoded to RGBA.
struct Image {
  unsigned width = 0, height = 0;
  std::vector<unsigned char> rgba;
};

inline bool decode_png(const std::filesystem::path& path, Image& out) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path.c_str())) return false;
  image.format = PNG_FORMAT_RGBA;
  out.width = image.width;
  out.height = image.height;
  out.rgba.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out.rgba.data(), 0, nullptr)) {
    png_image_free(&image);
    return false;
  }
  return true;
}

// Pixels within a small distance of `hex` ("#e6194b"; anti-aliased edges differ, line centres
// and fills do not).
inline size_t pixels_of(const Image& img, const std::string& hex) {
  const int r = std::stoi(hex.substr(1, 2), nullptr, 16);
  const int g = std::stoi(hex.substr(3, 2), nullptr, 16);
  const int b = std::stoi(hex.substr(5, 2), nullptr, 16);
  size_t n = 0;
  for (size_t i = 0; i + 3 < img.rgba.size(); i += 4)
    n += std::abs(img.rgba[i] - r) <= 6 && std::abs(img.rgba[i + 1] - g) <= 6 &&
         std::abs(img.rgba[i + 2] - b) <= 6;
  return n;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Headless chromium in `dir` (SMCOMPAT_CHROMIUM, found at configure time): each call gets a fresh
// profile, and its output and log are files named after `name`.
class Chromium {
 public:
  Chromium(std::string program, std::filesystem::path dir)
      : program_(std::move(program)), dir_(std::move(dir)) {}

  // Writes `html` to NAME.html and returns its file:// address.
  std::string write_page(const std::string& html, const std::string& name) const {
    const auto page = dir_ / (name + ".html");
    std::ofstream(page) << html;
    return "file://" + page.string();
  }

  // Screenshots `url` at 1400 x `height`; NAME.png is left behind for people to look at. On
  // failure, `error` holds the command and the browser's log.
  bool screenshot(const std::string& url, const std::string& name, int height, Image& img,
                  std::string& error) const {
    const auto png = dir_ / (name + ".png");
    std::filesystem::remove(png);
    if (!run("--hide-scrollbars --force-device-scale-factor=1 --screenshot='" + png.string() +
                 "' --window-size=1400," + std::to_string(height),
             url, name, error))
      return false;
    if (!std::filesystem::exists(png) || !decode_png(png, img)) {
      error = "no readable screenshot at " + png.string() + "\n" + error;
      return false;
    }
    return true;
  }

  // The DOM of `url` after its scripts ran (--dump-dom), or "" with `error` set.
  std::string dump_dom(const std::string& url, const std::string& name, std::string& error) const {
    const auto out = dir_ / (name + ".dom.html");
    std::filesystem::remove(out);
    if (!run("--dump-dom", url, name, error, out)) return {};
    return read_text(out);
  }

 private:
  bool run(const std::string& args, const std::string& url, const std::string& name,
           std::string& error, const std::filesystem::path& stdout_to = {}) const {
    const auto log = dir_ / (name + ".log");
    const auto profile = dir_ / (name + ".profile");
    std::filesystem::remove_all(profile);
    // The screenshot's chatter goes to the log; a DOM dump's stdout to its own file.
    const std::string redirect = stdout_to.empty()
                                     ? " >'" + log.string() + "' 2>&1"
                                     : " >'" + stdout_to.string() + "' 2>'" + log.string() + "'";
    const std::string cmd = "timeout 60 '" + program_ +
                            "' --headless --no-sandbox --disable-gpu --no-first-run "
                            "--disable-extensions --disable-dev-shm-usage --user-data-dir='" +
                            profile.string() + "' " + args + " '" + url + "'" + redirect;
    const int rc = std::system(cmd.c_str());
    if (rc != 0) {
      error = "chromium failed (status " + std::to_string(rc) + "): " + cmd + "\n" + read_text(log);
      return false;
    }
    return true;
  }

  std::string program_;
  std::filesystem::path dir_;
};

}  // namespace smcompat::testing
