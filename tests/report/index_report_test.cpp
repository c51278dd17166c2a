// The index printers (report/index_report.hpp) on hand-built answers: exact text, Markdown
// escaping and exact JSON, so that a change to what `smcompat advise` and `smcompat index
// query/diff` print is deliberate. The answers are built by hand (no index, no judge), so the
// output depends on the printers alone.
#include "smcompat/report/index_report.hpp"

#include <gtest/gtest.h>

#include "report/expect_json.hpp"

namespace smcompat {
namespace {

WheelVerdict verdict(Fit fit, const std::string& summary, bool device_code = true) {
  WheelVerdict v;
  v.fit = fit;
  v.has_device_code = device_code;
  v.summary = summary;
  return v;
}

ReleaseFit release(const std::string& version, Fit fit, const std::string& summary,
                   const std::string& cuda = "", const std::string& torch_pin = "") {
  ReleaseFit r;
  r.version = version;
  r.filename = "bitsandbytes-" + version + "-py3-none-manylinux_2_24_x86_64.whl";
  r.verdict = verdict(fit, summary);
  r.cuda = cuda;
  r.torch_pin = torch_pin;
  return r;
}

std::vector<PackageAdvice> sample_advice() {
  PackageAdvice bnb;
  bnb.package = "bitsandbytes";
  bnb.machine = "x86_64";
  bnb.indexed = true;
  bnb.device_code = true;
  bnb.releases = {
      release("0.45.3", Fit::kNative, "native: sm_120 SASS in libbitsandbytes_cuda128.so"),
      release("0.45.2", Fit::kPtxJit, "ptx-jit: compute_90 only")};
  bnb.newest_native = "0.45.3";
  bnb.first_native = "0.45.3";
  bnb.jit_only = {"0.45.2"};
  bnb.installed_version = "0.45.2";
  bnb.recommended = "0.45.3";
  bnb.install_command = "/opt/venv/bin/python -m pip install \"bitsandbytes==0.45.3\"";
  bnb.notes = {"installed bitsandbytes 0.45.2: ptx-jit: compute_90 only"};

  PackageAdvice fa;
  fa.package = "flash-attn";
  fa.machine = "x86_64";
  fa.notes = {
      "not in the index (built 2026-11-25); rebuild with `smcompat index build flash-attn`"};
  return {bnb, fa};
}

IndexAnswerContext sample_context() {
  WheelIndex index;
  index.built = "2026-11-25";
  index.rebuild = "scripts/refresh-wheel-index.sh";
  index.wheels.resize(2);
  IndexAnswerContext c = index_answer_context(index, "built-in");
  c.target = *resolve_target("RTX 5090");
  c.machine = "x86_64";
  c.python = "/opt/venv/bin/python";
  c.site_packages = {"/opt/venv/lib/python3.12/site-packages"};
  c.argv = {"smcompat", "advise", "--gpu", "RTX 5090"};
  return c;
}

TEST(IndexReport, AdviseText) {
  EXPECT_EQ(render_advise_text(sample_advice(), sample_context(), Style::plain()),
            R"txt(target       GeForce RTX 5090 (12.0)
driver       not given: PTX ISA versions not checked (--driver)
wheels for   x86_64
index        built-in, built 2026-11-25, 2 wheels
environment  /opt/venv/bin/python (/opt/venv/lib/python3.12/site-packages)

package       installed  recommended  verdict  runs natively
bitsandbytes  0.45.2     0.45.3       native   since 0.45.3
flash-attn    –          –            –        not indexed

bitsandbytes → 0.45.3
  /opt/venv/bin/python -m pip install "bitsandbytes==0.45.3"
  runs natively since 0.45.3, its newest release; older ones do not
  · installed bitsandbytes 0.45.2: ptx-jit: compute_90 only

flash-attn
  · not in the index (built 2026-11-25); rebuild with `smcompat index build flash-attn`

Predicted from the device code of each wheel (compatibility rules), not run on a GPU.
Refresh the index with: scripts/refresh-wheel-index.sh
)txt");
}

TEST(IndexReport, AdviseTextVerboseListsReleases) {
  auto advice = sample_advice();
  advice.resize(1);
  advice[0].installed_version = "0.45.2+local";  // marked installed without its local label
  advice[0].releases[0].verdict.files = {
      {"bitsandbytes/libbitsandbytes_cuda128.so", Fit::kNative, false, "native: sm_120"},
      {"bitsandbytes/libbitsandbytes_cuda126.so", Fit::kPtxJit, false, ""}};
  advice[0].releases[0].verdict.variant = "bitsandbytes/libbitsandbytes_cuda128.so";
  auto c = sample_context();
  c.verbose = true;
  std::string text = render_advise_text(advice, c, Style::plain());
  EXPECT_NE(text.find(R"txt(  · installed bitsandbytes 0.45.2: ptx-jit: compute_90 only
    version  verdict  CUDA  torch  wheel
    0.45.3   native   –     –      bitsandbytes-0.45.3-py3-none-manylinux_2_24_x86_64.whl  ← recommended
    0.45.2   ptx-jit  –     –      bitsandbytes-0.45.2-py3-none-manylinux_2_24_x86_64.whl  installed
    0.45.3  native: sm_120 SASS in libbitsandbytes_cuda128.so
      bitsandbytes/libbitsandbytes_cuda128.so  native (the runtime variant that decides)  native: sm_120
      bitsandbytes/libbitsandbytes_cuda126.so  ptx-jit
)txt"),
            std::string::npos)
      << text;
}

TEST(IndexReport, AdviseTextColoursOnlyWhenAsked) {
  auto plain = render_advise_text(sample_advice(), sample_context(), Style::plain());
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
}

TEST(IndexReport, AdviseWithNothingToAdvise) {
  EXPECT_EQ(
      render_advise_text({}, sample_context(), Style::plain())
          .find("No package to advise on: none of the installed distributions is in the index."),
      std::string(R"txt(target       GeForce RTX 5090 (12.0)
driver       not given: PTX ISA versions not checked (--driver)
wheels for   x86_64
index        built-in, built 2026-11-25, 2 wheels
environment  /opt/venv/bin/python (/opt/venv/lib/python3.12/site-packages)

)txt")
          .size());
}

TEST(IndexReport, NativeRunWording) {
  auto advice = sample_advice();
  auto& a = advice[0];
  a.first_native = "0.45.2";
  a.first_native_is_oldest_indexed = true;
  a.releases[1].verdict.fit = Fit::kNative;
  a.jit_only.clear();
  std::string text = render_advise_text(advice, sample_context(), Style::plain());
  EXPECT_NE(text.find("bitsandbytes  0.45.2     0.45.3       native   since ≤ 0.45.2"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("runs natively since at or before 0.45.2 (the index starts there) (newest "
                      "0.45.3)"),
            std::string::npos)
      << text;
  // Newer releases dropped the GPU.
  a.releases.insert(a.releases.begin(), release("0.46.0", Fit::kNoImage, "no-image"));
  text = render_advise_text(advice, sample_context(), Style::plain());
  EXPECT_NE(text.find("≤ 0.45.2–0.45.3 only"), std::string::npos) << text;
  EXPECT_NE(text.find("runs natively from at or before 0.45.2 (the index starts there) to 0.45.3; "
                      "newer releases (0.46.0) do not"),
            std::string::npos)
      << text;
}

TEST(IndexReport, AdviseMarkdownEscapesIndexStrings) {
  auto advice = sample_advice();
  advice[1].package = "evil|pkg*";
  advice[1].notes = {"line\nbreak <b>"};
  std::string md = render_advise_markdown(advice, sample_context());
  EXPECT_EQ(md, R"md(# smcompat advise

- **target:** GeForce RTX 5090 (12.0)
- **driver:** not given: PTX ISA versions not checked (--driver)
- **wheels for:** x86\_64
- **index:** built-in, built 2026-11-25, 2 wheels
- **environment:** /opt/venv/bin/python (/opt/venv/lib/python3.12/site-packages)

| package | installed | recommended | verdict | runs natively |
| --- | --- | --- | --- | --- |
| bitsandbytes | 0.45.2 | 0.45.3 | native | since 0.45.3 |
| evil\|pkg\* | – | – | – | not indexed |

## bitsandbytes

` /opt/venv/bin/python -m pip install "bitsandbytes==0.45.3" `

runs natively since 0.45.3, its newest release; older ones do not.

- installed bitsandbytes 0.45.2: ptx-jit: compute\_90 only

## evil\|pkg\*

- line break \<b\>

_Predicted from the device code of each wheel (compatibility rules), not run on a GPU. Refresh the index with ` scripts/refresh-wheel-index.sh `._
)md");
}

TEST(IndexReport, AdviseJson) {
  auto advice = sample_advice();
  advice.resize(1);
  advice[0].releases.resize(1);
  advice[0].releases[0].verdict.driver_cuda_needed = Version{12, 8};
  testing::expect_json(advise_to_json(advice, sample_context()), kAdviseSchema, R"json({
    "schema": "smcompat.advise/1",
    "argv": ["smcompat", "advise", "--gpu", "RTX 5090"],
    "index": {"source": "built-in", "built": "2026-11-25", "wheels": 2,
              "rebuild": "scripts/refresh-wheel-index.sh"},
    "target": {"label": "GeForce RTX 5090 (12.0)", "cc": "12.0", "gpu": "GeForce RTX 5090",
               "driver_cuda": null, "driver": null},
    "machine": "x86_64",
    "python": "/opt/venv/bin/python",
    "site_packages": ["/opt/venv/lib/python3.12/site-packages"],
    "packages": [{
      "package": "bitsandbytes", "machine": "x86_64", "indexed": true, "device_code": true,
      "installed_version": "0.45.2", "recommended": "0.45.3",
      "install_command": "/opt/venv/bin/python -m pip install \"bitsandbytes==0.45.3\"",
      "newest_native": "0.45.3", "first_native": "0.45.3",
      "first_native_is_oldest_indexed": false, "jit_only": ["0.45.2"],
      "notes": ["installed bitsandbytes 0.45.2: ptx-jit: compute_90 only"],
      "releases": [{
        "version": "0.45.3",
        "filename": "bitsandbytes-0.45.3-py3-none-manylinux_2_24_x86_64.whl",
        "cuda": "", "torch_pin": "",
        "verdict": {"fit": "native", "has_device_code": true,
                    "summary": "native: sm_120 SASS in libbitsandbytes_cuda128.so",
                    "variant": null, "driver_cuda_needed": "12.8", "files": [], "rollup": null}
      }]
    }]
  })json");
}

std::vector<QueryRow> sample_rows() {
  QueryRow a{"bitsandbytes",
             "0.45.3",
             "x86_64",
             "bitsandbytes-0.45.3-py3-none-manylinux_2_24_x86_64.whl",
             "",
             verdict(Fit::kNative, "native")};
  QueryRow b{"torch",   "2.9.0",
             "aarch64", "torch-2.9.0-cp312-cp312-manylinux_2_28_aarch64.whl",
             "12.8",    verdict(Fit::kCompatibleSass, "compatible-sass")};
  QueryRow c{"triton", "3.5.0",
             "x86_64", "triton-3.5.0-cp312-cp312-manylinux_2_28_x86_64.whl",
             "",       verdict(Fit::kNoImage, "", false)};
  a.cuda = "11.8;12.1;12.8";  // runtime variants, one library each
  return {a, b, c};
}

TEST(IndexReport, QueryText) {
  auto c = sample_context();
  c.machine = "";
  c.python.clear();
  EXPECT_EQ(render_query_text(sample_rows(), c, {"bitsandbytes", "Flash_Attn"}, Style::plain()),
            R"txt(target      GeForce RTX 5090 (12.0)
driver      not given: PTX ISA versions not checked (--driver)
wheels for  every machine
index       built-in, built 2026-11-25, 2 wheels

package       version  machine  verdict          CUDA                    wheel
bitsandbytes  0.45.3   x86_64   native           11.8–12.8 (3 variants)  bitsandbytes-0.45.3-py3-none-manylinux_2_24_x86_64.whl
torch         2.9.0    aarch64  compatible-sass  12.8                    torch-2.9.0-cp312-cp312-manylinux_2_28_aarch64.whl
triton        3.5.0    x86_64   no device code   –                       triton-3.5.0-cp312-cp312-manylinux_2_28_x86_64.whl
flash-attn: not in the index

Predicted from the device code of each wheel (compatibility rules), not run on a GPU.
Refresh the index with: scripts/refresh-wheel-index.sh
)txt");
}

TEST(IndexReport, QueryMarkdownAndJson) {
  auto c = sample_context();
  c.machine = "x86_64";
  c.python.clear();
  c.argv = {"smcompat", "index", "query", "--gpu", "RTX 5090"};
  auto rows = sample_rows();
  rows.resize(1);
  std::string md = render_query_markdown(rows, c, {});
  EXPECT_NE(md.find("| bitsandbytes | 0.45.3 | x86\\_64 | native | 11.8–12.8 (3 variants) | "
                    "bitsandbytes-0.45.3-py3-none-manylinux\\_2\\_24\\_x86\\_64.whl |\n"),
            std::string::npos)
      << md;
  testing::expect_json(query_to_json(rows, c, {"bitsandbytes"}), kIndexQuerySchema, R"json({
    "schema": "smcompat.index-query/1",
    "argv": ["smcompat", "index", "query", "--gpu", "RTX 5090"],
    "index": {"source": "built-in", "built": "2026-11-25", "wheels": 2,
              "rebuild": "scripts/refresh-wheel-index.sh"},
    "target": {"label": "GeForce RTX 5090 (12.0)", "cc": "12.0", "gpu": "GeForce RTX 5090",
               "driver_cuda": null, "driver": null},
    "machine": "x86_64",
    "packages": ["bitsandbytes"],
    "rows": [{"package": "bitsandbytes", "version": "0.45.3", "machine": "x86_64",
              "filename": "bitsandbytes-0.45.3-py3-none-manylinux_2_24_x86_64.whl",
              "cuda": "11.8;12.1;12.8",
              "verdict": {"fit": "native", "has_device_code": true, "summary": "native",
                          "variant": null, "driver_cuda_needed": null, "files": [], "rollup": null}}]
  })json");
}

std::vector<WheelDiff> sample_diffs() {
  WheelDiff d;
  d.package = "bitsandbytes";
  d.machine = "x86_64";
  d.old_version = "0.45.3";
  d.new_version = "0.46.0";
  d.old_filename = "bitsandbytes-0.45.3-py3-none-manylinux_2_24_x86_64.whl";
  d.new_filename = "bitsandbytes-0.46.0-py3-none-manylinux_2_24_x86_64.whl";
  d.added_sass = {"sm_103"};
  d.dropped_sass = {"sm_50", "sm_60"};
  d.added_ptx = {"compute_120@8.8"};
  d.dropped_ptx = {"compute_120@8.7"};
  d.added_files = {"bitsandbytes/libbitsandbytes_cuda130.so"};
  d.dropped_files = {"bitsandbytes/libbitsandbytes_cuda117.so"};
  d.old_cuda = "11.7;12.6";
  d.new_cuda = "13";
  return {d};
}

TEST(IndexReport, DiffText) {
  EXPECT_EQ(render_diff_text(sample_diffs(), "bitsandbytes==0.45.3", "bitsandbytes==0.46.0",
                             Style::plain()),
            R"txt(old  bitsandbytes==0.45.3
new  bitsandbytes==0.46.0

bitsandbytes (x86_64): 0.45.3 → 0.46.0
  bitsandbytes-0.45.3-py3-none-manylinux_2_24_x86_64.whl → bitsandbytes-0.46.0-py3-none-manylinux_2_24_x86_64.whl
        added            dropped
  SASS  sm_103           sm_50 sm_60
  PTX   compute_120@8.8  compute_120@8.7
  + bitsandbytes/libbitsandbytes_cuda130.so
  − bitsandbytes/libbitsandbytes_cuda117.so
  CUDA runtime 11.7–12.6 (2 variants) → 13

1 of 1 compared package dropped a SASS or PTX target.
)txt");
  auto d = sample_diffs();
  d[0].dropped_sass.clear();  // an ISA change alone is no drop
  EXPECT_NE(render_diff_text(d, "a", "b", Style::plain()).find("No SASS or PTX target dropped."),
            std::string::npos);
}

TEST(IndexReport, DiffMarkdownAndJson) {
  std::string md = render_diff_markdown(sample_diffs(), "old.whl", "new.whl");
  EXPECT_NE(
      md.find("| bitsandbytes | x86\\_64 | 0.45.3 | 0.46.0 | sm\\_103 | **sm\\_50 sm\\_60** "
              "| compute\\_120@8.8 | **compute\\_120@8.7** | 11.7–12.6 (2 variants) → 13 |\n"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("**1 of 1 compared dropped a SASS or PTX target.**"), std::string::npos);
  testing::expect_json(diff_to_json(sample_diffs(), "old.whl", "new.whl", {"smcompat"}),
                       kIndexDiffSchema, R"json({
    "schema": "smcompat.index-diff/1", "argv": ["smcompat"], "old": "old.whl", "new": "new.whl",
    "dropped_any": true,
    "diffs": [{"package": "bitsandbytes", "machine": "x86_64", "old_version": "0.45.3",
               "new_version": "0.46.0",
               "old_filename": "bitsandbytes-0.45.3-py3-none-manylinux_2_24_x86_64.whl",
               "new_filename": "bitsandbytes-0.46.0-py3-none-manylinux_2_24_x86_64.whl",
               "old_cuda": "11.7;12.6", "new_cuda": "13", "added_sass": ["sm_103"],
               "dropped_sass": ["sm_50", "sm_60"], "added_ptx": ["compute_120@8.8"],
               "dropped_ptx": ["compute_120@8.7"],
               "added_files": ["bitsandbytes/libbitsandbytes_cuda130.so"],
               "dropped_files": ["bitsandbytes/libbitsandbytes_cuda117.so"],
               "dropped_any": true}]
  })json");
}

}  // namespace
}  // namespace smcompat
