package dataset

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/sluice-data/sluice/io/layout"
)

// Manifest is manifest.json: the provenance of a dataset and the proof
// that every input row is accounted for (rows_in == rows_out + removed +
// quarantined).
type Manifest struct {
	// Format names the layout (layout.Format): a directory is a sluice
	// dataset only when its manifest says so.
	Format string `json:"format"`
	// VersionID is the dataset's content hash (see VersionID), filled in
	// by WriteManifest.
	VersionID string `json:"version_id,omitempty"`
	// Parents are the sluice outputs the run read as input (see
	// ParentsOf), filled in by WriteManifest.
	Parents  []Parent          `json:"parents,omitempty"`
	Tool     string            `json:"tool"`
	Version  string            `json:"version"`
	Command  []string          `json:"command"`
	Options  any               `json:"options"`
	Schema   json.RawMessage   `json:"schema"`
	Inputs   []InputFile       `json:"inputs"`
	Outputs  []OutputFile      `json:"outputs"`
	Removed  []OutputFile      `json:"removed_outputs,omitempty"`
	Side     map[string]string `json:"side_outputs,omitempty"`
	Stages   []StageCounts     `json:"stages,omitempty"`
	Counts   Counts            `json:"counts"`
	Errors   []string          `json:"errors,omitempty"`
	Started  string            `json:"started"`
	WallSecs float64           `json:"wall_seconds"`
	// Files are every file of the output, relative to its directory (the
	// dataset directory, or the folder of a one-file output), the
	// manifest aside: what --overwrite may remove, and nothing else.
	Files []string `json:"files,omitempty"`
	// WorkDir is the working directory of the run: the relative paths
	// of Command and Inputs are relative to it.
	WorkDir string `json:"working_dir,omitempty"`
	// Artifact, when set, says what the one file of the output is (a
	// report, a dataset card, a model ...): an output that holds no rows,
	// written through an Artifact.
	Artifact string `json:"artifact,omitempty"`
	// Report is what the command that wrote an artifact found, for those
	// that tell.
	Report any `json:"report,omitempty"`
}

// ReadManifest reads a manifest written by WriteManifest.
func ReadManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("not a sluice manifest: %w", err)
	}
	if m.Format != layout.Format {
		return nil, fmt.Errorf("not a sluice manifest (format %q, want %q)", m.Format, layout.Format)
	}
	return &m, nil
}

// InputFile describes one input.
type InputFile struct {
	Path        string `json:"path"`
	Format      string `json:"format"`
	Compression string `json:"compression,omitempty"`
	Bytes       int64  `json:"bytes"`
	Hash        string `json:"xxhash64"`
	Rows        int64  `json:"rows"`
	Quarantined int64  `json:"quarantined"`
	BlankLines  int64  `json:"blank_lines,omitempty"`
	// SkippedRecords counts WARC records of types not read (--warc-types).
	SkippedRecords int64  `json:"skipped_records,omitempty"`
	Error          string `json:"error,omitempty"`
}

// StageCounts is what one pipeline stage did.
type StageCounts struct {
	Name     string           `json:"name"`
	Config   any              `json:"config,omitempty"`
	RowsIn   int64            `json:"rows_in"`
	RowsOut  int64            `json:"rows_out"`
	Removed  map[string]int64 `json:"removed,omitempty"`
	Inserted int64            `json:"inserted,omitempty"` // rows the stage added
	Seconds  float64          `json:"seconds"`
	Report   any              `json:"report,omitempty"` // what the stage found, for stages that tell
}

// Add adds what a stage did with more batches (or another shard) to c.
func (c *StageCounts) Add(o StageCounts) {
	c.RowsIn += o.RowsIn
	c.RowsOut += o.RowsOut
	c.Seconds += o.Seconds
	c.Inserted += o.Inserted
	for r, n := range o.Removed {
		if c.Removed == nil {
			c.Removed = map[string]int64{}
		}
		c.Removed[r] += n
	}
}

// Counts are the totals.
type Counts struct {
	RowsIn       int64 `json:"rows_in"`
	RowsOut      int64 `json:"rows_out"`
	Removed      int64 `json:"removed"`
	Quarantined  int64 `json:"quarantined"`
	UTF8Repaired int64 `json:"utf8_repaired"`
	MissingText  int64 `json:"missing_text"`
	// Inserted counts rows a stage added (canaries planted as rows of
	// their own): they are in rows_out without being in rows_in.
	Inserted int64 `json:"inserted,omitempty"`
}

// Add adds the counts of more rows (another shard's) to c.
func (c *Counts) Add(o Counts) {
	c.RowsIn += o.RowsIn
	c.RowsOut += o.RowsOut
	c.Removed += o.Removed
	c.Quarantined += o.Quarantined
	c.UTF8Repaired += o.UTF8Repaired
	c.MissingText += o.MissingText
	c.Inserted += o.Inserted
}

// Check verifies that the counts add up.
func (c Counts) Check() error {
	if c.RowsIn+c.Inserted != c.RowsOut+c.Removed+c.Quarantined {
		return fmt.Errorf("manifest: rows do not add up: rows_in %d + inserted %d != rows_out %d + removed %d + quarantined %d",
			c.RowsIn, c.Inserted, c.RowsOut, c.Removed, c.Quarantined)
	}
	return nil
}

// WriteManifest writes m as indented JSON to path, atomically. It fills
// in m's version id, its parents, when not set, and the working directory.
func WriteManifest(path string, m *Manifest) error {
	b, err := EncodeManifest(m)
	if err != nil {
		return err
	}
	return WriteFile(path, b)
}

// EncodeManifest fills in what WriteManifest records (the format, the
// version id, the parents and the working directory) and returns m as the
// bytes of manifest.json. It fails on what JSON cannot hold (a NaN or an
// infinity in a stage's config, say), which is why a commit encodes the
// manifest before it touches the previous output.
func EncodeManifest(m *Manifest) ([]byte, error) {
	m.Format = layout.Format
	stamp(m)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WriteFile writes data to path atomically: under a temporary name in the
// same directory (created if missing), renamed into place once complete,
// so a reader never sees half a file and a crash leaves no partial one.
func WriteFile(path string, data []byte) error {
	af, err := CreateAtomic(path)
	if err != nil {
		return err
	}
	if _, err := af.Write(data); err != nil {
		af.Abort()
		return err
	}
	return af.Commit()
}
