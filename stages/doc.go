// Package stages holds the pipeline stages (pipeline.Stage) that wrap the
// kernels, each with its parameters: an XxxParams struct (for Quality,
// the kernel's quality.Config) whose yaml and json keys are how pipeline
// files write it and manifests record it, and a NewXxx constructor that
// checks it (with DefaultXxxParams where a stage has defaults of its own).
//
//   - Rewriting and filtering stages: Normalize, PII masking, URLFilter,
//     Extract (HTML from WARC responses to text), Lang and Classify
//     (fastText models), Quality (one published rule set: gopher_quality,
//     gopher_repetition, c4, fineweb) and Decontaminate (evaluation
//     n-gram overlap).
//   - Dedup stages: ExactDedup (one pass, first occurrence kept),
//     GlobalLines (repeated lines: a counting pass, then a rewriting pass)
//     and GlobalMinHash (near duplicates: passes that sign, verify and link
//     the documents through a MinHashIndex, then a filter). A global
//     stage's passes over the whole input (Prepare) run before the writing
//     pass, which runs its Filter. The clustering itself (band buckets, union-find,
//     the kept document of each cluster) is in kernels/minhash; the
//     signing and filtering passes and the cluster lookups here are what a
//     sharded run reuses task by task.
//   - Accounting stages that drop nothing: Tokens (token counts per row
//     and per group), and ProbeSample, TextRowCount and CanarySplice for
//     memorization probes and canaries.
//
// Each stage finds the text column by name, runs its kernel over the
// whole column, and either filters (failing rows go to removed/ with the
// first rule they failed) or annotates (every row kept, with the signal
// columns, a keep column and a drop_reason column that all annotating
// stages share). Stages that rewrite text (normalization, PII masking,
// C4's line filter) rewrite it in both modes, so annotate mode marks
// keep=false on exactly the rows filter mode removes.
//
// Pipeline files and the registry that builds stages from their YAML
// specs are in pipeline/pipefile, which imports this package.
package stages
