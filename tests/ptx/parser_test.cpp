// Parser tests: hand-written PTX covering each construct, located errors on malformed input, and
// a truncation sweep (every prefix parses to a module or a located error).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "smcompat/ptx/module.hpp"

namespace smcompat::ptx {
namespace {

constexpr std::string_view kSample = R"(//
// hand-written sample
//
.version 8.7
.target sm_90a
.address_size 64

.extern .shared .align 16 .b8 dyn_smem[];
.global .align 4 .u32 counter = 0;
.const .align 8 .f64 table[2][3] = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0};

.visible .func (.param .b32 ret0) helper(.param .b32 x)
{
	.reg .b32 %r<3>;
	ld.param.b32 %r1, [x];
	add.s32 %r2, %r1, 1;
	st.param.b32 [ret0], %r2;
	ret;
}

.visible .entry kern(
	.param .u64 kern_param_0,
	.param .align 8 .b8 kern_param_1[16]
)
.maxntid 128, 1, 1
.minnctapersm 2
.reqnctapercluster 2, 1, 1
.explicitcluster
{
	.reg .pred %p<2>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<4>;
	.shared .align 16 .b8 tile[4096];
	.shared .align 8 .v2 .f32 pairs[8][4];

	mov.u32 %r1, %tid.x; // inline comment
	setp.eq.s32 %p1, %r1, 0;
	@!%p1 bra $L__BB0_2;
	mov.b32 %r2, %cluster_ctarank;
	{
	.reg .b32 tmp;
	mov.u32 tmp, 0f3F800000;
	}
$L__BB0_2:
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 16, [%r2];
	/* block
	   comment */
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ret;
}
)";

TEST(PtxParser, ReadsHeaderFunctionsAndStatements) {
  auto m = parse_module(kSample);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->version.major, 8);
  EXPECT_EQ(m->version.minor, 7);
  EXPECT_EQ(m->target_text, "sm_90a");
  ASSERT_TRUE(m->target);
  EXPECT_EQ(m->target->arch, 90);
  EXPECT_EQ(m->target->variant, ArchVariant::kArchSpecific);
  EXPECT_EQ(m->address_size, 64);
  ASSERT_EQ(m->functions.size(), 2u);

  const Function& helper = m->functions[0];
  EXPECT_FALSE(helper.is_entry);
  EXPECT_EQ(helper.name, "helper");
  ASSERT_EQ(helper.returns.size(), 1u);
  EXPECT_EQ(helper.returns[0].name, "ret0");
  ASSERT_EQ(helper.params.size(), 1u);

  const Function& k = m->functions[1];
  EXPECT_TRUE(k.is_entry);
  EXPECT_EQ(k.name, "kern");
  EXPECT_EQ(k.linkage, ".visible");
  EXPECT_EQ(k.loc.line, 21u);
  ASSERT_EQ(k.params.size(), 2u);
  EXPECT_EQ(k.params[1].name, "kern_param_1");
  EXPECT_EQ(k.params[1].size_bytes().value_or(0), 16u);
  EXPECT_EQ(k.params[1].align, 8u);
  ASSERT_TRUE(k.perf.maxntid);
  EXPECT_EQ((*k.perf.maxntid)[0], 128u);
  EXPECT_EQ(k.perf.minnctapersm.value_or(0), 2u);
  ASSERT_TRUE(k.perf.reqnctapercluster);
  EXPECT_EQ((*k.perf.reqnctapercluster)[0], 2u);
  EXPECT_TRUE(k.perf.explicitcluster);
  EXPECT_EQ(k.perf.items.size(), 4u);

  // Statements of the kernel.
  std::vector<const Statement*> insts;
  int labels = 0, decls = 0, blocks = 0;
  for (uint32_t i = 0; i < k.statement_count; ++i) {
    const Statement& s = m->statements[k.first_statement + i];
    if (s.kind == StatementKind::kInstruction) insts.push_back(&s);
    if (s.kind == StatementKind::kLabel) ++labels;
    if (s.kind == StatementKind::kDeclaration) ++decls;
    if (s.kind == StatementKind::kBlockBegin || s.kind == StatementKind::kBlockEnd) ++blocks;
  }
  EXPECT_EQ(labels, 1);
  EXPECT_EQ(decls, 6);
  EXPECT_EQ(blocks, 2);
  ASSERT_EQ(insts.size(), 9u);
  EXPECT_EQ(insts[0]->name, "mov.u32");
  EXPECT_EQ(insts[0]->opcode(), "mov");
  ASSERT_EQ(insts[0]->operand_count, 2u);
  EXPECT_EQ(m->operands_of(*insts[0])[1], "%tid.x");
  EXPECT_EQ(insts[2]->guard, "@!%p1");
  EXPECT_EQ(insts[2]->name, "bra");
  EXPECT_EQ(insts[5]->name, "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes");
  EXPECT_TRUE(insts[5]->has_modifier(".shared::cluster"));
  EXPECT_FALSE(insts[5]->has_modifier(".shared"));
  EXPECT_EQ(insts[5]->operand_count, 4u);
  EXPECT_EQ(m->operands_of(*insts[5])[0], "[%r1]");
  EXPECT_EQ(insts[5]->loc.line, 45u);
  EXPECT_EQ(insts[5]->loc.col, 2u);

  // Variables: sizes from type x vector x dimensions.
  auto vars = m->module_variables();
  ASSERT_EQ(vars.size(), 3u);
  EXPECT_EQ(vars[0]->name, "dyn_smem");
  EXPECT_TRUE(vars[0]->is_extern);
  EXPECT_FALSE(vars[0]->size_bytes());
  EXPECT_EQ(vars[2]->size_bytes().value_or(0), 48u);
  EXPECT_TRUE(vars[2]->has_initializer);
  bool found_pairs = false;
  for (const auto& v : m->variables)
    if (v.name == "pairs") {
      found_pairs = true;
      EXPECT_EQ(v.size_bytes().value_or(0), 8u * 8 * 4);
    }
  EXPECT_TRUE(found_pairs);
}

TEST(PtxParser, PrintedModuleParsesToTheSameStructure) {
  auto m = parse_module(kSample);
  ASSERT_TRUE(m.ok());
  std::string printed = print_module(*m);
  auto m2 = parse_module(printed);
  ASSERT_TRUE(m2.ok()) << m2.error().to_string() << "\n" << printed;
  ASSERT_EQ(m2->statements.size(), m->statements.size());
  for (size_t i = 0; i < m->statements.size(); ++i) {
    EXPECT_EQ(m2->statements[i].name, m->statements[i].name);
    EXPECT_EQ(m2->statements[i].operand_count, m->statements[i].operand_count);
  }
  EXPECT_EQ(print_module(*m2), printed);  // printing is a fixed point
}

TEST(PtxParser, OperandFormsAndStatementSpans) {
  // Operand shapes that take the fast path and ones that need the token path (comments, strings,
  // a call across lines), with spaces before ';': spans always end just after the ';'.
  constexpr std::string_view kText =
      ".version 8.0\n.target sm_80\n.entry k()\n{\n"
      "\tld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1+-16] ;\n"
      "\tmov.u32 %r5, %tid.x /* trailing */ ;\n"
      "\tcall.uni (retval0),\n\t\tfoo,\n\t\t(param0, param1);\n"
      "\t@!%p1 st.shared.u32 [sym+4], 0f3F800000;\n"
      "\tsetp.ne.and.b32 %p1|%p2, %r1, %r2, %p3;\n"
      "}\n";
  auto m = parse_module(kText);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  std::vector<std::vector<std::string>> expected = {{"{%r1, %r2, %r3, %r4}", "[%rd1+-16]"},
                                                    {"%r5", "%tid.x"},
                                                    {"(retval0)", "foo", "(param0, param1)"},
                                                    {"[sym+4]", "0f3F800000"},
                                                    {"%p1|%p2", "%r1", "%r2", "%p3"}};
  ASSERT_EQ(m->statements.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const Statement& st = m->statements[i];
    ASSERT_EQ(st.operand_count, expected[i].size()) << st.name;
    for (size_t k = 0; k < expected[i].size(); ++k)
      EXPECT_EQ(m->operands_of(st)[k], expected[i][k]) << st.name;
    EXPECT_EQ(kText[st.span.end - 1], ';') << st.name;
    EXPECT_EQ(
        kText.substr(st.span.begin, st.name.size() + st.guard.size() + (st.guard.empty() ? 0 : 1)),
        st.guard.empty() ? std::string(st.name)
                         : std::string(st.guard) + " " + std::string(st.name));
  }
  EXPECT_EQ(m->statements[2].loc.line, 7u);
  EXPECT_EQ(m->statements[3].loc.line, 10u);  // line counting continues across the fast path
  EXPECT_EQ(m->statements[4].loc.line, 11u);
}

// Malformed PTX with a ` where the error must point, and what the error must say.
struct BadCase {
  const char* marked_text;
  const char* reason;
};
const BadCase kBadCases[] = {
    {".version 8.0\n.target sm_80\n.entry k() {\n\t`mov.u32 %r1, 1\n}\n", "has no terminating ';'"},
    {".version 8.0\n.entry k`(\n", "no closing ')'"},
    {".version 8.0\n.entry k() `{\n\tret;\n", "no closing '}'"},
    {".version 8.0\n.entry k() {\n\tmov.u32 %r1, `\"abc;\n}\n", "unterminated string"},
    {".version 8.0\n`/* never closed\n", "unterminated /* comment"},
    {"`mov.u32 %r1, 2;\n", "expected a directive at top level"},
    {".version 8.0\n.entry k() {\n\tadd.s32 %r1, %r2, `];\n}\n", "unbalanced"},
    {".version 8.0\n.entry k() {\n\t@`;\n}\n", "expected a predicate"},
    {".version 8.0\n.entry k() {\n\tmov.u32 %r1,`, 1;\n}\n", "empty operand"},
    {".version 8.0\n.entry k() {\n\t`# bad;\n}\n", "unexpected character"},
    {"`.version\n", ".version needs one operand"},
    {".version 8.0\n.shared .b8 x`[zz];\n", "expected [N]"},
    {".version 8.0\n.entry k() `.maxntid {\n}\n", ".maxntid needs 1 to 3 numbers"},
    {".version 8.0\n.entry `42() {\n}\n", "expected a function name"},
};

TEST(PtxParser, MalformedInputGivesLocatedErrors) {
  for (const auto& c : kBadCases) {
    std::string text = c.marked_text;
    const size_t at = text.find('`');
    ASSERT_NE(at, std::string::npos) << c.marked_text;
    text.erase(at, 1);
    const SourceLoc want = locate(text, at);
    auto m = parse_module(text);
    ASSERT_FALSE(m.ok()) << text;
    std::string expect =
        "line " + std::to_string(want.line) + ", column " + std::to_string(want.col);
    EXPECT_NE(m.error().what.find(expect), std::string::npos)
        << "input:\n"
        << text << "\nerror: " << m.error().what;
    EXPECT_NE(m.error().what.find(c.reason), std::string::npos) << m.error().what;
    ASSERT_TRUE(m.error().offset);
    EXPECT_EQ(locate(text, *m.error().offset).line, want.line);
  }
}

TEST(PtxParser, EveryPrefixParsesOrFailsWithLocation) {
  std::string text(kSample);
  size_t ok = 0, errors = 0;
  for (size_t n = 0; n <= text.size(); ++n) {
    std::string prefix = text.substr(0, n);  // own buffer: ASan sees over-reads
    auto m = parse_module(prefix);
    if (m.ok()) {
      ++ok;
    } else {
      ++errors;
      ASSERT_TRUE(m.error().offset);
      EXPECT_LE(*m.error().offset, prefix.size());
      EXPECT_EQ(m.error().what.rfind("line ", 0), 0u) << m.error().what;
    }
  }
  EXPECT_GT(ok, 0u);
  EXPECT_GT(errors, 0u);
}

}  // namespace
}  // namespace smcompat::ptx
