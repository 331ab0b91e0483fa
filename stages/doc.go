// Package stages holds the pipeline stages that wrap the kernels: text
// normalization, PII masking and the published quality filters. Each stage
// finds the text column by name, runs its kernel over the whole column, and
// either filters (failing rows go to removed/ with the first rule they
// failed) or annotates (every row kept, with the signal columns, a keep
// column and a drop_reason column that all annotating stages share).
//
// Stages that rewrite text (normalization, PII masking, C4's line filter)
// rewrite it in both modes, so annotate mode marks keep=false on exactly
// the rows filter mode removes.
package stages
