package request

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
	FormatText = "text" // for reading: the command's table or summary
	FormatJSON = "json" // the command's report as one JSON object
	FormatCSV  = "csv"  // PyTorch's schedule CSV (docs/csv.md)
	FormatYAML = "yaml" // hardware-file entries (presets)
)

// FormatMeanings says what each format is, for the help.
var FormatMeanings = map[string]string{
	FormatText: "for reading",
	FormatJSON: "the report as JSON",
	FormatCSV:  "PyTorch's schedule CSV",
	FormatYAML: "hardware-file entries",
}

// OutputFlag is --format with the formats a command writes; the first is
// the default.
type OutputFlag struct {
	Format  string
	Formats []string
}

// register declares --format text|json, the formats most commands write.
func (o *OutputFlag) Register(fs *flag.FlagSet) { o.RegisterFormats(fs, FormatText, FormatJSON) }

// registerFormats declares --format with the given formats.
func (o *OutputFlag) RegisterFormats(fs *flag.FlagSet, formats ...string) {
	o.Formats = formats
	meanings := make([]string, len(formats))
	for i, f := range formats {
		meanings[i] = f + ": " + FormatMeanings[f]
	}
	fs.StringVar(&o.Format, "format", formats[0], fmt.Sprintf("output format: %s (%s)", OrList(formats), strings.Join(meanings, "; ")))
}

// check refuses a format the command does not write, naming those it does.
func (o *OutputFlag) Check() error {
	for _, f := range o.Formats {
		if o.Format == f {
			return nil
		}
	}
	return fmt.Errorf("--format must be %s, got %q", OrList(o.Formats), o.Format)
}

// write prints report as indented JSON, or calls text for the text format.
func (o *OutputFlag) Write(w io.Writer, report any, text func() error) error {
	if o.Format != FormatJSON {
		return text()
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(report)
}

// OrList writes "a", "a or b", "a, b or c".
func OrList(items []string) string {
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// WriteReport prints report as "--format format" asks: indented JSON for
// json, else text.
func WriteReport(w io.Writer, format string, report any, text func() error) error {
	o := OutputFlag{Format: format}
	return o.Write(w, report, text)
}
