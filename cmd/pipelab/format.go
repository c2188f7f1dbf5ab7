package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Output formats (docs/cli.md): --format takes the same value for the
// same format in every command, and each command the formats it can
// write, which its help lists.
const (
	formatText = "text" // for reading: the command's table or summary
	formatJSON = "json" // the command's report as one JSON object
	formatCSV  = "csv"  // PyTorch's schedule CSV (docs/csv.md)
	formatYAML = "yaml" // hardware-file entries (presets)
)

// formatMeanings says what each format is, for the help.
var formatMeanings = map[string]string{
	formatText: "for reading",
	formatJSON: "the report as JSON",
	formatCSV:  "PyTorch's schedule CSV",
	formatYAML: "hardware-file entries",
}

// outputFlag is --format with the formats a command writes; the first is
// the default.
type outputFlag struct {
	format  string
	formats []string
}

// register declares --format text|json, the formats most commands write.
func (o *outputFlag) register(fs *flag.FlagSet) { o.registerFormats(fs, formatText, formatJSON) }

// registerFormats declares --format with the given formats.
func (o *outputFlag) registerFormats(fs *flag.FlagSet, formats ...string) {
	o.formats = formats
	meanings := make([]string, len(formats))
	for i, f := range formats {
		meanings[i] = f + ": " + formatMeanings[f]
	}
	fs.StringVar(&o.format, "format", formats[0], fmt.Sprintf("output format: %s (%s)", orList(formats), strings.Join(meanings, "; ")))
}

// check refuses a format the command does not write, naming those it does.
func (o *outputFlag) check() error {
	for _, f := range o.formats {
		if o.format == f {
			return nil
		}
	}
	return fmt.Errorf("--format must be %s, got %q", orList(o.formats), o.format)
}

// write prints report as indented JSON, or calls text for the text format.
func (o *outputFlag) write(w io.Writer, report any, text func() error) error {
	if o.format != formatJSON {
		return text()
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(report)
}

// orList writes "a", "a or b", "a, b or c".
func orList(items []string) string {
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
