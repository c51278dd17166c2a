// Scanning container images (issue 13, part 4): OCI layout directories, OCI tarballs and docker
// save tarballs written in the test with libarchive, layers carrying nvcc-built libraries
// (tests/scan/CMakeLists.txt). The flattened filesystem must be exactly what the layers leave:
// whiteouts, opaque directories, hard links across layers, symlinks never scanned, `..` entries
// ignored; broken images give located errors while the rest is still scanned.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <filesystem>
#include <map>

#include "smcompat/report/scan_report.hpp"
#include "smcompat/scan/image.hpp"
#include "smcompat/scan/scan.hpp"
#include "support/image_builder.hpp"

namespace smcompat {
namespace {

namespace fs = std::filesystem;
namespace ti = testimage;

#ifdef SMCOMPAT_IMAGE_FIXTURES
const fs::path kFixtures = SMCOMPAT_IMAGE_FIXTURES;
#else
const fs::path kFixtures;
#endif

class ImageScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (kFixtures.empty() || !fs::exists(kFixtures / "libkeep.so"))
      GTEST_SKIP() << "nvcc fixtures not built (tests/scan/CMakeLists.txt needs nvcc)";
    keep_ = ti::read_file(kFixtures / "libkeep.so");
    gone_ = ti::read_file(kFixtures / "libgone.so");
    dir_ = fs::temp_directory_path() /
           ("smcompat_image_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Layer 1 (gzip): two nvcc libraries, a CUDA runtime, a Python distribution, a directory that
  // layer 2 makes opaque, and an entry that climbs above the root.
  ti::Layer layer1() const {
    const std::string site = "usr/lib/python3/site-packages/";
    return {
        ti::tar(
            {ti::dir("opt/"), ti::dir("opt/app/lib/"), ti::file("./opt/app/lib/libkeep.so", keep_),
             ti::file("opt/app/lib/libgone.so", gone_),
             ti::file("opt/app/lib/libcudart.so.12.8.90", "not really a runtime"),
             ti::symlink("opt/app/lib/libcudart.so.12", "libcudart.so.12.8.90"),
             ti::file("opt/old/libold.so", gone_), ti::file("opt/old/sub/libolder.so", gone_),
             ti::file("/" + site + "demo/libdemo.so", keep_),
             ti::file(site + "demo/__init__.py", "print('hi')\n"),
             ti::file(site + "demo-1.0.dist-info/METADATA", "Name: demo\nVersion: 1.0\n\n"),
             ti::file(site + "demo-1.0.dist-info/RECORD",
                      "demo/libdemo.so,,\ndemo/__init__.py,,\n"
                      "demo-1.0.dist-info/METADATA,,\ndemo-1.0.dist-info/RECORD,,\n"),
             ti::file(site + "nvidia/cuda_runtime/lib/libcudart.so.12", "runtime"),
             ti::file(site + "nvidia_cuda_runtime_cu12-12.8.57.dist-info/METADATA",
                      "Name: nvidia-cuda-runtime-cu12\nVersion: 12.8.57\n\n"),
             ti::file(site + "nvidia_cuda_runtime_cu12-12.8.57.dist-info/RECORD",
                      "nvidia/cuda_runtime/lib/libcudart.so.12,,\n"),
             ti::file("../escape.so", keep_)},
            /*gzip=*/true),
        true};
  }
  // Layer 2: deletes libgone.so, makes opt/old opaque, adds files, hard links to a file of
  // layer 1 and to one of its own, a symlink escaping the root.
  ti::Layer layer2() const {
    return {
        ti::tar({ti::file("opt/app/lib/.wh.libgone.so", ""), ti::file("opt/old/.wh..wh..opq", ""),
                 ti::file("opt/old/libfresh.so", keep_), ti::file("opt/app/new/libnew.so", gone_),
                 ti::hardlink("opt/app/lib/libkeep_link.so", "opt/app/lib/libkeep.so"),
                 ti::hardlink("opt/old/libfresh_link.so", "opt/old/libfresh.so"),
                 ti::symlink("opt/app/lib/evil.so", "../../../../../etc/passwd"),
                 ti::file("opt/app/notes.txt", "text")}),
        false};
  }
  std::vector<ti::Layer> layers() const { return {layer1(), layer2()}; }

  ScanReport scan(const std::string& path, bool target = false) {
    ScanOptions opt;
    opt.jobs = 1;
    if (target) opt.target = *resolve_target("RTX 5090");
    return scan_paths({path}, opt);
  }

  // member -> (package, targets)
  static std::map<std::string, std::pair<std::string, std::vector<std::string>>> files_of(
      const ScanReport& r) {
    std::map<std::string, std::pair<std::string, std::vector<std::string>>> out;
    for (const auto& f : r.files) {
      std::vector<std::string> targets;
      for (const auto& img : f.inventory.images) targets.push_back(img.target.to_string());
      out[f.inventory.member] = {f.package, targets};
    }
    return out;
  }

  // Scans the demo image written at `path` in `format`: the format is sniffed and reported, and
  // the inventory is the demo's (expect_demo).
  ScanReport scan_demo(const std::string& path, ImageArchiveFormat format) {
    EXPECT_EQ(sniff_container_image(path), format);
    ScanReport r = scan(path);
    expect_demo(r, path);
    EXPECT_EQ(r.images[0].format, format);
    return r;
  }

  // The members the scan found (`present`, each once) and did not find (`absent`).
  static void expect_members(const ScanReport& r, std::initializer_list<const char*> present,
                             std::initializer_list<const char*> absent) {
    auto files = files_of(r);
    for (const char* m : present) EXPECT_EQ(files.count(m), 1u) << m;
    for (const char* m : absent) EXPECT_EQ(files.count(m), 0u) << m;
  }

  // The expected inventory of the demo image, whatever its archive format.
  void expect_demo(const ScanReport& r, const std::string& path) {
    // Each library holds two fatbin containers: the static CUDA runtime's own (one SASS image
    // for the arch it is linked for) and the kernel's (as the -gencode flags say); the entries
    // are compared one by one with the inventory of the library on disk below.
    const std::vector<std::string> keep{"sm_90", "sm_90", "compute_90"}, gone{"sm_80", "sm_80"};
    using P = std::pair<std::string, std::vector<std::string>>;
    std::map<std::string, P> expected{
        {"opt/app/lib/libkeep.so", {"opt", keep}},
        {"opt/app/lib/libkeep_link.so", {"opt", keep}},
        {"opt/app/new/libnew.so", {"opt", gone}},
        {"opt/old/libfresh.so", {"opt", keep}},
        {"opt/old/libfresh_link.so", {"opt", keep}},
        {"usr/lib/python3/site-packages/demo/libdemo.so", {"demo", keep}},
    };
    EXPECT_EQ(files_of(r), expected);
    for (const auto& f : r.files) EXPECT_EQ(f.inventory.path, path);

    // The entries are exactly those of the library on disk (same bytes, same offsets).
    InspectOptions io;
    auto on_disk = inspect_file((kFixtures / "libkeep.so").string(), io);
    ASSERT_FALSE(on_disk.empty());
    for (const auto& f : r.files) {
      if (files_of(r)[f.inventory.member].second != keep) continue;
      ASSERT_EQ(f.inventory.images.size(), on_disk[0].images.size()) << f.inventory.member;
      EXPECT_EQ(f.inventory.size, keep_.size());
      for (size_t i = 0; i < f.inventory.images.size(); ++i) {
        EXPECT_EQ(f.inventory.images[i].target, on_disk[0].images[i].target);
        EXPECT_EQ(f.inventory.images[i].entry_offset, on_disk[0].images[i].entry_offset);
        EXPECT_EQ(f.inventory.images[i].section, on_disk[0].images[i].section);
      }
    }

    ASSERT_EQ(r.cuda_runtimes.size(), 2u);
    EXPECT_EQ(r.cuda_runtimes[0].path, path);
    EXPECT_EQ(r.cuda_runtimes[0].member, "opt/app/lib/libcudart.so.12.8.90");
    EXPECT_EQ(r.cuda_runtimes[0].major, 12);
    EXPECT_EQ(r.cuda_runtimes[0].version, "12.8.90");
    EXPECT_EQ(r.cuda_runtimes[1].member,
              "usr/lib/python3/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12");
    EXPECT_EQ(r.cuda_runtimes[1].major, 12);
    EXPECT_EQ(r.cuda_runtimes[1].version, "12.8.57");  // from the owning distribution

    ASSERT_EQ(r.images.size(), 1u);
    const auto& im = r.images[0];
    EXPECT_EQ(im.path, path);
    EXPECT_EQ(im.platform, "linux/amd64");
    EXPECT_EQ(im.reference, "demo:1");
    ASSERT_EQ(im.layers.size(), 2u);
    EXPECT_EQ(im.layers[0].entries, 16u);
    EXPECT_EQ(im.layers[0].whiteouts, 0u);
    EXPECT_EQ(im.layers[1].entries, 8u);
    EXPECT_EQ(im.layers[1].whiteouts, 2u);
    // Regular files left: libkeep, libkeep_link, libcudart.so.12.8.90, libdemo, __init__,
    // 2 x (METADATA, RECORD), nvidia libcudart, libfresh, libfresh_link, libnew, notes.txt.
    EXPECT_EQ(im.files_in_image, 14u);

    // The `..` entry: a located warning, nothing else.
    bool escape_warned = false;
    for (const auto& w : r.warnings)
      if (w.what.find("'../escape.so' climbs above the image root") != std::string::npos) {
        escape_warned = true;
        EXPECT_TRUE(w.offset.has_value());
      }
    EXPECT_TRUE(escape_warned);
    EXPECT_TRUE(r.errors.empty()) << r.errors.front().to_string();

    auto pkg = std::find_if(r.packages.begin(), r.packages.end(),
                            [](const PackageSummary& p) { return p.name == "demo"; });
    ASSERT_NE(pkg, r.packages.end());
    EXPECT_EQ(pkg->version, "1.0");
    EXPECT_EQ(pkg->kind, "python-distribution");
  }

  std::string keep_, gone_;
  fs::path dir_;
};

TEST_F(ImageScanTest, OciTarballScansToTheExactFlattenedInventory) {
  auto path = (dir_ / "image.tar").string();
  ti::write_file(path, ti::archive_of(ti::oci_layout(layers())));
  ScanReport r = scan_demo(path, ImageArchiveFormat::kOciArchive);
  EXPECT_EQ(r.images[0].layers[0].media_type, "application/vnd.oci.image.layer.v1.tar+gzip");
  ASSERT_TRUE(r.images[0].manifest_digest.has_value());
  EXPECT_TRUE(r.images[0].manifest_digest->starts_with("sha256:"));
}

TEST_F(ImageScanTest, OciLayoutDirectory) {
  auto path = (dir_ / "layout").string();
  ti::write_layout(path, ti::oci_layout(layers()));
  scan_demo(path, ImageArchiveFormat::kOciLayout);
}

TEST_F(ImageScanTest, DockerSaveTarball) {
  auto path = (dir_ / "docker.tar").string();
  ti::write_file(path, ti::archive_of(ti::docker_save(layers())));
  ScanReport r = scan_demo(path, ImageArchiveFormat::kDockerArchive);
  EXPECT_FALSE(r.images[0].manifest_digest.has_value());
  EXPECT_EQ(r.images[0].layers[0].digest, "sha256:" + ti::sha256_hex(layer1().bytes));
}

TEST_F(ImageScanTest, ZstdLayer) {
  ti::Layer l{
      ti::tar({ti::file("opt/lib/libkeep.so", keep_), ti::file("opt/lib/libgone.so", gone_)},
              /*gzip=*/false, /*zstd=*/true),
      false, true};
  ti::Layer wh{ti::tar({ti::file("opt/lib/.wh.libgone.so", "")}, false, true), false, true};
  ASSERT_EQ(l.bytes.substr(0, 4), std::string("\x28\xb5\x2f\xfd", 4));  // zstd frame magic
  auto path = (dir_ / "zstd.tar").string();
  ti::write_file(path, ti::archive_of(ti::oci_layout({l, wh})));
  ScanReport r = scan(path);
  EXPECT_TRUE(r.errors.empty()) << r.errors.front().to_string();
  auto files = files_of(r);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files.begin()->first, "opt/lib/libkeep.so");
  EXPECT_EQ(files.begin()->second.second,
            (std::vector<std::string>{"sm_90", "sm_90", "compute_90"}));
  EXPECT_EQ(r.images[0].layers[0].media_type, "application/vnd.oci.image.layer.v1.tar+zstd");
}

TEST_F(ImageScanTest, VerdictsForATarget) {
  auto path = (dir_ / "image.tar").string();
  ti::write_file(path, ti::archive_of(ti::oci_layout(layers())));
  ScanReport r = scan(path, /*target=*/true);
  for (const auto& f : r.files) {
    ASSERT_TRUE(f.verdict.has_value());
    // sm_90 SASS + compute_90 PTX: JIT on sm_120; sm_80 SASS only: no image.
    if (f.inventory.images.size() == 3)
      EXPECT_EQ(f.verdict->verdict, Fit::kPtxJit)
          << f.inventory.member << ": " << f.verdict->summary;
    else
      EXPECT_EQ(f.verdict->verdict, Fit::kNoImage)
          << f.inventory.member << ": " << f.verdict->summary;
  }
}

TEST_F(ImageScanTest, TruncatedLayerIsALocatedErrorAndTheOtherLayerIsScanned) {
  auto l1 = layer1();
  l1.bytes.resize(l1.bytes.size() / 2);
  auto path = (dir_ / "image.tar").string();
  ti::write_file(path, ti::archive_of(ti::oci_layout({l1, layer2()})));
  ScanReport r = scan(path);
  ASSERT_FALSE(r.errors.empty());
  const Error& e = r.errors[0];
  EXPECT_EQ(e.file, path + "!blobs/sha256/" + ti::sha256_hex(l1.bytes));
  EXPECT_TRUE(e.offset.has_value());
  EXPECT_NE(e.what.find("layer 1"), std::string::npos) << e.what;
  expect_members(r, {"opt/app/new/libnew.so", "opt/old/libfresh.so"}, {"opt/app/lib/libgone.so"});
}

TEST_F(ImageScanTest, MissingBlobIsALocatedErrorAndTheOtherLayerIsScanned) {
  auto l1 = layer1();
  auto layout = ti::oci_layout({l1, layer2()});
  std::string missing = "blobs/sha256/" + ti::sha256_hex(l1.bytes);
  std::erase_if(layout, [&](const auto& f) { return f.first == missing; });
  auto path = (dir_ / "image.tar").string();
  ti::write_file(path, ti::archive_of(layout));
  ScanReport r = scan(path);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].file, path + "!" + missing);
  // The hard link's target (libkeep.so) was never seen: the link is a warning, not a file.
  expect_members(r, {"opt/app/new/libnew.so"},
                 {"opt/app/lib/libkeep.so", "opt/app/lib/libkeep_link.so"});
}

// An OCI layout directory whose layer blob is a link: kept while it stays in the layout; a link
// out of it (to /proc/self/mem, to a tar elsewhere) is refused, and a FIFO or a device is named
// as what it is (they read as "blob not found", or would block or never end).
TEST_F(ImageScanTest, LayoutBlobLinksThatLeaveTheLayoutAreRefused) {
  auto l1 = layer1();
  std::string blob = "blobs/sha256/" + ti::sha256_hex(l1.bytes);
  auto make = [&](const std::string& name) {
    auto path = (dir_ / name).string();
    ti::write_layout(path, ti::oci_layout({l1, layer2()}));
    fs::remove(fs::path(path) / blob);
    return path;
  };
  struct Case {
    std::string name, target, says;
    bool fifo = false;
  };
  auto outside = (dir_ / "elsewhere.tar").string();
  ti::write_file(outside, l1.bytes);
  for (const Case& c : {Case{"to-proc", "/proc/self/mem", "leaves the layout (to /proc/"},
                        Case{"to-tar", outside, "leaves the layout (to " + outside + ")"},
                        Case{"to-zero", "/dev/zero", "leaves the layout"},
                        Case{"fifo", "", "blob is a FIFO, not a file: refused", true}}) {
    SCOPED_TRACE(c.name);
    auto path = make(c.name);
    auto link = fs::path(path) / blob;
    if (c.fifo)
      ASSERT_EQ(::mkfifo(link.c_str(), 0600), 0);
    else
      fs::create_symlink(c.target, link);
    ScanReport r = scan(path);
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].file, link.string());
    EXPECT_NE(r.errors[0].what.find(c.says), std::string::npos) << r.errors[0].what;
    EXPECT_EQ(files_of(r).count("opt/app/new/libnew.so"), 1u);  // the other layer is scanned
  }
  // A link inside the layout is followed.
  auto path = make("inside");
  fs::path moved = fs::path(path) / "blobs" / "kept-elsewhere-in-layout";
  ti::write_file(moved.string(), l1.bytes);
  fs::create_symlink(moved, fs::path(path) / blob);
  ScanReport r = scan(path);
  EXPECT_TRUE(r.errors.empty()) << r.errors.front().to_string();
  expect_demo(r, path);
}

TEST_F(ImageScanTest, MalformedIndexJsonIsALocatedError) {
  auto layout = ti::oci_layout(layers());
  for (auto& [name, bytes] : layout)
    if (name == "index.json") bytes = R"({"schemaVersion": 2, "manifests": [})";
  auto path = (dir_ / "image.tar").string();
  ti::write_file(path, ti::archive_of(layout));
  ScanReport r = scan(path);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].file, path + "!index.json");
  EXPECT_EQ(r.errors[0].offset, 35u);  // the '}' where a value was expected
  EXPECT_TRUE(r.files.empty());
}

TEST_F(ImageScanTest, MalformedDockerManifestIsALocatedError) {
  auto files = ti::docker_save(layers());
  for (auto& [name, bytes] : files)
    if (name == "manifest.json") bytes = "[{\"Config\": 12, \"Layers\": \"no\"}]";
  auto path = (dir_ / "docker.tar").string();
  ti::write_file(path, ti::archive_of(files));
  ScanReport r = scan(path);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].file, path + "!manifest.json");
  EXPECT_TRUE(r.files.empty());
  for (auto& [name, bytes] : files)
    if (name == "manifest.json") bytes = "[{";
  ti::write_file(path, ti::archive_of(files));
  r = scan(path);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_TRUE(r.errors[0].offset.has_value());
}

TEST_F(ImageScanTest, MultiPlatformIndexPicksLinuxAmd64) {
  // Two platform images under one nested index; the arm64 one holds nothing.
  auto amd = ti::oci_layout(layers(), "demo:1", "amd64");
  auto arm = ti::oci_layout({{ti::tar({ti::file("arm.so", gone_)}), false}}, "demo:1", "arm64");
  auto manifest_of = [](const ti::Files& f) {
    // the manifest blob is the one before oci-layout/index.json
    return f[f.size() - 3].second;
  };
  ti::Files files;
  for (auto* f : {&amd, &arm})
    for (size_t i = 0; i + 2 < f->size(); ++i) files.push_back((*f)[i]);
  nlohmann::json nested{{"schemaVersion", 2},
                        {"mediaType", "application/vnd.oci.image.index.v1+json"},
                        {"manifests", nlohmann::json::array()}};
  for (auto [f, arch] : {std::pair{&arm, "arm64"}, std::pair{&amd, "amd64"}}) {
    std::string m = manifest_of(*f);
    nested["manifests"].push_back({{"mediaType", "application/vnd.oci.image.manifest.v1+json"},
                                   {"digest", "sha256:" + ti::sha256_hex(m)},
                                   {"size", m.size()},
                                   {"platform", {{"os", "linux"}, {"architecture", arch}}}});
  }
  std::string nested_text = nested.dump();
  files.push_back({"blobs/sha256/" + ti::sha256_hex(nested_text), nested_text});
  nlohmann::json index{{"schemaVersion", 2},
                       {"manifests",
                        {{{"mediaType", "application/vnd.oci.image.index.v1+json"},
                          {"digest", "sha256:" + ti::sha256_hex(nested_text)},
                          {"size", nested_text.size()},
                          {"annotations", {{"org.opencontainers.image.ref.name", "demo:1"}}}}}}};
  files.push_back({"oci-layout", R"({"imageLayoutVersion":"1.0.0"})"});
  files.push_back({"index.json", index.dump()});
  auto path = (dir_ / "multi.tar").string();
  ti::write_file(path, ti::archive_of(files));
  ScanReport r = scan(path);
  expect_demo(r, path);
  ASSERT_EQ(r.images[0].notes.size(), 1u);
  EXPECT_EQ(r.images[0].notes[0],
            "multi-platform index (linux/arm64, linux/amd64): linux/amd64 chosen");
}

TEST_F(ImageScanTest, SeveralImagesInOneIndexAreEachScanned) {
  auto a = ti::oci_layout({{ti::tar({ti::file("a/liba.so", keep_)}), false}}, "a:1");
  auto b = ti::oci_layout({{ti::tar({ti::file("b/libb.so", gone_)}), false}}, "b:1");
  ti::Files files;
  for (auto* f : {&a, &b})
    for (size_t i = 0; i + 2 < f->size(); ++i) files.push_back((*f)[i]);
  auto ia = nlohmann::json::parse(a.back().second), ib = nlohmann::json::parse(b.back().second);
  ia["manifests"].push_back(ib["manifests"][0]);
  files.push_back({"oci-layout", R"({"imageLayoutVersion":"1.0.0"})"});
  files.push_back({"index.json", ia.dump()});
  auto path = (dir_ / "two.tar").string();
  ti::write_file(path, ti::archive_of(files));
  ScanReport r = scan(path);
  ASSERT_EQ(r.images.size(), 2u);
  EXPECT_EQ(r.images[0].reference, "a:1");
  EXPECT_EQ(r.images[1].reference, "b:1");
  auto got = files_of(r);
  EXPECT_EQ(got.size(), 2u);
  EXPECT_EQ(got["a/liba.so"].second, (std::vector<std::string>{"sm_90", "sm_90", "compute_90"}));
  EXPECT_EQ(got["b/libb.so"].second, (std::vector<std::string>{"sm_80", "sm_80"}));
}

TEST_F(ImageScanTest, ATarThatIsNoImageIsScannedAsAPlainFile) {
  auto path = (dir_ / "plain.tar").string();
  ti::write_file(path, ti::tar({ti::file("lib/libkeep.so", keep_)}));
  EXPECT_FALSE(sniff_container_image(path).has_value());
  ScanReport r = scan(path);
  EXPECT_TRUE(r.images.empty());
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.files_seen, 1u);
}

TEST_F(ImageScanTest, JsonCarriesImagesAndCudaRuntimes) {
  auto path = (dir_ / "image.tar").string();
  ti::write_file(path, ti::archive_of(ti::oci_layout(layers())));
  ScanOptions opt;
  ScanReport r = scan(path);
  auto j = scan_to_json(r, opt, {});
  ASSERT_EQ(j["images"].size(), 1u);
  EXPECT_EQ(j["images"][0]["format"], "oci-archive");
  EXPECT_EQ(j["images"][0]["reference"], "demo:1");
  EXPECT_EQ(j["images"][0]["layers"][1]["whiteouts"], 2);
  EXPECT_EQ(j["images"][0]["files_in_image"], 14);
  ASSERT_EQ(j["cuda_runtimes"].size(), 2u);
  EXPECT_EQ(j["cuda_runtimes"][0]["version"], "12.8.90");
  EXPECT_EQ(j["files"][0]["path"], path);
  EXPECT_EQ(j["files"][0]["member"], "opt/app/lib/libkeep.so");
  std::string text = render_scan_text(r, opt, {}, Style::plain());
  EXPECT_NE(text.find("Image demo:1 (oci-archive)"), std::string::npos) << text;
  EXPECT_LT(text.find("Image demo:1"), text.find("package"));
}

// CUDA runtimes outside images: a directory (the symlink counts once, the version from the name
// or the owning nvidia-cuda-runtime distribution) and wheels (version from the wheel's name).
TEST(CudaRuntimes, DirectoriesAndWheels) {
  fs::path dir = fs::temp_directory_path() / ("smcompat_cudart_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ti::write_file(dir / "app/lib/libcudart.so.12.8.90", "x");
  fs::create_symlink("libcudart.so.12.8.90", dir / "app/lib/libcudart.so.12");
  fs::path site = dir / "site-packages";
  ti::write_file(site / "nvidia/cuda_runtime/lib/libcudart.so.12", "x");
  ti::write_file(site / "nvidia_cuda_runtime_cu12-12.8.57.dist-info/METADATA",
                 "Name: nvidia-cuda-runtime-cu12\nVersion: 12.8.57\n\n");
  ti::write_file(site / "nvidia_cuda_runtime_cu12-12.8.57.dist-info/RECORD",
                 "nvidia/cuda_runtime/lib/libcudart.so.12,,\n");
  auto make_wheel = [&](const fs::path& p, const char* member) {
    int err = 0;
    zip_t* z = zip_open(p.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
    ASSERT_NE(z, nullptr);
    zip_source_t* src = zip_source_buffer(z, "x", 1, 0);
    ASSERT_GE(zip_file_add(z, member, src, ZIP_FL_OVERWRITE), 0);
    ASSERT_EQ(zip_close(z), 0);
  };
  fs::path rt = dir / "wheels/nvidia_cuda_runtime_cu12-12.4.127-py3-none-manylinux2014_x86_64.whl";
  fs::path torch = dir / "wheels/torch-2.7.0-cp312-cp312-manylinux_2_28_x86_64.whl";
  fs::create_directories(rt.parent_path());
  make_wheel(rt, "nvidia/cuda_runtime/lib/libcudart.so.12");
  make_wheel(torch, "torch/lib/libcudart-9335f6a2.so.12");
  ScanOptions opt;
  opt.jobs = 1;
  ScanReport r = scan_paths({dir.string()}, opt);
  fs::remove_all(dir);
  ASSERT_EQ(r.cuda_runtimes.size(), 4u);
  std::map<std::string, CudaRuntimeLibrary> by;
  for (const auto& c : r.cuda_runtimes)
    by[fs::path(c.path).filename().string() + (c.member.empty() ? "" : "!" + c.member)] = c;
  EXPECT_EQ(by["libcudart.so.12.8.90"].version, "12.8.90");
  EXPECT_EQ(by["libcudart.so.12.8.90"].member, "");
  EXPECT_EQ(by["libcudart.so.12"].version, "12.8.57");
  EXPECT_EQ(by["libcudart.so.12"].major, 12);
  EXPECT_EQ(by[rt.filename().string() + "!nvidia/cuda_runtime/lib/libcudart.so.12"].version,
            "12.4.127");
  auto t = by[torch.filename().string() + "!torch/lib/libcudart-9335f6a2.so.12"];
  EXPECT_EQ(t.major, 12);
  EXPECT_FALSE(t.version.has_value());
}

// Unit checks that need no fixture.
TEST(ImagePaths, Normalise) {
  EXPECT_EQ(normalize_image_path("./usr/lib/x.so"), "usr/lib/x.so");
  EXPECT_EQ(normalize_image_path("/usr//lib/./x.so"), "usr/lib/x.so");
  EXPECT_EQ(normalize_image_path("usr/lib/../bin/x"), "usr/bin/x");
  EXPECT_EQ(normalize_image_path("./"), "");
  EXPECT_EQ(normalize_image_path("../x"), std::nullopt);
  EXPECT_EQ(normalize_image_path("a/../../x"), std::nullopt);
}

TEST(CudartNames, FileNames) {
  auto v = [](const char* n) { return parse_cudart_file_name(n); };
  ASSERT_TRUE(v("libcudart.so.12"));
  EXPECT_EQ(v("libcudart.so.12")->major, 12);
  EXPECT_FALSE(v("libcudart.so.12")->version);
  EXPECT_EQ(v("libcudart.so.12.8.90")->version, "12.8.90");
  EXPECT_EQ(v("libcudart.so.11.0")->version, "11.0");
  EXPECT_EQ(v("libcudart-9335f6a2.so.12")->major, 12);
  EXPECT_EQ(v("libcudart.9335f6a2.so.12")->major, 12);
  EXPECT_FALSE(v("libcudart.so"));
  EXPECT_FALSE(v("libcudart_static.a"));
  EXPECT_FALSE(v("libcudart.so.12.8.90.1"));
}

// A layer file above SpooledBytes::kMemoryLimit goes to a temporary file and is handed over as
// a file mapping (the inventory then drops its pages as it reads); small files stay in memory.
TEST(ImageMemory, ALargeLayerFileIsHandedOverAsAFileMapping) {
  std::string big(48u << 20, '\0');
  big.replace(big.size() - 4, 4, "tail");
  const std::string tarball = ti::archive_of(ti::docker_save(
      {{ti::tar({ti::file("opt/big.so", big), ti::file("opt/small.so", "small")}, true), true}}));
  struct Seen : ImageFileVisitor {
    std::map<std::string, std::pair<std::string, Backing>> got;
    bool want(size_t, const std::string&, uint64_t) override { return true; }
    void file(size_t, const std::string& member, ByteView bytes, Backing backing) override {
      got[member] = {std::string(bytes.as_string_view()), backing};
    }
    void file_error(size_t, const std::string& member, Error e) override {
      ADD_FAILURE() << member << ": " << e.to_string();
    }
  } visitor;
  auto r = read_image_tar(ByteView(tarball), "big.tar", visitor);
  EXPECT_TRUE(r.errors.empty());
  ASSERT_EQ(visitor.got.size(), 2u);
  EXPECT_EQ(visitor.got["opt/big.so"].second, Backing::kFileMapping);
  EXPECT_TRUE(visitor.got["opt/big.so"].first == big);  // the same bytes, through the file
  EXPECT_EQ(visitor.got["opt/small.so"].second, Backing::kMemory);
  EXPECT_EQ(visitor.got["opt/small.so"].first, "small");
}

TEST(ImageSniff, HostileBytesNeverCrash) {
  std::string junk(1024, '\0');
  junk.replace(257, 5, "ustar");
  EXPECT_FALSE(sniff_image_tar(ByteView(junk)).has_value());
  struct NoFiles : ImageFileVisitor {
    bool want(size_t, const std::string&, uint64_t) override { return true; }
    void file(size_t, const std::string&, ByteView, Backing) override {}
    void file_error(size_t, const std::string&, Error) override {}
  } visitor;
  auto r = read_image_tar(ByteView(junk), "junk.tar", visitor);
  EXPECT_TRUE(r.images.empty());
  EXPECT_FALSE(r.errors.empty());
}

}  // namespace
}  // namespace smcompat
