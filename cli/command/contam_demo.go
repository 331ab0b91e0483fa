package command

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sluice-data/sluice/contam"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/memorize"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/stages"
)

// demoEvalSet is a tiny evaluation set for the demo: reading-comprehension
// questions, one of which quotes a passage of a book in the sample corpus
// (books-48527): the planted leak that decontamination must find.
const demoEvalSet = `{"id":"read-1","passage":"The marsh is never silent, even in the dead hours before dawn; there is always the tick and seep of water finding its way back to the sea.","question":"According to the passage, what can always be heard on the marsh?","choices":["birds","the wind","water","the tide bell"]}
{"id":"read-2","passage":"The lighthouse keeper rowed out to the rocks every evening to check the lamp before the fishing fleet returned to the harbour.","question":"Why did the keeper row out every evening?","choices":["to fish","to check the lamp","to meet the fleet","to watch birds"]}
{"id":"sci-1","question":"Which layer of the atmosphere contains most of the ozone that absorbs ultraviolet radiation from the sun before it reaches the ground?","choices":["troposphere","stratosphere","mesosphere","thermosphere"]}
{"id":"math-1","question":"A train leaves the station at a constant speed of sixty kilometres per hour; how far has it travelled after two and a half hours?","choices":["120 km","150 km","180 km","90 km"]}
`

// runDemoContamination is the demo's contamination and memorization step:
// it decontaminates in (the demo's kept rows, e.g. OUT/data) against the
// built-in evaluation set above, with 13-grams and the defaults of `sluice
// decontaminate`, into outDir (a dataset directory: data/, removed/,
// contamination.json), prints the report, and samples five probes of
// 32+32 cl100k_base tokens with seed 1 into outDir/probes.jsonl.
func runDemoContamination(ctx context.Context, in []string, outDir string, workers int, command []string, s Streams) error {
	co, err := convertDefaults()
	if err != nil {
		return err
	}
	co.Output, co.Overwrite, co.Workers, co.NoProgress = outDir, true, workers, true
	tmp, err := os.MkdirTemp("", "sluice-demo-eval-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	evalPath := filepath.Join(tmp, "demo-eval.jsonl")
	if err := os.WriteFile(evalPath, []byte(demoEvalSet), 0o644); err != nil {
		return err
	}
	p := stages.DefaultDecontamParams()
	p.Eval, p.IDField, p.SourceField = []string{evalPath}, co.IDField, "meta.source"
	st, err := stages.NewDecontaminate(co.TextField, p, false)
	if err != nil {
		return err
	}
	st.SourceIfPresent()
	cfg, err := co.pipelineConfig(in)
	if err != nil {
		return err
	}
	cfg.Stages = []pipeline.Stage{st}
	var rep contam.Report
	cfg.BeforeCommit = func(staged dataset.Target, _ *dataset.Manifest) error {
		rep = st.Contamination()
		for i := range rep.EvalSets {
			rep.EvalSets[i].Name, rep.EvalSets[i].Path = "demo-eval", "(built in)"
		}
		_, err := saveContamination(staged, rep)
		return err
	}
	m, err := runPipeline(ctx, cfg, command)
	if err != nil {
		return err
	}
	reportPath := cfg.Target.SidePath("contamination.json")
	fmt.Fprintf(s.Out, "\nDecontamination against a built-in eval set of %d questions (one quotes a book of the sample):\n", st.Index().Examples())
	rep.WriteText(s.Out, 5)
	fmt.Fprintf(s.Out, "%d rows removed to %s; report %s\n", m.Counts.Removed, filepath.Join(outDir, "removed"), reportPath)

	sampler, err := memorize.NewSampler(memorize.ProbeParams{N: 5, PrefixTokens: 32, SuffixTokens: 32, Tokenizer: "cl100k_base", Seed: 1, Offset: "random"})
	if err != nil {
		return err
	}
	pass := cfg
	if pass.Inputs, err = input.Expand([]string{filepath.Join(outDir, "data")}); err != nil {
		return err
	}
	// The probes go into the dataset just written, beside its manifest;
	// they replace only the probes an earlier demo wrote there.
	file, err := beginArtifact(ctx, "probes", dataset.ArtifactSpec{Path: filepath.Join(outDir, "probes.jsonl"), What: "memorization probes",
		Inputs: inputsOf([]string{outDir}, pass.Inputs), Overwrite: true, Command: command})
	if err != nil {
		return err
	}
	defer file.Abort()
	pass = pipeline.PassConfig(pass, []pipeline.Stage{stages.NewProbeSample(co.TextField, co.IDField, "meta.source", sampler)})
	if _, err := runPipeline(ctx, pass, command); err != nil {
		return err
	}
	probes := sampler.Probes()
	var b bytes.Buffer
	if err := appendJSONLines(&b, probes); err != nil {
		return err
	}
	file.Rows = int64(len(probes))
	if err := file.Commit(b.Bytes()); err != nil {
		return err
	}
	probesPath := file.Path()
	fmt.Fprintf(s.Out, "%d memorization probes (32+32 cl100k_base tokens, seed 1): %s\n", len(probes), probesPath)
	fmt.Fprintf(s.Out, "  score a model's continuations with: sluice memorize score --probes %s --generations GEN.jsonl\n", squote(probesPath))
	return nil
}
