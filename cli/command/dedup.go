package command

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/pqio"
	"github.com/sluice-data/sluice/kernels/minhash"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/stages"
	"github.com/urfave/cli/v2"
)

// DedupOptions are the flags of the `sluice dedup` commands.
type DedupOptions struct {
	ConvertOptions
	Normalize    bool
	Keep         string
	MinLineChars int
	MinHash      stages.MinHashParams
	Clusters     string
	Annotate     bool
}

func dedupCommand(s Streams) *cli.Command {
	o := &DedupOptions{}
	lo := &DedupOptions{}
	mo := &DedupOptions{}
	return &cli.Command{
		Name:  "dedup",
		Usage: "remove duplicate documents and repeated lines",
		Subcommands: []*cli.Command{{
			Name:      "minhash",
			Usage:     "near-duplicate removal: MinHash signatures, LSH bands, verified pairs, union-find clusters",
			ArgsUsage: "IN... -o OUT",
			Description: "Texts in the matching normal form are split into words and shingled into word n-grams; a\n" +
				"document's signature holds --num-perm minimum hash values. Documents whose values collide in\n" +
				"one of --bands bands are candidates; a candidate pair links when its n-gram Jaccard similarity\n" +
				"(--verify jaccard, a pass over the candidates' texts) or its signature estimate (--verify\n" +
				"signature) reaches --threshold. Linked documents form components (union-find); in each, the first\n" +
				"document by --keep is kept with every member at or above --threshold against it, and the members\n" +
				"left form the next cluster, so a removed document is always a near duplicate of the one kept in\n" +
				"its place. Removed rows go to removed/ with _reason near_dup, _dup_of and _cluster. Deterministic\n" +
				"for a seed, whatever --workers.",
			Flags: append(append(inputFlags(&mo.ConvertOptions), outputFlags(&mo.ConvertOptions)...),
				&cli.IntFlag{Name: "num-perm", Value: stages.DefaultMinHashParams().NumPerm, Destination: &mo.MinHash.NumPerm, Usage: "permutations: the length of a signature"},
				&cli.IntFlag{Name: "bands", Value: stages.DefaultMinHashParams().Bands, Destination: &mo.MinHash.Bands, Usage: "LSH bands; must divide --num-perm"},
				&cli.IntFlag{Name: "ngram", Value: stages.DefaultMinHashParams().NGram, Destination: &mo.MinHash.NGram, Usage: "words per shingle"},
				&cli.Float64Flag{Name: "threshold", Value: stages.DefaultMinHashParams().Threshold, Destination: &mo.MinHash.Threshold, Usage: "Jaccard similarity at which two documents are duplicates"},
				&cli.StringFlag{Name: "verify", Value: string(stages.DefaultMinHashParams().Verify), Destination: (*string)(&mo.MinHash.Verify), Usage: "jaccard (true n-gram similarity of each candidate pair) or signature (estimate from the signatures)"},
				&cli.Uint64Flag{Name: "seed", Value: stages.DefaultMinHashParams().Seed, Destination: &mo.MinHash.Seed, Usage: "seed of the permutations, recorded in the manifest"},
				&cli.StringFlag{Name: "keep", Value: string(stages.DefaultMinHashParams().Keep), Destination: (*string)(&mo.MinHash.Keep), Usage: "which document a cluster keeps: first (in input order) or longest"},
				&cli.BoolFlag{Name: "annotate", Destination: &mo.Annotate,
					Usage: "keep every row; add minhash_cluster and minhash_cluster_size instead of removing duplicates"},
				&cli.StringFlag{Name: "spill-dir", Destination: &mo.MinHash.SpillDir,
					Usage: "directory for the signatures' Parquet intermediate (4 bytes per permutation and document; default: the system's temporary directory)"},
				&cli.StringFlag{Name: "clusters", Destination: &mo.Clusters,
					Usage: "write the cluster table (id, doc, cluster, cluster_size, kept, similarity) to this .parquet file"}),
			Action: action(func(c *cli.Context) error {
				return runDedupMinHash(c.Context, mo, c.Args().Slice(), commandLine(c), s)
			}),
		}, {
			Name:      "lines",
			Usage:     "drop lines that occur more than once in the corpus (boilerplate: menus, banners, footers)",
			ArgsUsage: "IN... -o OUT",
			Description: "Two passes: the first counts every line's 64-bit hash over the whole corpus (saturating\n" +
				"counters, not strings), the second rewrites each text without the repeated lines. A text left\n" +
				"empty goes to removed/ with _reason empty_after_line_dedup. Lines compare with surrounding\n" +
				"white space trimmed; blank lines are neither counted nor removed.",
			Flags: append(append(inputFlags(&lo.ConvertOptions), outputFlags(&lo.ConvertOptions)...),
				&cli.StringFlag{Name: "keep", Value: "none", Destination: &lo.Keep,
					Usage: "none: remove every copy of a repeated line; first: keep its first copy in input order"},
				&cli.IntFlag{Name: "min-line-chars", Value: 0, Destination: &lo.MinLineChars,
					Usage: "leave lines shorter than this many characters alone"}),
			Action: action(func(c *cli.Context) error {
				return runDedupLines(c.Context, lo, c.Args().Slice(), commandLine(c), s)
			}),
		}, {
			Name:      "exact",
			Usage:     "keep one row per distinct text, the first in input order; the others go to removed/ with _dup_of",
			ArgsUsage: "IN... -o OUT",
			Description: "One pass: workers hash every text (128-bit xxh3), then the batches take their turns in\n" +
				"input order to keep the first occurrence of every hash; the others go to removed/ with\n" +
				"_reason exact_dup and _dup_of, the kept row's id (--id-field, else <file>:<line>). The result\n" +
				"is the same whatever --workers is. Memory: one entry per distinct text.",
			Flags: append(append(inputFlags(&o.ConvertOptions), outputFlags(&o.ConvertOptions)...),
				&cli.BoolFlag{Name: "normalize", Destination: &o.Normalize,
					Usage: "compare texts in the matching normal form: lowercase, no punctuation, no accents, collapsed whitespace"}),
			Action: action(func(c *cli.Context) error {
				return runDedupExact(c.Context, o, c.Args().Slice(), commandLine(c), s)
			}),
		}},
	}
}

func runDedupExact(ctx context.Context, o *DedupOptions, args, command []string, s Streams) error {
	cfg, err := o.pipelineConfig(args)
	if err != nil {
		return err
	}
	d := stages.NewExactDedup(o.TextField, stages.ExactParams{Normalize: o.Normalize, IDField: o.IDField})
	cfg.Stages = []pipeline.Stage{d}
	m, err := runWithProgress(ctx, cfg, command, s, o.view(s), "deduplicating")
	if m != nil {
		res := DedupExactResult{Summary: newSummary(cfg.Target, m), DistinctTexts: d.Index().Len()}
		if perr := o.result(s.Out, res, func(w io.Writer) {
			printSummary(w, cfg.Target, m)
			fmt.Fprintf(w, "%d distinct texts; %d duplicates removed\n", res.DistinctTexts, m.Counts.Removed)
		}); err == nil {
			err = perr
		}
	}
	return err
}

func runDedupLines(ctx context.Context, o *DedupOptions, args, command []string, s Streams) error {
	params := stages.LinesParams{MinLineChars: o.MinLineChars}
	switch o.Keep {
	case "none":
	case "first":
		params.KeepFirst = true
	default:
		return usagef("--keep must be none or first, not %q", o.Keep)
	}
	if o.MinLineChars < 0 {
		return usagef("--min-line-chars must not be negative")
	}
	cfg, err := o.pipelineConfig(args)
	if err != nil {
		return err
	}
	g := stages.NewGlobalLines(o.TextField, params)
	m, err := runGlobal(ctx, cfg, g, command, s, o.view(s))
	if m != nil {
		res := DedupLinesResult{Summary: newSummary(cfg.Target, m), DistinctLines: g.Index().Len(),
			RemovedWhole: m.Counts.Removed, Hint: wholeRowsHint(m.Counts.Removed, params.KeepFirst)}
		if perr := o.result(s.Out, res, func(w io.Writer) {
			printSummary(w, cfg.Target, m)
			fmt.Fprintf(w, "%d distinct lines counted; %d rows removed whole, every line of them repeated in the corpus\n",
				res.DistinctLines, res.RemovedWhole)
			if res.Hint != "" {
				fmt.Fprintln(w, res.Hint)
			}
		}); err == nil {
			err = perr
		}
	}
	return err
}

// wholeRowsHint explains, under --keep none, the rows line dedup removed
// whole: every copy of a repeated line goes, so documents that are copies
// of one another are all removed and none is kept.
func wholeRowsHint(removed int64, keepFirst bool) string {
	if keepFirst || removed == 0 {
		return ""
	}
	return fmt.Sprintf("note: %d rows were removed whole, every line of them repeated elsewhere: with --keep none (the default) "+
		"every copy of a repeated line is removed, so documents that are copies of one another are all removed, none kept. "+
		"To keep one copy of each, run `sluice dedup exact` first, or use --keep first.", removed)
}

// runGlobal runs a command made of one global stage: its passes over the
// input, then the writing pass with its filter.
func runGlobal(ctx context.Context, cfg pipeline.Config, g pipeline.Global, command []string, s Streams, v *view) (*dataset.Manifest, error) {
	cfg.Stages = []pipeline.Stage{g}
	if err := prepareGlobals(ctx, cfg, cfg.Stages, command, s, v); err != nil {
		return nil, err
	}
	return runWithProgress(ctx, cfg, command, s, v, "writing")
}

func runDedupMinHash(ctx context.Context, o *DedupOptions, args, command []string, s Streams) error {
	o.MinHash.IDField = o.IDField
	g, err := stages.NewGlobalMinHash(o.TextField, o.MinHash, o.Annotate)
	if err != nil {
		return usageError{err}
	}
	index := g.Index()
	cfg, err := o.pipelineConfig(args)
	if err != nil {
		return err
	}
	var clusters *dataset.Artifact
	if o.Clusters != "" {
		if !strings.HasSuffix(o.Clusters, ".parquet") {
			return usagef("--clusters %s: the cluster table is a Parquet file; give a path ending in .parquet", o.Clusters)
		}
		if clusters, err = beginArtifact(ctx, "--clusters", dataset.ArtifactSpec{Path: o.Clusters, What: "cluster table",
			Inputs: inputsOf(args, cfg.Inputs), Outputs: cfg.Target.Paths(), Overwrite: o.Overwrite, Command: command}); err != nil {
			return err
		}
		defer clusters.Abort()
	}
	p := o.MinHash
	res := DedupMinHashResult{MinHash: MinHashSummary{Params: p, Rows: p.Rows(), Threshold50: p.Threshold50(),
		CandidateProbability: minhash.Probability(p.Threshold, p.Bands, p.Rows()), Clusters: o.Clusters}}
	// The banding and the clusters are printed as they are known, before
	// the output is written.
	text := o.text(s.Out)
	fmt.Fprintf(text, "minhash: %d permutations in %d bands of %d rows, %d-word shingles, seed %d\n", p.NumPerm, p.Bands, p.Rows(), p.NGram, p.Seed)
	fmt.Fprintf(text, "threshold %.2f; the banding's S-curve passes 50%% at similarity %.3f (%.1f%% of pairs at the threshold become candidates)\n",
		p.Threshold, res.MinHash.Threshold50, 100*res.MinHash.CandidateProbability)
	v := o.view(s)
	cfg.Stages = []pipeline.Stage{g}
	if err := prepareGlobals(ctx, cfg, cfg.Stages, command, s, v); err != nil {
		return err
	}
	res.MinHash.Report = index.Report()
	printMinHashReport(text, res.MinHash.Report)
	fmt.Fprintln(text)
	m, err := runWithProgress(ctx, cfg, command, s, v, "writing")
	if m != nil && clusters != nil {
		// The table goes with the dataset: committed once the dataset is.
		if cerr := writeClusterTable(clusters, index); cerr != nil {
			return cerr
		}
	}
	if m != nil {
		res.Summary = newSummary(cfg.Target, m)
		if perr := o.result(s.Out, res, func(w io.Writer) { printSummary(w, cfg.Target, m) }); err == nil {
			err = perr
		}
	}
	return err
}

func printMinHashReport(w io.Writer, r stages.MinHashReport) {
	fmt.Fprintf(w, "%d documents signed; %d candidate pairs, %d at or above the threshold; %d clusters holding %d documents\n",
		r.Documents, r.CandidatePairs, r.LinkedPairs, r.Clusters, r.InClusters)
	sizes := make([]int, 0, len(r.Sizes))
	for size := range r.Sizes {
		n, _ := strconv.Atoi(size)
		sizes = append(sizes, n)
	}
	sort.Ints(sizes)
	for _, size := range sizes {
		fmt.Fprintf(w, "  clusters of %d: %d\n", size, r.Sizes[strconv.Itoa(size)])
	}
	if len(r.Largest) > 0 {
		fmt.Fprintf(w, "largest clusters (cluster = the kept document's number in input order):\n")
		for _, c := range r.Largest {
			fmt.Fprintf(w, "  cluster %-8d %5d documents, kept %s\n", c.Cluster, c.Size, c.KeptID)
		}
	}
}

// writeClusterTable writes the cluster table of index as the file of
// --clusters.
func writeClusterTable(file *dataset.Artifact, index *stages.MinHashIndex) error {
	mem := memory.NewGoAllocator()
	rec := index.ClusterTable(mem)
	defer rec.Release()
	data, err := pqio.EncodePiece(mem, rec, pqio.Options{}, nil)
	if err != nil {
		return err
	}
	file.Rows = rec.NumRows()
	return file.Commit(data)
}
