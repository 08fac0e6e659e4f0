// Limits: the largest input each reader and command accepts. Past a limit the input is refused
// with exit 2 and a message naming the limit, so that every reader and command does work linear
// in what it was given (or n log n) instead of exhausting time or memory. docs/hardening.md
// ("Limits") lists each one with its reason; keep the two in step.
#pragma once

#include <cstddef>
#include <cstdint>

namespace planlayout {

// ---- Bytes read ---------------------------------------------------------------------------

/// Any input file or standard input: checked on stat before reading, and while reading pipes.
inline constexpr std::size_t kMaxInputBytes = std::size_t{256} << 20U;

/// A topology capture (import, lint): real ones are well under a megabyte.
inline constexpr std::size_t kMaxCaptureBytes = std::size_t{64} << 20U;

/// A framework or model config: torchtitan's TOML job config (`--torchtitan-config`), a Hugging
/// Face config.json (`--model-config`), a DeepSpeed ds_config.json (`--deepspeed-config`). Real
/// ones are a few kilobytes; a 248 MiB TOML took 49 s and 9.4 GB in toml++ before this limit.
inline constexpr std::size_t kMaxConfigBytes = std::size_t{4} << 20U;

/// The NCCL INFO logs one `verify` reads, all files together. A 2,048-node, 32-channel job logs
/// about 70 MB; logs are read line by line, and verify's peak memory is about twice their size
/// (the parsed connections).
inline constexpr std::size_t kMaxLogBytes = std::size_t{256} << 20U;

/// A layout or a cluster spec (the positional LAYOUT, `--model`, `--cluster`, a layout's
/// `"cluster": "file"`): real ones are a few kilobytes; the largest a real one can be is an
/// explicit placement of every rank at the node limit (2,097,152 `{"host": ..., "gpu": g}`
/// entries, about 80 MB). The parsed document costs about 16 bytes per JSON value on top of the
/// text, held twice (the request and the report): a 60 MB layout of one big array peaked at
/// 2.4 GB before the copies in plan() went.
inline constexpr std::size_t kMaxLayoutBytes = std::size_t{128} << 20U;

/// A node template JSON (`--node FILE`, a cluster's template file): real ones are 2 to 8 KB; one
/// of 512 GPUs and 512 NICs (kMaxGpusPerNode, kMaxNicsPerNode) with every device listed is under
/// 1 MB. A capture given as the template keeps its own limit (kMaxCaptureBytes).
inline constexpr std::size_t kMaxTemplateBytes = std::size_t{16} << 20U;

/// A diagram style (`--style`): a few dozen keys; real ones are under 4 KB.
inline constexpr std::size_t kMaxStyleBytes = std::size_t{1} << 20U;

/// A hostfile (`--hostfile`, a layout's `"hostfile"`): one line per host (kMaxHostfileHosts);
/// 256 bytes a line at the node limit is 64 MiB (real lines are 20 to 40 bytes).
inline constexpr std::size_t kMaxHostfileBytes = std::size_t{64} << 20U;

/// A training step log (`--measured-step ARM=LOG`, `ab`, `acceptance`): Megatron logs a line of
/// about 500 bytes a step, so 128 MiB holds some 250,000 steps (real runs compared are a few
/// hundred to a few thousand); the parsed series keeps a few numbers a step.
inline constexpr std::size_t kMaxStepLogBytes = std::size_t{128} << 20U;

// ---- Structure of a document --------------------------------------------------------------

/// Nesting of JSON arrays and objects (layouts, templates, calibrations, step logs): real inputs
/// are under 10 levels; the limit keeps every recursive walk far from the stack's end.
inline constexpr std::size_t kMaxJsonDepth = 256;

/// One JSON string or number, in bytes. Names, paths and numbers are short; the JSON parser
/// copies a token twice and quotes it whole in its error, so a 256 MiB token took 25 s and 2 GB.
inline constexpr std::size_t kMaxJsonTokenBytes = std::size_t{1} << 20U;

/// Nesting of XML elements (hwloc, NCCL XML), checked before boost::property_tree (recursive).
inline constexpr std::size_t kMaxXmlDepth = 256;

/// Nesting of YAML sequences and mappings (Slurm topology.yaml), counted on libyaml's events
/// before the document is built: libyaml's scanner is quadratic in flow nesting (100,000 nested
/// `[` took 55 s) and real files are 5 levels deep.
inline constexpr std::size_t kMaxYamlDepth = 256;

/// Nesting of a TOML document (torchtitan configs): the parts of a dotted key or table header
/// plus the inline tables and arrays around it, counted before toml++ parses (it recurses per
/// key part: a key of 50,000 parts overflowed the stack). Real configs are 2 levels deep.
inline constexpr std::size_t kMaxTomlDepth = 256;

// ---- Sizes of what the inputs describe ----------------------------------------------------

/// GPUs in one node template (any capture or template JSON). Real nodes have 8 to 16; a
/// template stores and classifies every device pair, so devices² must stay small.
inline constexpr std::int64_t kMaxGpusPerNode = 512;

/// NICs in one node template (compute, storage and management together). Same reason.
inline constexpr std::int64_t kMaxNicsPerNode = 512;

/// Nodes in a cluster.
inline constexpr std::int64_t kMaxNodes = 262144;

/// Host lines in a hostfile: one per node, so the node limit.
inline constexpr std::int64_t kMaxHostfileHosts = kMaxNodes;

/// Names a Slurm topology.conf expands to: per hostlist and for the whole file (node and switch
/// names together). A real file lists a few thousand.
inline constexpr std::size_t kMaxSlurmNames = 1000000;

/// A launch script (`--megatron-args`): real ones are a few kilobytes. The reader keeps the line
/// of every byte it reads or expands (4 bytes each), so the script and what it expands to are
/// bounded separately.
inline constexpr std::size_t kMaxLaunchScriptBytes = std::size_t{4} << 20U;

/// Bytes a launch script's expansions produce in all (every $X, ${A[@]}, $((...)) counted each
/// time it is expanded): `A="$A$A"` twenty times would otherwise need a megabyte per byte of A.
inline constexpr std::size_t kMaxLaunchExpansionBytes = std::size_t{16} << 20U;

/// Characters of the list of near names an error message offers ("devices there: ...").
inline constexpr std::size_t kMaxNearNamesChars = 120;

/// Words of the training commands of one launch script.
inline constexpr std::size_t kMaxLaunchWords = 1000000;

/// Nesting in a launch script: `eval`, `bash -c` and here-documents read as script inside one
/// another, `${` inside `${` (deeper parentheses in $((...)) leave it unevaluated); each level is
/// a recursive call.
inline constexpr int kMaxLaunchNesting = 32;

/// Ranks in a parallel spec.
inline constexpr std::int64_t kMaxWorld = std::int64_t{1} << 31;

/// Rank entries a `groups --format json` listing may hold (about 1 GiB of JSON).
inline constexpr std::int64_t kMaxGroupEntries = std::int64_t{1} << 27;

/// Candidate layouts one `search` enumerates (size combinations x orders x vpp sizes, counted
/// before any is evaluated). Each evaluation costs about a third of a millisecond: the 16,384-GPU
/// MoE benchmark has a few thousand; a world with many divisors (180,180 nodes x 8) has millions.
inline constexpr std::int64_t kMaxSearchCandidates = 250000;

}  // namespace planlayout
