// Package recipes holds the published cleaning pipelines sluice ships:
// one pipeline file (the format package pipefile reads) for each, embedded
// in the binary. A recipe is data, not code: its stages, parameters and
// profile are those of the file, and its comments say where each step and
// threshold comes from and which steps of the original are left out.
//
// Each file starts with a one-line summary comment ("# ..."), which the
// listing shows. Its input and output are placeholders for the user to
// edit; `sluice clean --recipe` takes them from the command line instead.
package recipes

import (
	"embed"
	"fmt"
	"slices"
	"strings"

	"github.com/sluice-data/sluice/pipeline/pipefile"
)

//go:embed *.yaml
var files embed.FS

// Default is the recipe `sluice clean` runs when it is given no stages.
const Default = "default"

// Recipe is one embedded pipeline file.
type Recipe struct {
	Name    string
	Summary string // the file's first comment line, without "# "
	Source  []byte // the pipeline file as shipped
}

// Path is the name errors give the recipe's file, as in the repository.
func (r Recipe) Path() string { return "recipes/" + r.Name + ".yaml" }

// Parse reads the recipe as a pipeline file.
func (r Recipe) Parse() (*pipefile.File, error) {
	return pipefile.ParseFile(r.Path(), r.Source)
}

// Names lists the recipes: the default first, then the others by name.
func Names() []string {
	entries, _ := files.ReadDir(".")
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".yaml"); ok && name != Default {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return append([]string{Default}, names...)
}

// All returns every recipe, in the order of Names.
func All() []Recipe {
	var all []Recipe
	for _, name := range Names() {
		r, err := Get(name)
		if err == nil {
			all = append(all, r)
		}
	}
	return all
}

// Get returns the recipe name; an unknown name is an error that lists the
// recipes.
func Get(name string) (Recipe, error) {
	src, err := files.ReadFile(name + ".yaml")
	if err != nil || name == "" || strings.ContainsAny(name, "/.") {
		return Recipe{}, fmt.Errorf("unknown recipe %q (want one of %s)", name, strings.Join(Names(), ", "))
	}
	first, _, _ := strings.Cut(string(src), "\n")
	return Recipe{Name: name, Summary: strings.TrimPrefix(first, "# "), Source: src}, nil
}
