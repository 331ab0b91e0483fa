package report

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"go.yaml.in/yaml/v3"
)

// CardOptions are what a dataset card says that no manifest knows.
type CardOptions struct {
	License string // a Hugging Face license id; "" is "unknown"
}

// The YAML front matter of a Hugging Face dataset card.
type cardMeta struct {
	PrettyName     string      `yaml:"pretty_name"`
	License        string      `yaml:"license"`
	Language       []string    `yaml:"language,omitempty"`
	SizeCategories []string    `yaml:"size_categories"`
	Tags           []string    `yaml:"tags"`
	Configs        []cardCfg   `yaml:"configs"`
	DatasetInfo    cardDataset `yaml:"dataset_info"`
}

type cardCfg struct {
	ConfigName string      `yaml:"config_name"`
	DataFiles  []cardFiles `yaml:"data_files"`
}

type cardFiles struct {
	Split string `yaml:"split"`
	Path  string `yaml:"path"`
}

type cardDataset struct {
	Features    []cardFeature `yaml:"features"`
	Splits      []cardSplit   `yaml:"splits"`
	DownloadSz  int64         `yaml:"download_size"`
	DatasetSize int64         `yaml:"dataset_size"`
}

type cardSplit struct {
	Name        string `yaml:"name"`
	NumBytes    int64  `yaml:"num_bytes"`
	NumExamples int64  `yaml:"num_examples"`
}

// cardFeature is one feature in the datasets library's YAML form: a
// dtype, a struct of features, or a sequence of one.
type cardFeature struct {
	Name     string        `yaml:"name,omitempty"`
	Dtype    string        `yaml:"dtype,omitempty"`
	Struct   []cardFeature `yaml:"struct,omitempty"`
	Sequence *cardFeature  `yaml:"sequence,omitempty"`
}

// feature maps an Arrow type to the datasets library's feature.
func feature(name string, dt arrow.DataType) cardFeature {
	f := cardFeature{Name: name}
	switch t := dt.(type) {
	case *arrow.StructType:
		for _, c := range t.Fields() {
			f.Struct = append(f.Struct, feature(c.Name, c.Type))
		}
	case arrow.ListLikeType:
		el := feature("", t.Elem())
		f.Sequence = &el
	default:
		f.Dtype = dtype(dt)
	}
	return f
}

func dtype(dt arrow.DataType) string {
	switch dt.ID() {
	case arrow.STRING:
		return "string"
	case arrow.LARGE_STRING:
		return "large_string"
	case arrow.BOOL:
		return "bool"
	case arrow.BINARY, arrow.LARGE_BINARY:
		return "binary"
	case arrow.FLOAT16:
		return "float16"
	case arrow.TIMESTAMP:
		t := dt.(*arrow.TimestampType)
		if t.TimeZone != "" {
			return fmt.Sprintf("timestamp[%s, tz=%s]", t.Unit, t.TimeZone)
		}
		return fmt.Sprintf("timestamp[%s]", t.Unit)
	case arrow.NULL:
		return "null"
	}
	return dt.String() // int64, float64, int32, uint8, date32 ... as Arrow names them
}

// sizeCategory is the Hugging Face size category of n rows.
func sizeCategory(n int64) string {
	bounds := []struct {
		max  int64
		name string
	}{{1e3, "n<1K"}, {1e4, "1K<n<10K"}, {1e5, "10K<n<100K"}, {1e6, "100K<n<1M"}, {1e7, "1M<n<10M"},
		{1e8, "10M<n<100M"}, {1e9, "100M<n<1B"}, {1e10, "1B<n<10B"}, {1e11, "10B<n<100B"}, {1e12, "100B<n<1T"}}
	for _, b := range bounds {
		if n < b.max {
			return b.name
		}
	}
	return "n>1T"
}

// WriteCard writes a dataset card for the last dataset of the report, to
// be saved as README.md beside its data/ folder.
func WriteCard(w io.Writer, rep *Report, o CardOptions) error {
	last := rep.Runs[len(rep.Runs)-1]
	m := last.Manifest
	name := filepath.Base(filepath.Clean(last.Path))
	meta := cardMeta{PrettyName: name, License: o.License, SizeCategories: []string{sizeCategory(m.Counts.RowsOut)},
		Tags: []string{"sluice"}}
	if meta.License == "" {
		meta.License = "unknown"
	}
	// Languages with at least 1% of the rows, most first.
	for _, l := range rep.Languages {
		if l.Name != "(null)" && l.Name != "" && l.Rows*100 >= m.Counts.RowsOut {
			meta.Language = append(meta.Language, l.Name)
		}
	}
	var dataGlob string
	var bytesOut int64
	for _, f := range last.data {
		rel, _ := filepath.Rel(last.Dir, f)
		rel = filepath.ToSlash(rel)
		if dir := filepath.ToSlash(filepath.Dir(rel)); dir != "." {
			dataGlob = dir + "/*.parquet"
		} else if dataGlob == "" {
			dataGlob = rel
		}
	}
	for _, out := range m.Outputs {
		bytesOut += out.Bytes
	}
	if dataGlob == "" {
		dataGlob = "data/*.parquet"
	}
	meta.Configs = []cardCfg{{ConfigName: "default", DataFiles: []cardFiles{{Split: "train", Path: dataGlob}}}}
	for _, c := range rep.Schema {
		meta.DatasetInfo.Features = append(meta.DatasetInfo.Features, feature(c.Name, c.dt))
	}
	meta.DatasetInfo.Splits = []cardSplit{{Name: "train", NumBytes: bytesOut, NumExamples: m.Counts.RowsOut}}
	meta.DatasetInfo.DownloadSz, meta.DatasetInfo.DatasetSize = bytesOut, bytesOut

	var b bytes.Buffer
	b.WriteString("---\n# written by sluice report\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(meta); err != nil {
		return err
	}
	enc.Close()
	b.WriteString("---\n\n")
	fmt.Fprintf(&b, "# %s\n\n", mdText(name))
	fmt.Fprintf(&b, "%s rows of text (%s of Parquet)", thousands(m.Counts.RowsOut), humanBytes(bytesOut))
	if rep.Tokens != nil {
		fmt.Fprintf(&b, ", %s tokens", thousands(rep.Tokens.Total))
		if rep.Tokens.Tokenizer != "" {
			fmt.Fprintf(&b, " (%s)", rep.Tokens.Tokenizer)
		}
	}
	fmt.Fprintf(&b, ", made by sluice %s from %s input rows.\n\n", m.Version, thousands(rep.Counts.RowsIn))

	b.WriteString("## Processing\n\n")
	for i, r := range rep.Runs {
		fmt.Fprintf(&b, "%d. `%s`\n", i+1, mdCode(shellJoin(r.Manifest.Command)))
	}
	b.WriteString("\n| stage | rows in | rows out | removed |\n| --- | ---: | ---: | --- |\n")
	for _, s := range rep.Funnel {
		var parts []string
		for _, c := range s.Removed {
			parts = append(parts, fmt.Sprintf("%s %s", mdText(c.Name), thousands(c.Rows)))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdText(rep.stepName(s)), thousands(s.RowsIn), thousands(s.RowsOut), strings.Join(parts, ", "))
	}
	fmt.Fprintf(&b, "\n%s rows read = %s written + %s removed + %s quarantined", thousands(rep.Counts.RowsIn), thousands(rep.Counts.RowsOut),
		thousands(rep.Counts.Removed), thousands(rep.Counts.Quarantined))
	if rep.Counts.Inserted > 0 {
		fmt.Fprintf(&b, " − %s inserted", thousands(rep.Counts.Inserted))
	}
	b.WriteString(". The effective config of every stage and the inputs with their hashes are in `manifest.json`.\n\n")

	b.WriteString("## Statistics\n\n")
	if len(rep.Languages) > 0 {
		b.WriteString("| language | rows | share |\n| --- | ---: | ---: |\n")
		for i, l := range rep.Languages {
			if i == rep.opts.Top {
				break
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", mdText(l.Name), thousands(l.Rows), l.RowShare)
		}
		b.WriteString("\n")
	}
	if t := rep.Tokens; t != nil {
		fmt.Fprintf(&b, "Tokens per document: p50 %d, p90 %d, p99 %d, max %d", t.P50, t.P90, t.P99, t.Max)
		if t.CharsPerToken != "" {
			fmt.Fprintf(&b, "; %s characters per token", t.CharsPerToken)
		}
		b.WriteString(".\n\n")
		if len(t.Sources) > 0 {
			b.WriteString("| source | documents | tokens |\n| --- | ---: | ---: |\n")
			for _, s := range t.Sources {
				fmt.Fprintf(&b, "| %s | %s | %s |\n", mdText(s.Name), thousands(s.Rows), thousands(s.Tokens))
			}
			b.WriteString("\n")
		}
	}
	if len(rep.Contam) > 0 {
		b.WriteString("Evaluation sets checked for contamination:\n\n")
		for _, e := range rep.Contam {
			fmt.Fprintf(&b, "- %s: %s of %s examples found in the corpus before decontamination\n", mdText(e.Name), thousands(e.Contaminated), thousands(e.Examples))
		}
		b.WriteString("\n")
	}

	glob := dataGlob
	b.WriteString("## Load it\n\n")
	fmt.Fprintf(&b, "```python\nfrom datasets import load_dataset\nds = load_dataset(\"parquet\", data_files=%q, split=\"train\")\n```\n\n", glob)
	fmt.Fprintf(&b, "```sql\n-- DuckDB\nSELECT count(*) FROM read_parquet('%s');\n```\n\n", strings.ReplaceAll(glob, "'", "''"))
	fmt.Fprintf(&b, "```python\nimport polars as pl\ndf = pl.scan_parquet(%q).collect()\n```\n", glob)
	_, err := io.WriteString(w, neutralizeBidi(b.String()))
	return err
}

// mdText makes s safe in a Markdown table cell or heading: no pipes, no
// line breaks, no HTML.
func mdText(s string) string {
	r := strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ", "<", "&lt;", ">", "&gt;", "`", "'")
	return r.Replace(s)
}

// mdCode makes s safe inside single backquotes.
func mdCode(s string) string { return strings.ReplaceAll(s, "`", "'") }
