// Package pipefile reads pipeline files and builds their stages.
//
// A pipeline file (File) names the inputs, the output, the settings every
// stage shares (text field, annotate, quality profile, workers, overwrite)
// and the ordered stages, each `- name: {parameters}`. ParseFile reads
// one, filling in the defaults (text field text, profile paper) and
// keeping each stage's parameters as a YAML node (Spec) with its file and
// line; unknown keys and malformed stages are errors naming them.
//
// Build makes the stage a Spec names from the registry: it starts from the
// stage's defaults (the parameter types and their defaults are in package
// stages), decodes the spec's parameters over them with DecodeStrict
// (unknown keys are errors naming the file, line and the known keys) and
// calls the stage's constructor with the shared settings (Common). The
// quality rule sets start from the run's profile, and their parameters
// are the rule set's own part of the quality config. The registry is
// checked once, on first use: a stage registered twice or without a
// builder, or a quality rule set without its part of the config, is an
// error from Build, never a panic. An unknown stage is an error that
// lists the known ones (Names).
//
// The commands build stages from flags the same way, with Specs made from
// the flags' values (File and Where name the flag).
package pipefile
