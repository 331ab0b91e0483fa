package scaleout

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"

	"github.com/sluice-data/sluice/io/blob"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/pipeline"
)

// The input read once. The first phase that reads a shard (the first
// global stage's first phase: exact-map, minhash-sign) writes the batches
// it decoded, before any stage, into its work folder as a spill
// (pipeline.Spill: input.arrows, input.units.jsonl, input.json); the later
// phases over the shard (minhash-sign after exact-map, minhash-features,
// write) replay it instead of reading and parsing the input, and get the
// same batches with the same line numbers, quarantined lines and input
// counts, so their output is the same. The spill goes with the phase's
// other intermediates: uploaded with them to an object store, removed
// with them after the merge. A spill that is missing, or whose files do
// not have the sizes its index records, is not used: the phase reads the
// input. One found damaged while replayed fails the task and is removed,
// so that the task's next attempt reads the input. Parquet inputs are not
// spilled: reading them again costs little.

// spillCodec compresses the spilled batches. Measured on bench/launch.sh's
// corpus (a shard of 7,500 documents, 23.5 MB of JSONL): uncompressed the
// spill is 23 MB and costs exact-map 0.06 s of CPU to write; LZ4 makes it
// 16 MB for 0.24 s, ZSTD 8.7 MB for 0.35 s (the writing is in input order,
// one batch at a time); replaying costs the same with each. The phases
// after read a shard's spill once each, from a local disk or the store:
// not compressing is cheapest.
const spillCodec = ""

// spillPhase returns the phase whose tasks spill their shard's input:
// the first phase of one task per shard, unless it is the write, which
// no phase reads after.
func (t *task) spillPhase() (Phase, bool) {
	for _, ph := range t.plan.Phases {
		if ph.Kind == Write || ph.Kind == Merge {
			return Phase{}, false
		}
		st, err := t.build(ph.Stage)
		if err != nil {
			return Phase{}, false
		}
		sh, ok := st.(pipeline.Sharded)
		if !ok {
			continue
		}
		for _, sp := range sh.Sharding().Phases {
			if Kind(sp.Name) == ph.Kind && sp.PerShard() {
				return ph, true
			}
		}
	}
	return Phase{}, false
}

// spillAfter is the number of stages whose results a spill keeps: the
// stages of the pass (sts) before the global stage g, which run the same
// way in every phase over the shard, unless one of them reports what it
// saw (a replay does not run them) or is a sharded stage that runs as
// itself; then none, and the spill keeps the batches as read.
func spillAfter(sts []pipeline.Stage, g int) int {
	if g > len(sts) {
		return 0
	}
	for _, st := range sts[:g] {
		_, reports := st.(pipeline.Reporter)
		_, sharded := st.(pipeline.Sharded)
		if reports || sharded {
			return 0
		}
	}
	return g
}

// spillPath is the path (a URL for an object-store output) of a file of
// shard s's spill.
func (p *Plan) spillPath(ph Phase, s int, name string) string {
	return p.path("_work", ph.Name, fmt.Sprintf("%05d", s), name)
}

// spill says how the task's pass over shard s with the stages sts spills
// or replays its input.
func (t *task) spill(s int, sts []pipeline.Stage) *pipeline.Spill {
	if t.plan.NoSpill {
		return nil
	}
	inputs := t.plan.shardInputs(s)
	if len(inputs) == 0 || inputs[0].Format == input.Parquet {
		return nil
	}
	ph, ok := t.spillPhase()
	if !ok {
		return nil
	}
	if ph.Name == t.phase.Name {
		return &pipeline.Spill{Dir: t.plan.workDir(ph, s), Codec: spillCodec, After: spillAfter(sts, ph.Stage)}
	}
	at := slices.IndexFunc(t.plan.Phases, func(p Phase) bool { return p.Name == t.phase.Name })
	if at < slices.IndexFunc(t.plan.Phases, func(p Phase) bool { return p.Name == ph.Name }) {
		return nil
	}
	index := t.plan.spillPath(ph, s, pipeline.SpillIndexName)
	b, _, err := storeOf(index).read(index)
	if err != nil {
		return nil
	}
	idx := &pipeline.SpillIndex{}
	if json.Unmarshal(b, idx) != nil {
		return nil
	}
	for name, f := range idx.Files {
		if size, err := sizeOf(t.ctx, t.plan.spillPath(ph, s, name)); err != nil || size != f.Bytes {
			return nil
		}
	}
	return &pipeline.Spill{Replay: idx, Open: func(name string) (io.ReadCloser, error) {
		p := t.plan.spillPath(ph, s, name)
		if blob.IsURL(p) {
			return blob.NewReader(t.ctx, p, 0, -1)
		}
		return os.Open(p)
	}}
}

// dropSpill removes the index of shard s's spill, found damaged: the
// next attempt reads the input.
func (t *task) dropSpill(s int) error {
	ph, ok := t.spillPhase()
	if !ok {
		return nil
	}
	index := t.plan.spillPath(ph, s, pipeline.SpillIndexName)
	if err := storeOf(index).remove(index); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// isSpill reports whether rel, a path under the output, is a file of a
// spill: a task downloads none with the intermediates, it reads its own
// shard's from the store.
func isSpill(rel string) bool {
	switch path.Base(rel) {
	case pipeline.SpillIndexName, pipeline.SpillBatchesName, pipeline.SpillRemovedName, pipeline.SpillUnitsName:
		return true
	}
	return false
}
