// Package scaleout runs a pipeline as the array tasks of a scheduler.
//
// A pipeline compiles to a Plan (OUT/_plan.json): the sorted inputs split
// into shards by byte size, and phases, each an array of independent tasks.
// A global stage becomes map and reduce phases over Parquet intermediates
// under OUT/_work/:
//
//	dedup_exact    exact-map (per shard: distinct text hashes and the id
//	               of their first row, partitioned by hash range)
//	               → exact-reduce (per hash range: the hashes each shard
//	               shares with an earlier shard, with that first id)
//	dedup_minhash  minhash-sign (per shard: positions, ids, lengths, band
//	               hashes, signatures) → minhash-bucket (per band range:
//	               candidate pairs) → minhash-features (per shard: shingle
//	               sets or signatures of the shard's candidates)
//	               → minhash-link (verify, components, kept documents)
//
// then write (per shard: the whole pipeline, each global stage as a filter
// built from its intermediates, into data/part-<shard>-<n>.parquet,
// removed/, quarantine-<shard>.jsonl and manifest-<shard>.json) and merge
// (manifest.json, checked to add up).
//
// The first phase that reads a shard (exact-map, or minhash-sign without
// an exact stage) also keeps, in its folder, what the stages before the
// first global stage made of each batch it decoded (input.arrows and its
// companions, pipeline.Spill); the later phases over the shard replay it
// instead of reading, parsing and filtering the input again (spill.go).
//
// Every decision is taken in the global input order — shard order, then
// the order inside a shard — so the rows kept and removed, their reasons
// and the cluster ids are those of one process over the same input,
// whatever the number of tasks.
//
// A task writes only its own files, each under a temporary name renamed
// into place, and its completion marker last (OUT/_work/markers). A task
// whose marker exists does nothing; any other starts by removing what an
// interrupted attempt left. The done marker records the task's wall time
// from its process's start, the part of it spent outside the work (the
// process starting, the plan, the lease, moving files, the markers) and
// the process's peak memory; status sums them by phase (timing.go).
package scaleout
