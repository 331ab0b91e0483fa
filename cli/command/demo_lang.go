package command

import (
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/stages"
)

// demoLangStage is the language-ID stage the demo runs: the built-in
// lid.176 model in annotate mode (`--lang any`), adding lang and
// lang_score to every row and removing none.
func demoLangStage(textField string) (pipeline.Stage, error) {
	return stages.NewLang(textField, stages.LangParams{Languages: []string{"any"}}, false)
}

// demoLangQuery is the DuckDB query that shows the languages the demo
// found, for the "Look at it" list; glob is the data files' SQL-quoted
// glob.
func demoLangQuery(glob string) string {
	return "SELECT lang, count(*), round(avg(lang_score), 3) FROM read_parquet('" + glob + "') GROUP BY 1 ORDER BY 2 DESC"
}
