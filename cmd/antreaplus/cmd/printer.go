package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"
)

// printFlags are -o of every command that prints objects, and the one
// printer of them all: a table (the command's own), json or yaml.
type printFlags struct {
	output string
	// table is the name of the default format: "table", or "" when a
	// table is printed without -o.
	table string
}

// addPrintFlags declares -o on fs (c's local or persistent flags) and its
// completion; def is the table format's name ("table" or "" when a table is
// printed without -o).
func addPrintFlags(c *cobra.Command, fs *pflag.FlagSet, p *printFlags, def string) {
	p.table = def
	usage := "output format: " + strings.Join(p.formats(), ", ")
	if def == "" {
		usage += " (default: a table)"
	}
	fs.StringVarP(&p.output, "output", "o", def, usage)
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(p.formats(), cobra.ShellCompDirectiveNoFileComp))
}

func (p *printFlags) formats() []string {
	if p.table == "" {
		return []string{"json", "yaml"}
	}
	return []string{p.table, "json", "yaml"}
}

// validate refuses an unknown format before anything is read.
func (p *printFlags) validate() error {
	if p.output == p.table || slices.Contains(p.formats(), p.output) {
		return nil
	}
	return fmt.Errorf("unknown output format %q: use %s", p.output, orList(p.formats(), p.table == ""))
}

func orList(formats []string, tableByDefault bool) string {
	opts := make([]string, len(formats))
	for i, f := range formats {
		opts[i] = "-o " + f
	}
	if tableByDefault {
		return strings.Join(opts, ", ") + ", or no -o for a table"
	}
	return strings.Join(opts[:len(opts)-1], ", ") + " or " + opts[len(opts)-1]
}

// print writes v as asked: JSON or YAML of v, else table(out).
func (p *printFlags) print(out io.Writer, v any, table func(io.Writer) error) error {
	switch p.output {
	case "json":
		return printJSON(out, v)
	case "yaml":
		b, err := yaml.Marshal(v)
		if err != nil {
			return fmt.Errorf("encoding YAML: %w", err)
		}
		_, err = out.Write(b)
		return err
	}
	return table(out)
}

func printJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
