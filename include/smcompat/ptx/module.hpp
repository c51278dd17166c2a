// A parsed PTX module: header directives, module-scope variables, and functions (.entry/.func)
// with their parameters, performance directives (.maxntid, .reqntid, .minnctapersm, .maxnreg,
// .reqnctapercluster, .explicitcluster, .maxclusterrank) and body statements (labels,
// instructions with their dotted modifiers, operands and guard predicate, declarations,
// pragmas, nested blocks). Grammar: PTX ISA 9.0, chapters "Syntax", "State Spaces, Types and
// Variables", "Directives" and "Instruction Statements".
//
// The module is zero-copy: every string_view points into the text given to parse_module(), which
// must outlive the module. Statements keep byte ranges so tools can edit the original text.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/catalog/sm_target.hpp"
#include "smcompat/ptx/lexer.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::ptx {

/// A byte range [begin, end) of the source text.
struct Span {
  uint32_t begin = 0;
  uint32_t end = 0;
};

/// A variable declaration (.reg, .shared, .local, .global, .const, .param): one per name.
struct Variable {
  std::string_view space;  ///< ".shared"
  std::string_view type;   ///< ".b8", ".u32", ".f32", ".pred" ("" if none)
  std::string_view name;
  uint32_t align = 0;         ///< .align N (0 if not given)
  uint32_t vector = 1;        ///< .v2/.v4/.v8
  uint64_t element_size = 0;  ///< bytes of one element (0 for .pred or unknown types)
  std::optional<uint64_t>
      array_count;           ///< product of the [N] dimensions (1 if none); nullopt for []
  uint32_t param_count = 0;  ///< %r<N> parameterised names: N (0 if not parameterised)
  bool is_extern = false;    ///< .extern (e.g. dynamic shared memory `.extern .shared .b8 s[];`)
  bool has_initializer = false;
  SourceLoc loc;

  /// Size in bytes (UINT64_MAX when it does not fit in 64 bits), or nullopt for unsized arrays
  /// (extern shared) and unknown element types.
  std::optional<uint64_t> size_bytes() const;
};

enum class StatementKind : uint8_t {
  kInstruction,
  kLabel,
  kDeclaration,  ///< `.reg/.shared/.local/.param/.const/.global` inside a function
  kDirective,    ///< any other directive inside a body (.pragma, .loc, .callprototype, ...)
  kBlockBegin,   ///< `{` of a nested block
  kBlockEnd,     ///< `}` of a nested block
};

/// One statement in a function body.
struct Statement {
  StatementKind kind = StatementKind::kInstruction;
  SourceLoc loc;
  Span span;                   ///< source bytes of the whole statement (including `;`)
  std::string_view guard;      ///< instruction: "@%p1", "@!%p2" or ""
  std::string_view name;       ///< instruction: "ld.global.nc.v4.u32"; label: "$L__BB0_1";
                               ///< directive/declaration: the directive (".pragma", ".shared")
  uint32_t first_operand = 0;  ///< index into Module::operands
  uint32_t operand_count = 0;
  uint32_t first_variable = 0;  ///< declaration: index into Module::variables
  uint32_t variable_count = 0;
  uint32_t first_token = 0;  ///< declaration/directive: its tokens in Module::tokens
  uint32_t token_count = 0;

  /// The opcode (text before the first '.'): "ld".
  std::string_view opcode() const { return name.substr(0, name.find('.')); }
  /// True if the instruction carries modifier `m` (with its dot, e.g. ".shared::cluster").
  bool has_modifier(std::string_view m) const;
};

/// The performance-tuning and cluster directives of a kernel (PTX ISA "Performance-Tuning
/// Directives" and "Cluster Dimension Directives").
struct PerfDirectives {
  std::optional<std::array<uint32_t, 3>> maxntid, reqntid, reqnctapercluster;
  std::optional<uint32_t> minnctapersm, maxnreg, maxclusterrank;
  bool explicitcluster = false;
  bool noreturn = false;
  /// Every such directive as found, with its span (so it can be edited).
  struct Item {
    std::string_view directive;
    Span span;
    SourceLoc loc;
  };
  std::vector<Item> items;
};

struct Function {
  bool is_entry = false;  ///< .entry (a kernel) or .func
  bool has_body = false;  ///< false for declarations (`.extern .func f(...);`)
  std::string_view name;
  std::string_view linkage;       ///< ".visible", ".extern", ".weak", ".common" or ""
  SourceLoc loc;                  ///< location of the name
  Span span;                      ///< the whole definition
  std::vector<Variable> params;   ///< input parameters
  std::vector<Variable> returns;  ///< .func return parameters
  PerfDirectives perf;
  uint32_t first_token = 0;  ///< header tokens (linkage up to, not including, the body's `{`)
  uint32_t token_count = 0;
  uint32_t first_statement = 0;  ///< index into Module::statements
  uint32_t statement_count = 0;
};

/// A top-level item in source order (for printing).
struct TopItem {
  enum class Kind : uint8_t { kDirective, kVariable, kFunction } kind = Kind::kDirective;
  uint32_t index = 0;  ///< kDirective: into directives; kVariable: into variable_decls;
                       ///< kFunction: into functions
};

/// A top-level directive kept as tokens (.version, .target, .file, .section, .pragma, ...).
struct TopDirective {
  std::string_view name;  ///< ".version"
  SourceLoc loc;
  Span span;
  uint32_t first_token = 0;  ///< into Module::tokens
  uint32_t token_count = 0;
};

/// A top-level variable declaration statement (may declare several names).
struct TopVariables {
  Span span;
  uint32_t first_variable = 0;  ///< into Module::variables
  uint32_t variable_count = 0;
  uint32_t first_token = 0;
  uint32_t token_count = 0;
};

struct Module {
  std::string_view source;
  Version version;                 ///< .version
  std::string_view target_text;    ///< .target operands as written: "sm_90a" or "sm_80, debug"
  std::optional<SmTarget> target;  ///< first .target operand, parsed
  int address_size = 0;
  SourceLoc version_loc, target_loc;
  Span version_span, target_span;  ///< spans of the .version and .target directives

  std::vector<TopItem> items;
  std::vector<TopDirective> directives;
  std::vector<TopVariables> variable_decls;
  std::vector<Function> functions;
  std::vector<Statement> statements;
  std::vector<std::string_view> operands;
  std::vector<Variable> variables;  ///< module-scope and function-scope declarations
  std::vector<Token> tokens;        ///< tokens of directives and declarations kept for printing

  /// Operands of an instruction statement.
  const std::string_view* operands_of(const Statement& s) const {
    return operands.data() + s.first_operand;
  }
  /// Module-scope variables (all top-level declarations).
  std::vector<const Variable*> module_variables() const;
  const Function* find_function(std::string_view name) const;
};

/// Parses PTX text. Errors say "line L, column C: reason" and carry the byte offset.
Result<Module> parse_module(std::string_view text);

/// Prints the module back as PTX: header and declarations from their tokens (original spacing
/// normalised to one space per gap), instructions from their parsed parts. The result assembles
/// wherever the input did (tested with ptxas on toolkit PTX).
std::string print_module(const Module& module);

/// Line and column of a byte offset in `text` (1-based).
SourceLoc locate(std::string_view text, uint64_t offset);

}  // namespace smcompat::ptx
