// Package provenance treats sluice outputs as versions, the way code has
// them: Verify proves an output is what its manifest says (hashes, row
// counts, the counts invariant, the shard manifests of a launched output);
// Log walks the history of parent versions that the manifests record;
// Trace follows one row through that history; PlanRerun and Reproduced
// rebuild a version from its recorded command and tell whether the
// rebuild wrote the same bytes. The row diff of two versions is package
// diff.
package provenance
