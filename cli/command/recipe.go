package command

import (
	"fmt"
	"strings"

	"github.com/sluice-data/sluice/recipes"
	"github.com/urfave/cli/v2"
)

func recipeCommand(s Streams) *cli.Command {
	return &cli.Command{
		Name:      "recipe",
		Usage:     "list the built-in recipes (published cleaning pipelines), or print one as a pipeline file",
		ArgsUsage: "[NAME]",
		Description: "Without NAME, lists the recipes, one line each. With NAME, prints that recipe as a pipeline\n" +
			"file, the YAML `sluice run` reads; its comments say where each step and threshold comes from and\n" +
			"which steps of the original it leaves out (those that need a block list, a model or evaluation\n" +
			"files sluice does not ship), with the stage to add when you have them. Its input and output are\n" +
			"placeholders: set them (or give -o OUT to sluice run), then run the file with sluice run.\n" +
			"sluice clean IN -o OUT --recipe NAME runs a recipe's stages without a file, and sluice clean\n" +
			"without stage flags runs the default recipe.",
		Action: action(func(c *cli.Context) error {
			switch c.NArg() {
			case 0:
				listRecipes(s)
				return nil
			case 1:
				return printRecipe(s, c.Args().First())
			default:
				return usagef("recipe takes at most one NAME, got %d arguments", c.NArg())
			}
		}),
	}
}

// listRecipes prints every recipe's name and summary, one line each.
func listRecipes(s Streams) {
	var rows [][]string
	for _, r := range recipes.All() {
		rows = append(rows, []string{r.Name, r.Summary})
	}
	(&table{}).print(s.Out, rows)
	fmt.Fprintln(s.Out, "\nsluice recipe NAME prints one; sluice clean IN -o OUT --recipe NAME runs it.")
}

// printRecipe writes the recipe name as it is shipped.
func printRecipe(s Streams, name string) error {
	r, err := recipes.Get(name)
	if err != nil {
		names := recipes.Names()
		if near := closest(name, names); len(near) > 0 {
			return usagef("unknown recipe %s; did you mean %s?", name, strings.Join(near, " or "))
		}
		return usagef("unknown recipe %s (want one of %s)", name, strings.Join(names, ", "))
	}
	_, err = s.Out.Write(r.Source)
	return err
}
